import type { Usage } from "../api/schemas.js";
import { type Card, card, type Line } from "../base/cards.js";
import type { OutgoingFile, Platform } from "../base/ports.js";
import { english, type Translator } from "../i18n/translator.js";
import type { SpendReport, SpendShare } from "../spend/data/model.js";
import { budgetText } from "./budgets.js";
import { dayIn } from "./spend-words.js";
import { usageCard } from "./usage.js";

const TOP_PEOPLE = 5;

/** A job kind as people name it ("Avatar videos"); a kind added later still reads as words. */
export function kindName(kind: string, t: Translator = english()): string {
  const words = kind.replaceAll("_", " ");
  return t.text("spend.kind", { kind, name: words.charAt(0).toUpperCase() + words.slice(1) });
}

/** Credits can be fractional; two decimals are more than any plan counts in. */
const rounded = (amount: number) => Math.round(amount * 100) / 100;

const share = (s: { credits: number; jobs: number }, t: Translator) =>
  t.text("spend.share", { credits: rounded(s.credits), jobs: s.jobs });

/** People only show as mentions in lines: one paragraph, a person a row. */
function topPeople(people: readonly SpendShare[], t: Translator): Line {
  return [
    t.text("spend.top_people"),
    ...people.slice(0, TOP_PEOPLE).flatMap((p) => ["\n", { userId: p.key }, ` ${share(p, t)}`]),
  ];
}

/** The chart's days as its alt text says them: one day, a span, or none. */
function spanOf(report: SpendReport, t: Translator) {
  const first = report.days[0]?.key;
  const last = report.days.at(-1)?.key;
  if (!first || !last) return { span: "none", first: "", last: "" };
  return { span: first === last ? "day" : "days", first: dayIn(t, first)!, last: dayIn(t, last)! };
}

/**
 * /usage: the account's figures, then this period's spending through the bot (everyone's for
 * admins, the viewer's own for members) and, when there is one, its chart; in `t`'s language.
 */
export function spendingCard(
  usage: Usage | undefined,
  report: SpendReport,
  chart: OutgoingFile | undefined,
  t: Translator = english(),
): Card {
  const own = report.scope === "own";
  const account = usage ? usageCard(usage, t) : undefined;
  const { totals } = report;
  const spent = totals.jobs > 0 || totals.credits > 0;
  const lines: Line[] = [...(account?.lines ?? [])];
  const fields: Card["fields"] = [...(account?.fields ?? [])];

  if (!spent) {
    lines.push(t.text("spend.nothing", { own: String(own) }));
  } else {
    if (own) lines.push(t.text("spend.own"));
    else if (report.people.length > 0) lines.push(topPeople(report.people, t));
    fields.push({ name: t.text("spend.field.spent"), value: share(totals, t) });
  }
  if (totals.outside > 0) {
    fields.push({
      name: t.text("spend.field.outside"),
      value: t.text("spend.credits", { credits: rounded(totals.outside) }),
    });
  }
  if (spent && report.kinds.length > 0) {
    fields.push({
      name: t.text("spend.field.by_kind"),
      value: report.kinds
        .map((k) => t.text("spend.labelled", { label: kindName(k.key, t), value: share(k, t) }))
        .join("\n"),
    });
  }
  if (report.budgets.length > 0) {
    fields.push({
      name: t.text("spend.field.budgets"),
      value: report.budgets.map((b) => budgetText(b, t)).join("\n"),
    });
  }

  return card(t.text("usage.title"), account?.tone ?? "info", {
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
              alt: t.text("spend.chart.alt", { own: String(own), ...spanOf(report, t) }),
            },
          ]
        : [],
    locale: t.locale,
  });
}

/**
 * The reply to an admin's export: the CSV attached as a document, its columns named in English
 * in every language (what spreadsheets and scripts read them by).
 */
export function spendingExportCard(
  rows: number,
  file: OutgoingFile,
  t: Translator = english(),
  place: Platform = "discord",
): Card {
  return card(t.text("spend.export.title", { jobs: rows }), "success", {
    lines: [t.text("spend.export.line", { place })],
    media: [{ kind: "file", name: file.name, file }],
    locale: t.locale,
  });
}
