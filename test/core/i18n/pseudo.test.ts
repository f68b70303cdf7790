import { describe, expect, it } from "vitest";
import {
  AbortedError,
  AttachmentReadError,
  BadRequestError,
  type BotError,
  ForbiddenError,
  InvalidResponseError,
  LinkRefusedError,
  MessageGoneError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  QuotaExceededError,
  RateLimitedError,
  ServiceFailureError,
  ServiceUnavailableError,
  StepEndedError,
  StoreAwayError,
  TimeoutError,
  UnauthorizedError,
  UploadFailedError,
} from "../../../src/core/base/errors.js";
import { JobLimitError, noApiKey } from "../../../src/core/base/refusals.js";
import { knownLocales } from "../../../src/core/i18n/catalogues.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import { errorCard } from "../../../src/core/render/errors.js";
import { DISCORD_LIMITS } from "../../../src/discord/limits.js";
import { SLACK_LIMITS } from "../../../src/slack/limits.js";
import { addPseudoLocale, bypasses, PSEUDO } from "./pseudo.js";

addPseudoLocale();

/** The longest reason the bot quotes from the service: `quote` keeps 200 characters. */
const LONGEST_REASON = `${"w".repeat(199)}…`;

/** Every error of the service client and every refusal that is a message of the catalogues. */
function catalogued(reason: string): BotError[] {
  const lost = new NetworkError(new Error("ECONNRESET"), "POST /api/image/upload");
  return [
    new ServiceFailureError(reason),
    new QuotaExceededError(402, reason),
    new BadRequestError(400, reason),
    new BadRequestError(400),
    new UnauthorizedError(),
    new ForbiddenError(),
    new NotFoundError(reason),
    new NotFoundError(),
    new RateLimitedError(),
    new RateLimitedError(61_000),
    new ServiceUnavailableError(503),
    lost,
    new TimeoutError(30_000),
    new LinkRefusedError(403),
    new OutcomeUnknownError("video.list", lost),
    new OutcomeUnknownError(null, lost),
    new InvalidResponseError("not JSON", 200),
    new AbortedError(),
    new AttachmentReadError("short read"),
    new UploadFailedError(reason, lost),
    new StoreAwayError(),
    new MessageGoneError(),
    new StepEndedError(),
    new JobLimitError(3),
    noApiKey(true),
    noApiKey(false),
  ];
}

const textOf = (line: unknown) => (typeof line === "string" ? line : JSON.stringify(line));

describe("the pseudo-locale", () => {
  it("shows every catalogued error with no English of its own: only the service's words stay as they came", () => {
    const t = translatorFor(PSEUDO);
    const reason = "blocked words";
    const plain = catalogued(reason).flatMap((error) => {
      const card = errorCard(error, { reference: "ab12cd34" }, t);
      const shown = [card.title, ...card.lines.map(textOf), card.footer ?? ""].join("\n");
      // Command names are typed as they are, in every language.
      const found = bypasses(shown, [
        reason,
        "ab12cd34",
        "setup",
        "usage",
        "jobs",
        "video list",
        "/setup api_key:True",
      ]);
      return found.length > 0 ? [`${error.code}: ${found.join(" ")}`] : [];
    });
    expect(plain).toEqual([]);
  });

  it("finds a sentence that bypasses the catalogue", () => {
    expect(bypasses("Ŝéŕṽíçé Something went wrong")).toEqual(["Something", "went", "wrong"]);
  });
});

describe("every language within the platforms' limits", () => {
  it("keeps each error's title and sentence, with the longest reason, within Discord's and Slack's limits", () => {
    const over: string[] = [];
    for (const locale of knownLocales()) {
      const t = translatorFor(locale);
      for (const error of catalogued(LONGEST_REASON)) {
        const card = errorCard(error, {}, t);
        // Slack shows the title as a header after the tone's emoji.
        if (`⚠️ ${card.title}`.length > SLACK_LIMITS.headerText) over.push(`${locale} ${error.code} header`);
        if (card.title.length > DISCORD_LIMITS.embedTitle) over.push(`${locale} ${error.code} title`);
        const line = card.lines.map(textOf).join("\n");
        if (line.length > SLACK_LIMITS.sectionText) over.push(`${locale} ${error.code} section`);
        if (line.length > DISCORD_LIMITS.embedDescription) over.push(`${locale} ${error.code} description`);
      }
    }
    expect(knownLocales()).toContain(PSEUDO);
    expect(over).toEqual([]);
  });
});
