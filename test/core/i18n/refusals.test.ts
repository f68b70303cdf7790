import { describe, expect, it } from "vitest";
import type { Card } from "../../../src/core/base/cards.js";
import { type BotError, QuotaExceededError } from "../../../src/core/base/errors.js";
import { QueueFullError } from "../../../src/core/base/refusals.js";
import { alertFractions } from "../../../src/core/commands/setup.js";
import { jobTitle } from "../../../src/core/commands/titles.js";
import { checkFollowUp, privacyOf } from "../../../src/core/flows/privacy.js";
import { knownLocales } from "../../../src/core/i18n/catalogues.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import { RateLimitError } from "../../../src/core/intake/rates.js";
import { addPreset, findPreset } from "../../../src/core/preferences/presets.js";
import { errorCard } from "../../../src/core/render/errors.js";
import {
  cancelButtons,
  cancelledCard,
  interruptedCard,
  notStartedCard,
  waitingCard,
  waitingLine,
} from "../../../src/core/render/queue.js";
import { BudgetUncheckedError } from "../../../src/core/spend/spending.js";
import { DISCORD_LIMITS } from "../../../src/discord/limits.js";
import { SLACK_LIMITS } from "../../../src/slack/limits.js";
import { addPseudoLocale, bypasses, PSEUDO } from "./pseudo.js";

addPseudoLocale();

const thrown = (run: () => unknown): BotError => {
  try {
    run();
  } catch (error) {
    return error as BotError;
  }
  throw new Error("nothing was refused");
};

/** Refusals of access, limits, budgets and commands' own checks, as the core makes them. */
const refusals = (): BotError[] => [
  new RateLimitError(30, "you"),
  new RateLimitError(30, "tenant"),
  new QueueFullError(3, 2),
  new BudgetUncheckedError("slack"),
  new BudgetUncheckedError("discord"),
  thrown(() => alertFractions("many")),
  thrown(() => addPreset([], { name: "Brand", values: {}, from: null }, "yours")),
  thrown(() => findPreset("Nope", [], [], "workspace")),
  thrown(() =>
    privacyOf({ platform: "discord" }, { delivery: "private" }, "private", { privateResults: "forbidden" }),
  ),
  thrown(() =>
    checkFollowUp({ platform: "slack" }, { conversation: { channelId: "C1", privateFrom: "C2" } } as never, {
      privateResults: "forbidden",
    }),
  ),
];

const textOf = (line: unknown) => (typeof line === "string" ? line : JSON.stringify(line));

/** The words typed as they are in every language: option names, keywords, commands. */
const TYPED = ["alert_at", "delivery private", "jobs", "preset list", "Nope"];

describe("refusals in the reader's language", () => {
  it("says every refusal with no English of its own in the pseudo-locale", () => {
    const t = translatorFor(PSEUDO);
    const plain = refusals().flatMap((error) => {
      const found = bypasses(errorCard(error, {}, t).lines.map(textOf).join("\n"), TYPED);
      return found.length > 0 ? [`${error.code}: ${found.join(" ")}`] : [];
    });
    expect(plain).toEqual([]);
  });

  it("keeps English as it was, and tells a German reader in German", () => {
    expect(new RateLimitError(30, "you").userMessage).toBe(
      "Slow down: you sent a lot of commands just now. Try again in 30 s.",
    );
    expect(new QueueFullError(3, 2).userMessage).toBe(
      "You already have 3 jobs running and 2 waiting, the most one person may queue. Cancel one (see the jobs command) or wait for one to start, then try again.",
    );
    const german = translatorFor("de");
    expect(errorCard(new RateLimitError(30, "you"), {}, german).lines).toEqual([
      "Langsamer, bitte: Du hast gerade sehr viele Befehle gesendet. Versuch es in 30 s noch einmal.",
    ]);
    expect(german.say(jobTitle("image", "ein Fuchs im Schnee"))).toBe("Bild: ein Fuchs im Schnee");
    expect(translatorFor("ja").say(jobTitle("photo_avatar", "Yuki"))).toBe("フォトアバター: Yuki");
    // The account's figures under an out-of-credits card, in the reader's language.
    const usage = {
      credits_used: 1000,
      credits_limit: 1000,
      credits_remaining: 0,
      usage: { ai_images: { used: 3 } },
    };
    const out = new QuotaExceededError(402, "insufficient credits");
    expect(errorCard(out, { usage }, german).fields.map((f) => `${f.name}: ${f.value}`)).toEqual([
      "Verbrauchte Credits: ▰▰▰▰▰▰▰▰▰▰ 100% (1000 von 1000)",
      "Verbleibende Credits: 0",
      "Bilder: 3 verbraucht (ohne Limit)",
    ]);
    expect(errorCard(out, { usage }).fields.map((f) => f.name)).toEqual([
      "Credits used",
      "Credits left",
      "Images",
    ]);
  });
});

/** The longest reason a refused start quotes. */
const REASON = "x".repeat(200);

/** Every card of a job waiting its turn, in `locale`, with the longest title a job has. */
function queueCards(locale: string, title: string): Card[] {
  const view = { id: "job-1", title, locale };
  return [
    waitingCard(view, 0),
    waitingCard(view, 12),
    cancelledCard(view),
    notStartedCard(view, REASON),
    interruptedCard(view),
  ];
}

describe("a queued job's cards", () => {
  it("show no English of their own in the pseudo-locale but the job's title", () => {
    const plain = queueCards(PSEUDO, "fox").flatMap((card) =>
      bypasses(
        [
          ...card.lines.map(textOf),
          ...card.actions.map((a) => a.label),
          card.progress?.label,
          card.footer,
        ].join("\n"),
        ["jobs", "fox", REASON],
      ),
    );
    expect(plain).toEqual([]);
    const t = translatorFor(PSEUDO);
    expect(bypasses(waitingLine({ title: "fox", ahead: 2 }, t), ["fox"])).toEqual([]);
    expect(bypasses(cancelButtons([{ id: "j", title: "fox" }], t)[0]!.label, ["fox"])).toEqual([]);
  });

  it("keep their buttons and progress labels within Discord's and Slack's limits in every language", () => {
    const label = Math.min(DISCORD_LIMITS.buttonLabel, SLACK_LIMITS.buttonText);
    const longest = `Image: ${"w".repeat(60)}…`;
    const over = knownLocales().flatMap((locale) => {
      const t = translatorFor(locale);
      const labels = [
        ...queueCards(locale, longest).flatMap((card) => [
          ...card.actions.map((a) => a.label),
          card.progress?.label ?? "",
        ]),
        ...cancelButtons([{ id: "j", title: longest }], t).map((b) => b.label),
      ];
      return labels.filter((text) => text.length > label).map((text) => `${locale}: ${text}`);
    });
    expect(over).toEqual([]);
  });
});
