import { setTimeout as sleep } from "node:timers/promises";
import type { WebClient } from "@slack/web-api";
import {
  BotError,
  FileRefusedError,
  MessageGoneError,
  StepEndedError,
  UndeliverableError,
} from "../core/base/errors.js";
import { msg } from "../core/i18n/msg.js";
import { classify, type Meaning } from "./answers.js";
import { slackErrorCode } from "./error-code.js";
import { REMOVED_FROM_WORKSPACE } from "./installations.js";
import { SLACK_LIMITS } from "./limits.js";
import { type Lane, Pacer, type Priority } from "./pacing.js";
import { UploadTransferError } from "./upload.js";
import type { Workspaces } from "./workspaces.js";

/**
 * Every Web API call of the adapter, paced and judged in one place: it waits for its lane's slot
 * (pacing.ts), and what Slack answers is read through the one table of answers (answers.ts):
 *
 * - 429, and transient answers: a bounded number of retries with backoff and jitter (a 429 holds
 *   the method's lane for Retry-After); past them, the error for the caller's own retry. A call
 *   that may have landed (internal_error, fatal_error, no answer) is repeated only where doing it
 *   twice is harmless: a post is not, so its key's look-back decides next time (ledger.ts).
 * - an expired token: renewed (token rotation), and the call made once more; a refused token: the
 *   workspace's next one, if it has one, once.
 * - a refusal: the core's error for it (UndeliverableError, FileRefusedError, MessageGoneError,
 *   StepEndedError), never retried.
 *
 * The WebClient itself neither retries nor waits (rejectRateLimitedCalls, retries 0: app.ts): its
 * own 429 handling paused every call of the workspace, and its retries ran for half an hour.
 */

export interface PacingPolicy {
  /** Slack's rate limit window (tests compress it, as the fake Slack's). */
  minuteMs: number;
  /** The share of a method's limit that passing states (progress, Home tabs) may use. */
  passingShare: number;
  /** Retries of a transient answer, after the first try. */
  retries: number;
  /** Retries after a 429, each after Slack's Retry-After. */
  rateLimitedRetries: number;
  /** Backoff of transient answers: doubles from base, up to max, ±25 % jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /**
   * How long a message waits for Slack to finish processing an uploaded image (files.info) before
   * it shows it; past that, the image is in the thread only, and the message links to it.
   */
  fileReadyMs: number;
  /** The first wait between two files.info reads; it doubles. */
  fileReadyPollMs: number;
}

export const DEFAULT_PACING: PacingPolicy = {
  minuteMs: 60_000,
  passingShare: 0.8,
  retries: 3,
  rateLimitedRetries: 4,
  backoffBaseMs: 1_000,
  backoffMaxMs: 8_000,
  fileReadyMs: 30_000,
  fileReadyPollMs: 250,
};

export interface CallOptions {
  /** Default "result": results and step completions go before passing states. */
  priority?: Priority;
  /** chat.postMessage is limited per channel. */
  channel?: string;
  /** Gives up waiting for the slot (a passing state superseded). */
  signal?: AbortSignal;
  /**
   * The call carries a token of its own (a workflow step's): Slack refusing it says nothing of
   * the workspace's token, which is then neither renewed nor replaced.
   */
  ownToken?: boolean;
}

/** Methods whose repetition changes nothing: safe to retry after an answer that may hide success. */
const REPEATABLE = new Set([
  "chat.update",
  "views.publish",
  "conversations.open",
  "conversations.join",
  "conversations.history",
  "conversations.replies",
  "files.info",
  "files.getUploadURLExternal",
]);

/** Answers after which Slack may have done (part of) what was asked: "it's possible some aspect of the operation succeeded". */
const MAYBE_DONE = new Set(["internal_error", "fatal_error"]);

const RATE_LIMITED = "slack_webapi_rate_limited_error";
const WINDOW_MARGIN = 1.05;

function retryAfterMs(error: unknown): number | undefined {
  const e = error as { code?: string; retryAfter?: unknown };
  return e?.code === RATE_LIMITED && typeof e.retryAfter === "number" ? e.retryAfter * 1000 : undefined;
}

/**
 * Whether a failed call certainly changed nothing on Slack's side: Slack answered and refused
 * (a 429, a refusal, a transient answer other than internal_error and fatal_error), or an
 * upload's bytes never reached it. No answer at all, or internal_error and fatal_error, may hide a
 * call that landed.
 */
export function leftNothing(error: unknown): boolean {
  if (error instanceof BotError) return !error.retryable;
  // The bytes never reached Slack: files.completeUploadExternal was not called.
  if (error instanceof UploadTransferError) return true;
  if (retryAfterMs(error) !== undefined) return true;
  const code = slackErrorCode(error);
  return code !== undefined && !MAYBE_DONE.has(code);
}

/** The core's error for a refusal of `method`; the error itself for what a later try may get through. */
function refusalOf(method: string, meaning: Meaning, code: string, error: unknown): unknown {
  const detail = { message: `Slack ${method}: ${code}`, cause: error };
  switch (meaning.answer) {
    case "file":
      return new FileRefusedError(meaning.said ?? msg("platform.slack.file_refused"), detail);
    case "gone":
      return new MessageGoneError(detail);
    case "ended":
      return new StepEndedError(detail);
    case "refused":
    case "dead":
      return new UndeliverableError(meaning.said ?? REMOVED_FROM_WORKSPACE, detail);
    case "expired":
      return new UndeliverableError(msg("platform.slack.access_expired"), detail);
    case "rejected":
      return new UndeliverableError(msg("platform.slack.rejected", { code }), detail);
    case "transient":
      return error;
  }
}

export class SlackCalls {
  private readonly pacer: Pacer;

  constructor(
    private readonly workspaces: Workspaces,
    readonly policy: PacingPolicy = DEFAULT_PACING,
  ) {
    this.pacer = new Pacer({ passingShare: policy.passingShare });
  }

  /**
   * The lane of a method in a workspace, at the method's tier (the install kind's, for history
   * reads), over a window a little longer than Slack's: Slack counts a call when it arrives, later
   * than it left here.
   */
  private laneOf(team: string, method: string, channel: string | undefined): Lane | undefined {
    const minute = this.policy.minuteMs * WINDOW_MARGIN;
    if (method === "chat.postMessage") {
      const { messages, perMs } = SLACK_LIMITS.postsPerChannel;
      return {
        key: `${team}:${method}:${channel ?? ""}`,
        limit: messages,
        windowMs: (perMs * minute) / 60_000,
      };
    }
    const history = method === "conversations.history" || method === "conversations.replies";
    const tier =
      history && this.workspaces.distributed
        ? SLACK_LIMITS.distributedHistory.tier
        : SLACK_LIMITS.methodTiers[method];
    if (tier === undefined) return undefined;
    return { key: `${team}:${method}`, limit: SLACK_LIMITS.tierPerMinute[tier] ?? 1, windowMs: minute };
  }

  /** Whether `method` waits out a 429 in the workspace now. */
  held(team: string | undefined, method: string): boolean {
    const lane = this.laneOf(team ?? "", method, undefined);
    return lane !== undefined && this.pacer.held(lane.key);
  }

  /**
   * Calls `method` of the workspace `team` through `call`, paced, retried and judged as above;
   * resolves with Slack's answer, or rejects with the core's error for a refusal.
   */
  async call<T>(
    team: string | undefined,
    method: string,
    call: (client: WebClient) => Promise<T>,
    options: CallOptions = {},
  ): Promise<T> {
    const { priority = "result", signal } = options;
    const lane = this.laneOf(team ?? "", method, options.channel);
    let client = await this.workspaces.client(team);
    let tries = 0;
    let limited = 0;
    let renewed = false;
    for (;;) {
      if (lane) await this.pacer.slot(lane, priority, signal);
      try {
        return await call(client);
      } catch (error) {
        const wait = retryAfterMs(error);
        if (wait !== undefined) {
          if (lane) this.pacer.hold(lane.key, wait);
          if (limited++ < this.policy.rateLimitedRetries) continue;
          throw error;
        }
        const code = slackErrorCode(error);
        const meaning = classify(method, code ?? "");
        if (code === undefined || meaning.answer === "transient") {
          const repeat = REPEATABLE.has(method) || leftNothing(error);
          if (repeat && tries++ < this.policy.retries) {
            await sleep(this.backoff(tries));
            continue;
          }
          throw error;
        }
        const { answer } = meaning;
        if ((answer === "expired" || answer === "dead") && team && !renewed && !options.ownToken) {
          renewed = true;
          const next = await this.workspaces.renew(team, client.token, answer);
          if (next) {
            client = next;
            continue;
          }
        }
        throw refusalOf(method, meaning, code, error);
      }
    }
  }

  private backoff(tries: number): number {
    const { backoffBaseMs, backoffMaxMs } = this.policy;
    const base = Math.min(backoffMaxMs, backoffBaseMs * 2 ** (tries - 1));
    return base * (0.75 + Math.random() * 0.5);
  }
}
