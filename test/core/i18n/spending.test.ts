import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Usage } from "../../../src/core/api/schemas.js";
import { type Card, plainText } from "../../../src/core/base/cards.js";
import type { OutgoingFile } from "../../../src/core/base/ports.js";
import { knownLocales, LOCALES } from "../../../src/core/i18n/catalogues.js";
import { type Translator, translatorFor } from "../../../src/core/i18n/translator.js";
import { jobsNowLine, outOfCreditsCard, spendingAlertCard } from "../../../src/core/render/alerts.js";
import { budgetsCard } from "../../../src/core/render/budgets.js";
import { dayLabel, spendChartSpec, spendChartSvg } from "../../../src/core/render/spend-chart.js";
import { exportFileName } from "../../../src/core/render/spend-csv.js";
import { spendingCard, spendingExportCard } from "../../../src/core/render/spending.js";
import { crossings } from "../../../src/core/spend/alerts.js";
import { SPEND_KINDS } from "../../../src/core/spend/data/kinds.js";
import type { BudgetHolder, BudgetView, SpendReport } from "../../../src/core/spend/data/model.js";
import { DISCORD_LIMITS } from "../../../src/discord/limits.js";
import { SLACK_LIMITS } from "../../../src/slack/limits.js";
import { addPseudoLocale, bypasses, PSEUDO } from "./pseudo.js";

addPseudoLocale();

const file: OutgoingFile = {
  name: "usage.png",
  contentType: "image/png",
  size: 3,
  open: async () => Readable.from([Buffer.from("png")]),
};

const usage: Usage = {
  credits_used: 920,
  credits_limit: 1000,
  credits_remaining: 80,
  plan: "Pro",
  usage_reset_date: "2026-12-01T00:00:00Z",
  usage: { ai_images: { used: 3, limit: 50 }, ai_actor_videos: { used: 1, limit: "unlimited" } },
};

/** Every holder a budget has, with `name` for the ones the platform names. */
function holders(name: string, place: BudgetHolder["place"]): BudgetHolder[] {
  return [
    { of: "you", place },
    { of: "each", place },
    { of: "each_highest", place },
    { of: "person", name, place },
    { of: "role", name, place },
    { of: "group", name, place },
    { of: "channel", name, place },
    { of: "everyone", place },
  ];
}

/** A budget of every holder, in credits and in jobs of each kind in turn. */
function budgets(name: string, place: BudgetHolder["place"], big = 12): BudgetView[] {
  return holders(name, place).map((holder, i) => ({
    label: "English label",
    holder,
    unit: i === 0 ? "credits" : { jobs: SPEND_KINDS[i % SPEND_KINDS.length]! },
    used: big,
    limit: big * 10,
  }));
}

function report(overrides: Partial<SpendReport> = {}): SpendReport {
  return {
    resetsOn: "2026-12-01T00:00:00Z",
    since: "2026-11-01",
    scope: "everyone",
    viewerId: "U1",
    totals: { credits: 180.5, jobs: 20, outside: 35 },
    people: ["U1", "U2"].map((key, i) => ({ key, credits: 60 - i * 10, jobs: 6 - i })),
    kinds: SPEND_KINDS.map((key, i) => ({ key, credits: 10 + i, jobs: i + 1 })),
    days: [
      { key: "2026-11-01", credits: 100, jobs: 10 },
      { key: "2026-11-30", credits: 80, jobs: 10 },
    ],
    daysByKind: [
      { day: "2026-11-01", kind: "image", credits: 100 },
      { day: "2026-11-30", kind: "mockup_video", credits: 80 },
    ],
    budgets: budgets("Designers", "discord"),
    ...overrides,
  };
}

/** Every card of the area in `t`'s language: usage (admin and member), export, budgets, alerts. */
function cards(t: Translator, name = "Designers", big = 12): Card[] {
  const csv = { ...file, name: exportFileName("2026-12-01", t), contentType: "text/csv" };
  const low = crossings(usage, [0.1, 0.2], t).map((group) => group[0]!.line);
  const refused = t.line({
    key: "alert.creation_refused",
    values: { person: { userId: "U1" }, command: "image.generate" },
  });
  return [
    spendingCard(usage, report({ budgets: budgets(name, "discord", big) }), file, t),
    spendingCard(usage, report({ budgets: budgets(name, "slack", big) }), file, t),
    spendingCard(undefined, report({ scope: "own", people: [], budgets: [] }), file, t),
    spendingCard(
      { ...usage, credits_remaining: 0 },
      report({ totals: { credits: 0, jobs: 0, outside: 0 }, kinds: [], days: [], budgets: [] }),
      undefined,
      t,
    ),
    spendingCard(
      undefined,
      report({ scope: "own", totals: { credits: 0, jobs: 0, outside: 0 } }),
      undefined,
      t,
    ),
    spendingExportCard(1, csv, t, "discord"),
    spendingExportCard(big, csv, t, "slack"),
    budgetsCard("listed", [], t),
    budgetsCard("saved", budgets(name, "slack", big), t),
    budgetsCard("removed", budgets(name, "discord", big), t),
    ...low.map((line) => spendingAlertCard(line, usage.usage_reset_date, { running: 3, waiting: 1 }, t)),
    spendingAlertCard(low[0]!, undefined, { running: 1, waiting: 0 }, t),
    outOfCreditsCard(refused, { running: 2, waiting: 7 }, t),
  ];
}

/** Every word a person reads on a card, each piece on its own line. */
function words(card: Card): string[] {
  return [
    card.title,
    ...card.lines.map(plainText),
    ...card.fields.flatMap((f) => [f.name, f.value]),
    ...card.media.flatMap((m) => [m.name, m.alt ?? ""]),
    card.footer ?? "",
  ];
}

describe("the chart's legend", () => {
  it("leaves Japanese labels the room their full-width glyphs take, beyond vega's estimate", () => {
    const padding = (t: Translator) =>
      (
        spendChartSpec(report(), t) as unknown as {
          encoding: { color: { legend: { columnPadding: number } } };
        }
      ).encoding.color.legend.columnPadding;
    expect(padding(translatorFor("en"))).toBe(10);
    // "モックアップアセット": 10 full-width characters at 12 px, estimated at 0.8 em each.
    expect(padding(translatorFor("ja"))).toBeGreaterThanOrEqual(10 + 24);
  });
});

/** The chart's words: its title and subtitle, axis, days and legend. */
function chartWords(t: Translator, scope: SpendReport["scope"] = "everyone"): string[] {
  const spec = spendChartSpec(report({ scope }), t) as unknown as {
    title: { text: string; subtitle: string };
    data: { values: { day: string; kind: string }[] };
    encoding: { y: { title: string } };
  };
  return [
    spec.title.text,
    spec.title.subtitle,
    spec.encoding.y.title,
    ...spec.data.values.flatMap((v) => [v.day, v.kind]),
  ];
}

/** What stays as typed in every language: commands and options, names, the service's command. */
const TYPED = ["image.generate", "usage", "budget", "jobs", "all", "Designers", "usage.png"];

describe("the spending area in the reader's language", () => {
  it("shows no English of its own in the pseudo-locale: usage, export, budgets, alerts, the chart", () => {
    const t = translatorFor(PSEUDO);
    const plain = [
      ...cards(t).flatMap((card) => words(card).map((text) => [card.title, text] as const)),
      ...[...chartWords(t), ...chartWords(t, "own")].map((text) => ["chart", text] as const),
      ["jobs now", jobsNowLine({ running: 2, waiting: 0 }, false, t)!] as const,
    ].flatMap(([where, text]) => {
      const found = bypasses(text, TYPED);
      return found.length > 0 ? [`${where}: ${found.join(" ")} (${text})`] : [];
    });
    expect(plain).toEqual([]);
  });

  it("keeps English as it was, and tells a German reader in German, in German numbers and days", () => {
    const de = translatorFor("de");
    const german = spendingCard(usage, report(), file, de);
    expect(german.title).toBe("Nutzung des Mediendienstes");
    expect(german.locale).toBe("de");
    const fields = Object.fromEntries(german.fields.map((f) => [f.name, f.value]));
    expect(fields["In diesem Zeitraum über den Bot ausgegeben"]).toBe("180,5 Credits, 20 Aufträge");
    expect(fields["Außerhalb des Bots"]).toBe("35 Credits");
    expect(fields["Zurückgesetzt am"]).toBe("01.12.2026");
    expect(fields["Nach Art"]!.split("\n").slice(0, 2)).toEqual([
      "Bilder: 10 Credits, 1 Auftrag",
      "Avatar-Videos: 11 Credits, 2 Aufträge",
    ]);
    expect(fields.Budgets!.split("\n").slice(0, 5)).toEqual([
      "Dein Budget: 12 von 120 Credits (108 übrig)",
      "Jede Person: 12 von 120 Avatar-Video-Aufträgen (108 übrig)",
      "Jede Person (höchster Stand): 12 von 120 Cinematic-Aufträgen (108 übrig)",
      "Person @Designers: 12 von 120 Fotoavatar-Aufträgen (108 übrig)",
      "Rolle @Designers: 12 von 120 Mockup-Aufträgen (108 übrig)",
    ]);
    expect(german.media[0]!.alt).toBe(
      "Balkendiagramm der pro Tag ausgegebenen Credits nach Auftragsart, 01.11.2026 bis 30.11.2026",
    );
    // Slack's German names a channel "Channel", Discord's "Kanal".
    const slackBudgets = budgetsCard("saved", budgets("design", "slack"), de);
    expect(slackBudgets.title).toBe("Budget gespeichert");
    expect(slackBudgets.fields.map((f) => f.name).slice(5, 7)).toEqual([
      "Benutzergruppe @design",
      "Channel #design",
    ]);
    expect(budgetsCard("saved", budgets("allgemein", "discord"), de).fields[6]!.name).toBe(
      "Kanal #allgemein",
    );
    expect(crossings(usage, [0.1], de)[0]![0]!.line).toBe(
      "Die Credits werden knapp: 80 von 1000 übrig (8 %), unter der Warnschwelle von 10 %.",
    );
    expect(dayLabel("2026-03-04", de)).toBe("4. März");
    expect(dayLabel("2026-03-04", translatorFor("ja"))).toBe("3月4日");
    expect(chartWords(de).slice(0, 3)).toEqual([
      "Credits pro Tag, 01.11.2026 bis 30.11.2026",
      "Dieser Zeitraum wird am 01.12.2026 zurückgesetzt",
      "Credits",
    ]);
    expect(exportFileName("2026-12-01", de)).toBe("ausgaben-2026-11.csv");
    expect(exportFileName("2026-12-15", translatorFor("fr"))).toBe("depenses-au-2026-12-14.csv");

    // English as it was: ISO days, no grouping, the same words.
    const en = translatorFor("en");
    const english = spendingCard(usage, report(), file, en);
    expect(english.title).toBe("Media service usage");
    expect(english.fields.find((f) => f.name === "Resets on")?.value).toBe("2026-12-01");
    expect(english.fields.find((f) => f.name === "Spent through the bot this period")?.value).toBe(
      "180.5 credits, 20 jobs",
    );
    expect(english.media[0]!.alt).toBe(
      "Bar chart of credits spent per day by job kind, 2026-11-01 to 2026-11-30",
    );
    expect(budgetsCard("listed", [], en).lines).toEqual([
      "No budgets are set: anyone allowed to use the bot may spend the account's credits.",
    ]);
    expect(
      outOfCreditsCard(
        en.line({
          key: "alert.creation_refused",
          values: { person: { userId: "U1" }, command: "image.generate" },
        }),
      ).lines,
    ).toEqual([
      [
        "A creation failed because the account is out of credits or over its plan limit (",
        { userId: "U1" },
        " ran image.generate). Nothing more can be made until the reset date or a plan upgrade.",
      ],
    ]);
  });

  it("keeps every title, field and the chart's title within Discord's and Slack's limits in every language", () => {
    // Discord names (roles, channels) run to 100 characters; figures to the largest a budget takes.
    const longest = "w".repeat(100);
    const header = SLACK_LIMITS.headerText - 3; // Slack's header starts with the tone's emoji
    const over = knownLocales().flatMap((locale) => {
      const t = translatorFor(locale);
      // A list of budgets grows with the budgets an admin sets (the adapters cut a value at its
      // limit): its lines are held to the limit, the bounded fields whole. The pseudo-locale pads
      // a message by its ICU source's length, selects of every kind included, which no language
      // writes: its values are left to the shipped languages.
      const listed = t.text("spend.field.budgets");
      const values = (name: string, value: string) =>
        locale === PSEUDO ? [] : name === listed ? value.split("\n") : [value];
      return cards(t, longest, 10_000_000)
        .flatMap((card) => [
          ...(card.title.length > Math.min(DISCORD_LIMITS.embedTitle, header) ? [`title ${card.title}`] : []),
          ...card.fields.flatMap((f) => [
            ...(f.name.length > DISCORD_LIMITS.embedFieldName ? [`field ${f.name}`] : []),
            ...values(f.name, f.value)
              .filter((value) => value.length > DISCORD_LIMITS.embedFieldValue)
              .map((value) => `value of ${f.name}: ${value.length}`),
          ]),
          ...card.media.flatMap((m) => ((m.alt ?? "").length > SLACK_LIMITS.altText ? [`alt ${m.alt}`] : [])),
          ...(plainTextLength(card) > DISCORD_LIMITS.embedDescription ? [`lines of ${card.title}`] : []),
        ])
        .map((problem) => `${locale}: ${problem}`);
    });
    expect(over).toEqual([]);
  });

  it("writes the chart's figures with the reader's decimal mark and digit groups", async () => {
    const big = report({ daysByKind: [{ day: "2026-11-01", kind: "image", credits: 2500 }] });
    const ticks = async (locale: string) =>
      [...((await spendChartSvg(big, translatorFor(locale))) ?? "").matchAll(/>([\d.,\s]+)<\/text>/g)].map(
        (m) => m[1],
      );
    expect(await ticks("de")).toContain("2.500");
    expect(await ticks("en")).toContain("2,500");
  });

  it("writes the chart's title so that it fits the picture's width in every shipped language", () => {
    // 16 px type in a 640 px picture with 12 px padding: about 60 characters of DejaVu Sans.
    const wide = LOCALES.flatMap((locale) =>
      (["everyone", "own"] as const)
        .flatMap((scope) => chartWords(translatorFor(locale), scope).slice(0, 2))
        .filter((text) => text.length > 60)
        .map((text) => `${locale}: ${text}`),
    );
    expect(wide).toEqual([]);
  });
});

function plainTextLength(card: Card): number {
  return card.lines.map(plainText).join("\n\n").length;
}
