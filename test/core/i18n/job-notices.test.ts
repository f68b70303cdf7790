import { describe, expect, it } from "vitest";
import { type Card, card, type OutgoingFile } from "../../../src/core/base/cards.js";
import { withoutFiles } from "../../../src/core/flows/refused-files.js";
import { interruptedStartCard } from "../../../src/core/flows/start-intents.js";
import { confirmingCard, divertedCard } from "../../../src/core/render/job.js";
import { addPseudoLocale, bypasses, PSEUDO } from "./pseudo.js";

addPseudoLocale();

/** A job's notices beyond its progress: a start a crash cut short, a kept variant, a result moved or stripped of its files. */
function notices(locale: string): Card[] {
  const view = { id: "job-1", title: "fox", locale };
  const file = {} as OutgoingFile;
  const result = card("fox", "success", {
    media: [
      { kind: "image", name: "fox.png", url: "https://cdn.example/fox.png", file },
      { kind: "file", name: "report.csv", file, drawn: true },
    ],
    locale,
  });
  return [
    interruptedStartCard("image.generate", locale),
    confirmingCard(view, { both: true }),
    confirmingCard(view, { variant: 2 }),
    divertedCard({ ...result, media: [] }, "REASON"),
    withoutFiles(result, "REASON"),
  ];
}

const words = (card: Card) =>
  [card.title, ...card.lines.map(String), card.progress?.label, ...card.links.map((l) => l.label)].join("\n");

describe("a job's notices in the reader's language", () => {
  it("show no English of their own in the pseudo-locale", () => {
    const plain = notices(PSEUDO).flatMap((card) =>
      bypasses(words(card), ["image generate", "fox", "REASON", "report.csv"]),
    );
    expect(plain).toEqual([]);
  });

  it("keep English as it was, and tell a German reader in German", () => {
    const [interrupted, both, one, diverted, stripped] = notices("en");
    expect(interrupted!.title).toBe("Your job may have been created");
    expect(both!.lines).toEqual(["Keeping both variants…"]);
    expect(one!.lines).toEqual(["Keeping variant 2…"]);
    expect(diverted!.lines[0]).toBe(
      "The bot could not show this where you asked for it. REASON So it comes here, to your DM with the bot.",
    );
    expect(stripped!.links.map((l) => l.label)).toEqual(["Download the image"]);
    expect(stripped!.lines.at(-1)).toBe("REASON It is not attached.");
    const german = notices("de");
    expect(german[0]!.title).toBe("Dein Auftrag wurde vielleicht angelegt");
    expect(german[2]!.lines).toEqual(["Variante 2 wird behalten …"]);
    expect(german[4]!.links.map((l) => l.label)).toEqual(["Bild herunterladen"]);
  });
});
