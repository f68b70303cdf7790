import type { Usage } from "../api/schemas.js";
import { type Card, card, type Line } from "../base/cards.js";
import type { OutgoingFile } from "../base/ports.js";
import { SPEND_KIND_NAMES } from "../spend/data/kinds.js";
import type { BudgetView, SpendReport, SpendShare } from "../spend/data/model.js";
import { budgetLine } from "./budgets.js";
import { plural } from "./text.js";
import { usageCard } from "./usage.js";

const TOP_PEOPLE = 5;

/** A job kind as people name it ("Avatar videos"); a kind added later still reads as words. */
export function kindName(kind: string): string {
  const known: Record<string, string | undefined> = SPEND_KIND_NAMES;
  const words = kind.replaceAll("_", " ");
  return known[kind] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

/** Credits can be fractional; two decimals are more than any plan counts in. */
function credits(amount: number): string {
  return plural(Math.round(amount * 100) / 100, "credit");
}

const share = (s: { credits: number; jobs: number }) => `${credits(s.credits)}, ${plural(s.jobs, "job")}`;

const budgetText = (b: BudgetView) => `${b.label}: ${budgetLine(b)}`;

/** People only show as mentions in lines: one paragraph, a person a row. */
function topPeople(people: readonly SpendShare[]): Line {
  return [
    "Top people:",
    ...people.slice(0, TOP_PEOPLE).flatMap((p) => ["\n", { userId: p.key }, ` ${share(p)}`]),
  ];
}

/**
 * /usage: the account's figures, then this period's spending through the bot (everyone's for
 * admins, the viewer's own for members) and, when there is one, its chart.
 */
export function spendingCard(
  usage: Usage | undefined,
  report: SpendReport,
  chart: OutgoingFile | undefined,
): Card {
  const own = report.scope === "own";
  const account = usage ? usageCard(usage) : undefined;
  const { totals } = report;
  const spent = totals.jobs > 0 || totals.credits > 0;
  const lines: Line[] = [...(account?.lines ?? [])];
  const fields: Card["fields"] = [...(account?.fields ?? [])];

  if (!spent) {
    lines.push(
      own
        ? "You have spent nothing through the bot this period."
        : "Nothing was spent through the bot this period.",
    );
  } else {
    if (own) lines.push("Your own spending through the bot this period.");
    else if (report.people.length > 0) lines.push(topPeople(report.people));
    fields.push({ name: "Spent through the bot this period", value: share(totals) });
  }
  if (totals.outside > 0) fields.push({ name: "Outside the bot", value: credits(totals.outside) });
  if (spent && report.kinds.length > 0) {
    fields.push({
      name: "By kind",
      value: report.kinds.map((k) => `${kindName(k.key)}: ${share(k)}`).join("\n"),
    });
  }
  if (report.budgets.length > 0) {
    fields.push({ name: "Budgets", value: report.budgets.map(budgetText).join("\n") });
  }

  const first = report.days[0]?.key;
  const last = report.days.at(-1)?.key;
  const period = first && last ? (first === last ? ` on ${first}` : `, ${first} to ${last}`) : "";
  return card("Media service usage", account?.tone ?? "info", {
    lines,
    fields,
    media:
      chart && spent
        ? [
            {
              kind: "image",
              name: "usage.png",
              file: chart,
              drawn: true,
              alt: `Bar chart of ${own ? "your " : ""}credits spent per day by job kind${period}`,
            },
          ]
        : [],
  });
}

/** The reply to an admin's export: the CSV attached as a document. */
export function spendingExportCard(rows: number, file: OutgoingFile): Card {
  return card(`Spending export: ${plural(rows, "job")} this period`, "success", {
    lines: [
      "People and channels by name, and by id beside them; credits are empty while a job's cost is not known yet.",
    ],
    media: [{ kind: "file", name: file.name, file }],
  });
}
