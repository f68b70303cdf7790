import { CodedError } from "../../common/coded-error.js";
import { command, type Msg, msg } from "../i18n/msg.js";
import { english } from "../i18n/translator.js";
import type { Json } from "./ports.js";

/**
 * Errors the bot shows to people. Every one carries a stable `code` (for logs, metrics and tests)
 * and `said`: what to tell the person, as a message of the catalogues (one plain sentence that
 * says what to do, with no secrets and no stack detail), put into words in its reader's language
 * where it is shown. `message` and `cause` are the log detail and never reach the chat.
 *
 * The core adds its own subclasses (bad input, permissions, ...) the same way:
 *
 *   class InvalidOptionError extends BotError {
 *     readonly code = "input.invalid_option";
 *     constructor(option: string) { super(msg("error.input.invalid", { option })); }
 *   }
 */

export interface BotErrorOptions {
  /** Log detail; defaults to the user message. */
  message?: string;
  cause?: unknown;
}

/**
 * What a person is told: a message of the catalogues, or plain English text from a refusal not
 * yet moved into them (shown as it is in every language, which the catalogue test counts).
 */
export type Said = Msg | string;

export abstract class BotError extends CodedError {
  /** What its person is told, in their language where it is shown. */
  readonly said: Said;
  /**
   * True when the same call may succeed later without anyone changing anything (network trouble,
   * timeouts, 429, 5xx): a poller keeps trying, a command tells the user to try again.
   */
  readonly retryable: boolean = false;

  constructor(said: Said, options: BotErrorOptions = {}) {
    super(
      options.message ?? inEnglish(said),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.said = said;
  }

  /** What its person is told, in English: what is stored with a job and read by the logs. */
  get userMessage(): string {
    return inEnglish(this.said);
  }
}

const inEnglish = (said: Said) => (typeof said === "string" ? said : english().say(said));

/** What to show for anything that was thrown: our sentence, or a generic one that leaks nothing. */
export function userMessageOf(error: unknown): string {
  return inEnglish(saidOf(error));
}

/** What a person is told of anything that was thrown, before it is put into their language. */
export function saidOf(error: unknown): Said {
  return error instanceof BotError ? error.said : msg("error.internal");
}

// ---------------------------------------------------------------------------------------------
// Errors of the media service client
// ---------------------------------------------------------------------------------------------

/** The service's free text, made fit to quote in one chat sentence. */
function quote(text: string): string {
  const oneLine = text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!]+$/, "");
  return oneLine.length > 200 ? `${oneLine.slice(0, 199)}…` : oneLine;
}

/** Every failure that comes from talking to the media service. */
export abstract class ServiceError extends BotError {
  /** The HTTP status the service answered with; 200 for the failure envelope; absent without an answer. */
  readonly status: number | undefined;
  /** The service's own words, when it gave any. */
  readonly serviceMessage: string | undefined;

  constructor(
    said: Said,
    init: { status?: number; serviceMessage?: string; context?: string; detail?: string; cause?: unknown },
  ) {
    // Log detail: "GET /api/usage: HTTP 401 Invalid API key", "POST /api/image/edit: connect ECONNREFUSED ..."
    const detail =
      init.detail ??
      [init.status === undefined ? undefined : `HTTP ${init.status}`, init.serviceMessage]
        .filter(Boolean)
        .join(" ");
    super(said, {
      message: [init.context, detail || inEnglish(said)].filter(Boolean).join(": "),
      cause: init.cause,
    });
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
  }
}

/** HTTP 200 `{result: "failure", error}`: the service refused the operation for a business reason. */
export class ServiceFailureError extends ServiceError {
  readonly code = "service.failure";
  /** The photo avatar design failure carries `details`; its content is not specified. */
  readonly details: unknown;

  constructor(serviceMessage: string, details?: unknown, context?: string) {
    super(msg("error.service.failure", { reason: quote(serviceMessage) }), {
      status: 200,
      serviceMessage,
      context,
    });
    this.details = details;
  }
}

/**
 * Not enough credits, a plan quota or a monthly limit reached. The service reports these either
 * as HTTP 400 or as the 200 failure envelope; both become this one class (instead of a flag on
 * BadRequestError and ServiceFailureError) because the bot reacts the same way to both: show the
 * usage figures. `status` says which form it was.
 */
export class QuotaExceededError extends ServiceError {
  readonly code = "service.quota_exceeded";
  readonly details: unknown;

  constructor(status: number, serviceMessage: string, details?: unknown, context?: string) {
    super(msg("error.service.quota", { reason: quote(serviceMessage), usage: command("usage") }), {
      status,
      serviceMessage,
      context,
    });
    this.details = details;
  }
}

const QUOTA_WORDS = /credit|quota|limit (?:reached|exceeded)|exceed(?:s|ed)? (?:the |your )?(?:\w+ )?limit/i;

/** The spec has no error codes, only free text: these words are how quota failures read. */
export function isQuotaMessage(text: string): boolean {
  return QUOTA_WORDS.test(text);
}

/** HTTP 400 (and other 4xx the spec does not name): the request itself was not acceptable. */
export class BadRequestError extends ServiceError {
  readonly code = "service.bad_request";
  constructor(status: number, serviceMessage?: string, context?: string) {
    super(
      serviceMessage
        ? msg("error.service.bad_request", { reason: quote(serviceMessage) })
        : msg("error.service.bad_request_silent"),
      { status, serviceMessage, context },
    );
  }
}

export class UnauthorizedError extends ServiceError {
  readonly code = "service.unauthorized";
  /** `answered` is false when the bot has no usable key and did not ask the service at all. */
  constructor(serviceMessage?: string, context?: string, answered = true) {
    super(msg("error.service.unauthorized", { setup: command("setup") }), {
      status: answered ? 401 : undefined,
      serviceMessage,
      context,
    });
  }
}

export class ForbiddenError extends ServiceError {
  readonly code = "service.forbidden";
  constructor(serviceMessage?: string, context?: string) {
    super(msg("error.service.forbidden"), { status: 403, serviceMessage, context });
  }
}

export class NotFoundError extends ServiceError {
  readonly code = "service.not_found";
  constructor(serviceMessage?: string, context?: string) {
    super(
      serviceMessage
        ? msg("error.service.not_found", { reason: quote(serviceMessage) })
        : msg("error.service.not_found_silent"),
      { status: 404, serviceMessage, context },
    );
  }
}

export class RateLimitedError extends ServiceError {
  readonly code = "service.rate_limited";
  override readonly retryable = true;
  /** From Retry-After, when the service sent it. */
  readonly retryAfterMs: number | undefined;

  constructor(retryAfterMs?: number, serviceMessage?: string, context?: string) {
    super(
      retryAfterMs === undefined
        ? msg("error.service.rate_limited")
        : msg("error.service.rate_limited_for", { seconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) }),
      {
        status: 429,
        serviceMessage,
        context,
      },
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx. */
export class ServiceUnavailableError extends ServiceError {
  readonly code = "service.unavailable";
  override readonly retryable = true;
  constructor(status: number, serviceMessage?: string, context?: string) {
    super(msg("error.service.unavailable"), {
      status,
      serviceMessage,
      context,
    });
  }
}

/** No answer at all: refused or reset connection, DNS, TLS. */
export class NetworkError extends ServiceError {
  readonly code = "service.network";
  override readonly retryable = true;
  constructor(cause: unknown, context?: string) {
    super(msg("error.service.network"), {
      context,
      detail: (cause as Error | undefined)?.message ?? String(cause),
      cause,
    });
  }
}

export class TimeoutError extends ServiceError {
  readonly code = "service.timeout";
  override readonly retryable = true;
  readonly timeoutMs: number;
  constructor(timeoutMs: number, context?: string, cause?: unknown) {
    super(msg("error.service.timeout"), {
      context,
      detail: `no progress for ${timeoutMs} ms`,
      cause,
    });
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A presigned file address (an upload or a result link) answered 401 or 403: the link was refused
 * or expired. No tenant key is involved, so the key's advice would be wrong; a fresh link is.
 */
export class LinkRefusedError extends ServiceError {
  readonly code = "service.link_refused";
  override readonly retryable = true;
  constructor(status: number, serviceMessage?: string, context?: string) {
    super(msg("error.service.link_refused"), { status, serviceMessage, context });
  }
}

/**
 * Where the result of each paid creation call shows up, for a person told that the call's answer
 * was lost: the list command of its kind. Images have no list in the bot: the service's own site
 * is where to look (no command).
 */
const CREATION_LISTS: Record<string, string | null> = {
  "/api/video/create": "video.list",
  "/api/video/cinematic/create": "video.list",
  "/api/image/generate": null,
  "/api/image/edit": null,
  "/api/image/inpaint": null,
  "/api/avatar/design/create": "avatars",
  "/api/avatar/from-selfie/create": "avatars",
  "/api/avatar/from-selfie/enhance": "avatars",
  "/api/mockup/generate": "mockup.list",
  "/api/mockup/video": "mockup.videos",
  "/api/mockup/asset/generate": "mockup.assets",
  "/api/mockup/asset/edit": "mockup.assets",
  "/api/thumbnail/generate": "thumbnail.list",
};

/**
 * Where a creation call's result is listed (a list command, or null: the service's site);
 * undefined for calls that create nothing paid.
 */
export function creationListOf(path: string): string | null | undefined {
  return CREATION_LISTS[path];
}

/**
 * A paid creation call left, and its answer was lost (a timeout, a dropped connection): the
 * service may have created the job and taken the credits. Running it again could pay twice, so
 * the person is told where to look instead, and the bot never repeats the call itself.
 */
export class OutcomeUnknownError extends ServiceError {
  readonly code = "service.outcome_unknown";
  /** The list command where the job will show up if it was created; null: the service's site. */
  readonly listedIn: string | null;

  constructor(listedIn: string | null, lost: ServiceError) {
    super(
      listedIn === null
        ? msg("error.service.outcome_unknown_site")
        : msg("error.service.outcome_unknown", { list: command(listedIn) }),
      {
        status: lost.status,
        context: undefined,
        detail: `answer lost after the request left: ${lost.message}`,
        cause: lost,
      },
    );
    this.listedIn = listedIn;
  }
}

/** Not JSON where JSON was due, or JSON without what the bot needs (a success without a jobId). */
export class InvalidResponseError extends ServiceError {
  readonly code = "service.invalid_response";
  constructor(detail: string, status: number | undefined, context?: string, cause?: unknown) {
    super(msg("error.service.invalid_response"), {
      status,
      context,
      detail: status === undefined ? detail : `HTTP ${status} ${detail}`,
      cause,
    });
  }
}

/** The caller's AbortSignal fired (a shutdown, a cancelled command): nothing to tell the service about. */
export class AbortedError extends ServiceError {
  readonly code = "service.aborted";
  constructor(context?: string, cause?: unknown) {
    super(msg("error.service.aborted"), { context, detail: "aborted", cause });
  }
}

/** What a failed answer of the media service said, as the client reads it off the answer (api/http.ts). */
export interface ServiceAnswer {
  status: number;
  /** The service's own words, when it gave any. */
  said: string | undefined;
  /** The body's `details`, which quota failures and the failure envelope may carry. */
  details?: unknown;
  /** From Retry-After, when the service sent it. */
  retryAfterMs?: number | undefined;
  /** The address was a presigned file link, not the API: a 401 or 403 refuses the link, not the key. */
  presigned?: boolean;
}

/**
 * The typed error of a failed answer, as openai-node's `APIError.generate` picks its class: a
 * 2xx here is the service's failure envelope (`{result: "failure"}`, a business refusal); other
 * statuses map one class each, quota wording first.
 */
export function serviceErrorFor(answer: ServiceAnswer, context: string): ServiceError {
  const { status, said, details } = answer;
  if (status >= 200 && status < 300) {
    const message = said ?? "no reason given";
    return isQuotaMessage(message)
      ? new QuotaExceededError(status, message, details, context)
      : new ServiceFailureError(message, details, context);
  }
  if (answer.presigned && (status === 401 || status === 403))
    return new LinkRefusedError(status, said, context);
  if (status === 401) return new UnauthorizedError(said, context);
  if (status === 403) return new ForbiddenError(said, context);
  if (status === 404) return new NotFoundError(said, context);
  if (status === 429) return new RateLimitedError(answer.retryAfterMs, said, context);
  if (status === 402 || (status >= 400 && status < 500 && said !== undefined && isQuotaMessage(said))) {
    return new QuotaExceededError(status, said ?? "payment required", details, context);
  }
  if (status >= 400 && status < 500) return new BadRequestError(status, said, context);
  if (status >= 500) return new ServiceUnavailableError(status, said, context);
  return new InvalidResponseError(`unexpected HTTP ${status}`, status, context);
}

/** A file handed to an upload could not be read to its declared size (a broken download, a wrong size). */
export class AttachmentReadError extends BotError {
  readonly code = "upload.source_failed";
  constructor(detail: string, cause?: unknown) {
    super(msg("error.upload.source_failed"), {
      message: detail,
      cause,
    });
  }
}

/**
 * An attachment's way to the service (initialize, PUT, finalize) failed, so the command created
 * nothing. The user message says which file, then what the service's failure asks for.
 */
export class UploadFailedError extends BotError {
  readonly code = "upload.failed";
  override readonly retryable: boolean;
  constructor(fileName: string, failure: ServiceError) {
    super(msg("error.upload.failed", { file: quote(fileName), why: failure.said }), {
      message: `upload of ${fileName}: ${failure.message}`,
      cause: failure,
    });
    this.retryable = failure.retryable;
  }
}

// ---------------------------------------------------------------------------------------------
// The bot's own store
// ---------------------------------------------------------------------------------------------

/**
 * The store does not answer (redis restarted or unreachable, sqlite locked or its disk full).
 * Shown only for what failed before any creation call: a job the service accepted waits for the
 * store instead (jobs/engine.ts), so "nothing was charged" holds.
 */
export class StoreAwayError extends BotError {
  readonly code = "bot.store_unavailable";
  override readonly retryable = true;
  constructor(options: BotErrorOptions = {}) {
    super(msg("error.store_unavailable"), options);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors of the chat platforms (thrown by adapters)
// ---------------------------------------------------------------------------------------------

/**
 * The conversation does not take the bot's messages, for good (channel deleted, bot removed or
 * denied access, a person who accepts no DM from the bot). Unlike an outage, waiting will not fix
 * it, so the same request is never sent again: a finished job's result goes to its person's DM
 * instead, and where that refuses too the job ends, not posted (`NotPostedError`). The user
 * message says what is wrong and who can fix it.
 */
export class UndeliverableError extends BotError {
  readonly code = "chat.undeliverable";
}

/**
 * Nothing of a finished job could reach its person: the conversation refused the bot, and so did
 * their DM (or the job was theirs alone). The job ends at once with `said` as its reason,
 * which the jobs list shows with the result's link, when it has one.
 */
export class NotPostedError extends UndeliverableError {
  constructor(
    reason: Said,
    /** What the job made, kept as its result (its `url` is the link the jobs list shows). */
    readonly result: Json,
    options: BotErrorOptions = {},
  ) {
    super(reason, options);
  }
}

/**
 * The platform refused, for good, a file the bot tried to upload: over what this server or
 * workspace accepts from the bot, uploads turned off by its admins, a file type they do not allow.
 * The message itself would be accepted: the core delivers the same result as its link instead,
 * once, and `said` is the line that says why (the adapter's words, naming the limit where
 * the platform gives it). Never retried: the same upload would be refused again.
 */
export class FileRefusedError extends BotError {
  readonly code = "chat.file_refused";
}

/**
 * The platform would not delete the bot's message (it is not the bot's to delete, the bot may no
 * longer see its channel, a private reply past the time its platform lets the bot reach it).
 * `said` is the adapter's words: why, and what the person can do instead.
 */
export class DeleteRefusedError extends BotError {
  readonly code = "chat.delete_refused";
}

/** The message to edit was deleted: what it was to show needs a new message. */
export class MessageGoneError extends BotError {
  readonly code = "chat.message_gone";
  constructor(options: BotErrorOptions = {}) {
    super(msg("error.chat.message_gone"), options);
  }
}

/**
 * The workflow step a job was to end had ended already, on the platform's side: its time ran out
 * or someone stopped the workflow. The outcome then goes to its person another way.
 */
export class StepEndedError extends BotError {
  readonly code = "chat.step_ended";
  constructor(options: BotErrorOptions = {}) {
    super(msg("error.chat.step_ended"), options);
  }
}
