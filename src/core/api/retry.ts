import { type Dispatcher, RetryAgent, type RetryHandler } from "undici";
import type { Logger } from "../base/log.js";

export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** Backoff before the first retry; doubles with every further one. */
  minDelayMs: number;
  /** Longest wait between two attempts; a Retry-After asking for more ends the retries instead. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, minDelayMs: 300, maxDelayMs: 8_000 };

/** Only reads are repeated: creation and confirm calls cost credits and are not idempotent. */
const RETRIED_METHODS: Dispatcher.HttpMethod[] = ["GET", "HEAD"];
const RETRIED_STATUSES = [429, 500, 502, 503, 504];
const RETRIED_ERROR_CODES = [
  "ECONNRESET",
  "ECONNREFUSED",
  "ENOTFOUND",
  "ENETDOWN",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EHOSTUNREACH",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
];

/** Retry-After in milliseconds, from seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": never less than half the step, so retries still spread out. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * undici's RetryAgent does the re-dispatching (and resumes a partly read download with a Range
 * request); only its decision function is ours, because the default one has no jitter, caps a
 * long Retry-After instead of giving up (retrying before the service allows it), and sleeps
 * through an aborted signal.
 */
export function retryingDispatcher(base: Dispatcher, policy: RetryPolicy, log: Logger): Dispatcher {
  const decide: RetryHandler.RetryCallback = (err, { state, opts }, done) => {
    const { statusCode, code, headers } = err as Error & {
      statusCode?: number;
      code?: string;
      headers?: Record<string, string | string[] | undefined>;
    };
    const retriable =
      RETRIED_METHODS.includes(opts.method) &&
      (statusCode === undefined
        ? code !== undefined && RETRIED_ERROR_CODES.includes(code)
        : RETRIED_STATUSES.includes(statusCode));
    if (!retriable || state.counter > policy.maxRetries) return done(err);

    const asked = retryAfterMs(headers?.["retry-after"]);
    if (asked !== undefined && asked > policy.maxDelayMs) return done(err);
    const delay = asked ?? backoffMs(state.counter, policy);
    log.debug(
      {
        method: opts.method,
        path: opts.path?.split("?")[0],
        ...(statusCode === undefined ? { code } : { status: statusCode }),
        attempt: state.counter,
        delay,
      },
      "media api: retrying",
    );

    // undici hands the request's options through, signal included, though its types omit it.
    const signal = (opts as { signal?: AbortSignal }).signal;
    if (signal?.aborted) return done(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      done(signal?.reason ?? err);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      done(null);
    }, delay);
    signal?.addEventListener("abort", onAbort, { once: true });
  };

  // Methods, statuses, error codes and the bound are all decided in `decide`; undici reads its own
  // options of those names only in the default decision function this one replaces.
  return new RetryAgent(base, {
    throwOnError: false, // the last answer reaches the caller as it is, so it maps to the same typed error
    retry: decide,
  });
}
