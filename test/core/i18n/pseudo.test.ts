import { describe, expect, it } from "vitest";
import type { Card } from "../../../src/core/base/cards.js";
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
import type { Attachment } from "../../../src/core/base/ports.js";
import { JobLimitError, noApiKey } from "../../../src/core/base/refusals.js";
import { commandByName } from "../../../src/core/commands/catalogue.js";
import { checkFiles, parseOptions } from "../../../src/core/commands/validate.js";
import { ENGLISH, knownLocales, type MessageKey } from "../../../src/core/i18n/catalogues.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import { errorCard } from "../../../src/core/render/errors.js";
import {
  failedJobCard,
  type JobView,
  progressCard,
  queuedCard,
  readyNotice,
  resultCard,
  undeliverableCard,
  unpostedCard,
  untrackedCard,
  variantsCard,
} from "../../../src/core/render/job.js";
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

/** Every card of a job, from the queue to its end, in `locale`. */
function jobCards(locale: string, reason: string): Card[] {
  const view: JobView = { id: "job-1", title: "fox", locale };
  const status = { state: "working", progress: 40, message: undefined } as const;
  return [
    queuedCard(view),
    progressCard(view, { ...status, state: "working" } as Parameters<typeof progressCard>[1], 95_000),
    progressCard(view, { ...status, state: "retrying" } as Parameters<typeof progressCard>[1]),
    variantsCard(view, ["https://x/1.png", "https://x/2.png"]),
    resultCard(view, {
      kind: "video",
      name: "v.mp4",
      url: "https://x/v.mp4",
      oversize: { bytes: 9e8, limit: 2.5e7 },
    }),
    resultCard(view, { kind: "image", name: "i.png", oversize: { bytes: 9e8, limit: 2.5e7 } }),
    failedJobCard(view, { serviceReason: reason }),
    failedJobCard(view, {}),
    undeliverableCard(view, reason),
    untrackedCard(view),
    unpostedCard(view),
  ];
}

const everything = (card: Card) =>
  [
    card.title,
    ...card.lines.map(textOf),
    ...card.fields.flatMap((f) => [f.name, f.value]),
    ...card.links.map((l) => l.label),
    ...card.media.map((m) => m.name),
    ...card.actions.map((a) => a.label),
    card.progress?.label ?? "",
    card.footer ?? "",
  ].join("\n");

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

  it("shows every card of a job with no English of its own: only its title and the service's words", () => {
    const plain = jobCards(PSEUDO, "blocked words").flatMap((card) => {
      const found = bypasses(everything(card), [
        "blocked words",
        "usage",
        "jobs",
        "video list",
        "mockup assets",
        "thumbnail list",
      ]);
      return found.length > 0 ? [found.join(" ")] : [];
    });
    expect(plain).toEqual([]);
    expect(bypasses(readyNotice({ id: "job-1", title: "fox", locale: PSEUDO }, false).text)).toEqual([]);
  });

  it("says what is wrong with a command's options with no English but the options' names and values", () => {
    const t = translatorFor(PSEUDO);
    const image = commandByName("image.generate")!;
    let refused: unknown;
    try {
      parseOptions(image, { prompt: "", seed: "twelve", aspect_ratio: "5:7", colour: "red" });
    } catch (error) {
      refused = error;
    }
    const card = errorCard(refused, {}, t);
    expect(card.title).toBe(t.text("error_title.input"));
    expect(
      bypasses(card.lines.map(textOf).join("\n"), [
        "image generate",
        "colour",
        ...Object.keys(image.options.shape),
      ]),
    ).toEqual([]);
    try {
      parseOptions(image, { prompt: "", seed: "twelve" });
    } catch (error) {
      refused = error;
    }
    const lines = errorCard(refused, {}, t).lines.map(textOf).join("\n");
    expect(lines).toContain("twelve");
    expect(bypasses(lines, ["prompt", "seed", "twelve"])).toEqual([]);
  });

  it("refuses a wrong, missing or oversized file with no English but its name, option and types", () => {
    const t = translatorFor(PSEUDO);
    const edit = commandByName("image.edit")!;
    const file = (name: string, contentType: string, size: number) => ({
      name,
      contentType,
      size,
      open: () => Promise.reject(new Error("not read")),
    });
    const attempts: Record<string, Attachment[]>[] = [
      {},
      { image: [file("notes.txt", "text/plain", 5)] },
      { image: [file("huge.png", "image/png", 2 ** 40)] },
      { image: [file("empty.png", "image/png", 0)] },
      { mask: [file("mask.png", "image/png", 5)] },
    ];
    const codes: string[] = [];
    const plain = attempts.flatMap((attachments) => {
      let refused: unknown;
      try {
        checkFiles(edit, attachments);
      } catch (error) {
        refused = error;
        codes.push((error as BotError).code);
      }
      const lines = errorCard(refused, {}, t).lines.map(textOf).join("\n");
      return bypasses(lines, [
        "image edit",
        "image",
        "mask",
        "notes.txt",
        "huge.png",
        "empty.png",
        "text/plain",
        "JPEG",
        "WEBP",
      ]);
    });
    expect(codes).toEqual([
      "input.missing_file",
      "input.file_type",
      "input.file_size",
      "input.file_empty",
      "input.unexpected_file",
    ]);
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

  it("keeps the labels of the buttons under a result within Discord's and Slack's", () => {
    const label = Math.min(DISCORD_LIMITS.buttonLabel, SLACK_LIMITS.buttonText);
    const over = knownLocales().flatMap((locale) => {
      const t = translatorFor(locale);
      return Object.keys(ENGLISH)
        .filter((key) => key.startsWith("action."))
        .map((key) => t.text(key as MessageKey, { n: 9 }))
        .filter((text) => text.length > label);
    });
    expect(over).toEqual([]);
  });

  it("keeps the buttons, links and progress labels of a job's cards within Discord's and Slack's", () => {
    const label = Math.min(DISCORD_LIMITS.buttonLabel, SLACK_LIMITS.buttonText);
    const over = knownLocales().flatMap((locale) =>
      jobCards(locale, LONGEST_REASON).flatMap((card) => [
        ...[...card.actions.map((a) => a.label), ...card.links.map((l) => l.label)]
          .filter((text) => text.length > label)
          .map((text) => `${locale} button ${text}`),
        ...(card.lines.map(textOf).join("\n").length > SLACK_LIMITS.sectionText ? [`${locale} section`] : []),
        ...((card.progress?.label.length ?? 0) > label ? [`${locale} progress`] : []),
      ]),
    );
    expect(over).toEqual([]);
  });
});
