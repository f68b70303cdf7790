import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionByName } from "../../../src/core/actions/catalogue.js";
import { type AnyJobAction, checkedValue } from "../../../src/core/actions/define.js";
import type { Card } from "../../../src/core/base/cards.js";
import type { BotError } from "../../../src/core/base/errors.js";
import { ActionError } from "../../../src/core/commands/errors.js";
import type { Core } from "../../../src/core/flows/core.js";
import { deletedResult, removeResult } from "../../../src/core/flows/delete.js";
import { knownLocales } from "../../../src/core/i18n/catalogues.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import {
  confirmDeleteCard,
  DELETE_RESULT,
  deleteButtons,
  deletedCard,
  deletedNotice,
} from "../../../src/core/render/delete.js";
import { errorCard } from "../../../src/core/render/errors.js";
import { DISCORD_LIMITS } from "../../../src/discord/limits.js";
import { SLACK_LIMITS } from "../../../src/slack/limits.js";
import { openStores, type Stores } from "../../../src/store/index.js";
import { actor, CHANNEL, SECRETS_KEY } from "../bot/harness.js";
import { addPseudoLocale, bypasses, PSEUDO } from "../i18n/pseudo.js";

/**
 * Delete's question, its answers and its refusals in the reader's language: English as it was,
 * no English of their own in the pseudo-locale, and buttons within both platforms' limits.
 */

addPseudoLocale();

const def = actionByName(DELETE_RESULT) as AnyJobAction;
let dir: string;
let stores: Stores;
/** A finished job whose result was posted without a message the bot kept. */
let messageless: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "delete-render-"));
  stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`, SECRETS_KEY, pino({ level: "silent" }));
  const job = await stores.jobs.create({
    kind: "image",
    command: "image.generate",
    serviceJobId: "svc-1",
    requester: { platform: "discord", tenantId: "guild-1", userId: actor().userId },
    conversation: CHANNEL,
    message: null,
    inputs: { title: "Image: fox" },
  });
  messageless = job.id;
});

afterAll(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

const view = (locale: string, title = "fox") => ({ id: "job-1", title, locale });

/** Every card of Delete, the question and the answers in `locale`, with `title`. */
const cards = (locale: string, title = "fox"): Card[] => [
  confirmDeleteCard(view(locale, title), locale),
  deletedCard(view(locale, title)),
  deletedNotice(view(locale, title), "removed", locale),
  deletedNotice(view(locale, title), "emptied", locale),
];

const thrown = async (run: () => unknown): Promise<BotError> => {
  try {
    await run();
  } catch (error) {
    return error as BotError;
  }
  throw new Error("nothing was refused");
};

/** Every refusal of Delete: deleted already, a double click, an old value, a job gone, no message. */
async function refusals(): Promise<BotError[]> {
  const event = { action: DELETE_RESULT, jobId: "gone", actor: actor(), conversation: CHANNEL };
  const core = { jobs: stores.jobs } as unknown as Core;
  const job = (id: string) => ({ id, inputs: { title: "fox" }, conversation: CHANNEL }) as never;
  return [
    deletedResult(),
    new ActionError("action.repeated", def.claim!.refusal),
    await thrown(() => checkedValue(def, { value: "nope" })),
    await thrown(() => removeResult(core, {} as never, job("gone"), event, true)),
    await thrown(() => removeResult(core, {} as never, job(messageless), event, true)),
  ];
}

const shown = (card: Card) =>
  [card.title, ...card.lines.map(String), ...card.actions.map((a) => a.label), card.footer].join("\n");

describe("Delete in the reader's language", () => {
  it("keeps English as it was", async () => {
    const [question, emptied, removed, kept] = cards("en");
    expect(question!.title).toBe("Delete fox?");
    expect(question!.lines).toEqual([
      "Its message is removed for everyone who can see it, and cannot be brought back. The job stays in your jobs list, marked deleted.",
    ]);
    expect(question!.actions.map((a) => [a.label, a.value])).toEqual([["Delete it", "sure"]]);
    expect(question!.footer).toBe("Job job-1");
    expect(emptied!.lines).toEqual(["This result was deleted."]);
    expect(removed!.title).toBe("Deleted");
    expect(removed!.lines).toEqual([
      "fox: its message is deleted.",
      "The job stays in your jobs list, marked deleted.",
    ]);
    expect(kept!.lines[0]).toBe("fox: the platform keeps its message, so the result was taken out of it.");
    expect(deleteButtons([{ id: "j", title: "fox" }]).map((b) => b.label)).toEqual(["Delete: fox"]);
    expect((await refusals()).map((error) => error.userMessage)).toEqual([
      "This result was deleted: its buttons no longer act. The job stays in the jobs list, marked deleted.",
      "This result is being deleted: its message goes in a moment.",
      "That is not a Delete of this result.",
      "The bot no longer knows this job.",
      "This job's result was posted without a message the bot kept, so the bot cannot delete it.",
    ]);
  });

  it("shows no English of its own in the pseudo-locale but the job's title, and asks a German admin in German", async () => {
    const t = translatorFor(PSEUDO);
    const plain = [
      ...cards(PSEUDO).map(shown),
      ...deleteButtons([{ id: "j", title: "fox" }], t).map((b) => b.label),
      ...(await refusals()).map((error) => errorCard(error, {}, t).lines.map(String).join("\n")),
    ].flatMap((text) => bypasses(text, ["fox", "job-1"]));
    expect(plain).toEqual([]);
    // The question speaks its clicker's language; the message everyone sees, its requester's.
    expect(confirmDeleteCard(view("en"), "de").title).toBe("fox löschen?");
    expect(confirmDeleteCard(view("en"), "de").locale).toBe("de");
    expect(deletedCard(view("ja")).lines).toEqual(["この結果は削除されました。"]);
  });

  it("keeps its buttons within Discord's and Slack's limits in every language", () => {
    const label = Math.min(DISCORD_LIMITS.buttonLabel, SLACK_LIMITS.buttonText);
    const title = Math.min(DISCORD_LIMITS.embedTitle, SLACK_LIMITS.headerText);
    const longest = `Image: ${"w".repeat(60)}…`;
    const over = [...knownLocales(), PSEUDO].flatMap((locale) => {
      const shownCards = cards(locale, longest);
      const labels = [
        ...shownCards.flatMap((card) => card.actions.map((a) => a.label)),
        ...deleteButtons([{ id: "j", title: longest }], translatorFor(locale)).map((b) => b.label),
      ];
      return [
        ...labels.filter((text) => text.length > label),
        ...shownCards.map((card) => card.title).filter((text) => text.length > title),
      ].map((text) => `${locale}: ${text}`);
    });
    expect(over).toEqual([]);
  });
});
