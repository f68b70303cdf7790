import { Readable } from "node:stream";
import { Agent, type Dispatcher, request } from "undici";
import type { z } from "zod";
import { boundedText } from "../base/bounded.js";
import {
  AbortedError,
  BotError,
  creationListOf,
  InvalidResponseError,
  NetworkError,
  OutcomeUnknownError,
  type ServiceError,
  serviceErrorFor,
  TimeoutError,
  UnauthorizedError,
} from "../base/errors.js";
import type { Logger } from "../base/log.js";
import { serviceErrorsTotal, serviceRoute, serviceSeconds } from "../base/metrics.js";
import { abandon } from "../base/streams.js";
import { msg } from "../i18n/msg.js";
import { checkFetchTarget, guardedLookup, RefusedFetchError } from "./fetch-policy.js";
import type { StreamBody } from "./multipart.js";
import { type RetryPolicy, retryAfterMs, retryingDispatcher } from "./retry.js";

export interface CallOptions {
  /** Cancels the call, including retries and, for downloads, the body. */
  signal?: AbortSignal;
  /** This call's timeout instead of the client's. */
  timeoutMs?: number;
}

export interface Call {
  method: "GET" | "POST" | "PUT";
  /** "/api/..." below the base URL, or an absolute URL (the presigned upload address, a downloadUrl). */
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  body?: StreamBody;
  /** The tenant's key. Sent only below {base}/api/: a presigned upload address never sees it. */
  apiKey: string | undefined;
  /**
   * An address a person gave (a workflow step's Image URL), not one the service named: never sent
   * the key, and the service's host is trusted only at the service's own origin (its port too),
   * since whatever else runs on that host is not the service.
   */
  given?: true;
}

export interface Download {
  body: Readable;
  size?: number;
  contentType: string;
}

export interface TransportOptions {
  baseUrl: string;
  timeoutMs: number;
  retries: RetryPolicy;
  logger: Logger;
  /** Where connections come from (a shared Agent, a MockAgent); the client makes its own otherwise. */
  dispatcher?: Dispatcher;
}

export interface Transport {
  readonly baseUrl: string;
  /** A JSON answer, checked against its schema. */
  json<T>(call: Call, schema: z.ZodType<T>, opts?: CallOptions): Promise<T>;
  /** An answer whose body does not matter (the presigned PUT): only failures are read. */
  exchange(call: Call, opts?: CallOptions): Promise<void>;
  /** A file, streamed. */
  download(call: Call, opts?: CallOptions): Promise<Download>;
  close(): Promise<void>;
}

/** The service paths all begin with /api/, so a base given with /api is the same service. */
export function mediaOrigin(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/api$/, "");
}

/**
 * The most of one JSON answer (or error body) the bot reads: a list page is a few hundred kB at
 * most, and a service that sends more is not sending what the spec says.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** undici's own timeouts (connect, headers, an idle body) are timeouts to the user as well. */
const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/** Failures before any byte of a request left: the service cannot have acted on it. */
const NEVER_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * A paid creation call whose answer was lost after it left may have been carried out: that is
 * what the person must hear, not "try again". A refusal the service did answer stays as it is.
 */
function lostAnswer(call: Call, error: BotError): BotError {
  const listedIn = creationListOf(call.path);
  if (call.method !== "POST" || listedIn === undefined) return error;
  if (!(error instanceof TimeoutError || error instanceof NetworkError)) return error;
  const code = (error.cause as { code?: string } | undefined)?.code;
  return code !== undefined && NEVER_SENT_CODES.has(code) ? error : new OutcomeUnknownError(listedIn, error);
}

/**
 * One call's clock and off switch: the caller's signal and the timeout both abort the request.
 * The clock restarts on every uploaded chunk, so a 50 MB upload on a slow link is judged on
 * inactivity rather than on its total length.
 */
class Deadline {
  readonly signal: AbortSignal;
  timedOut = false;
  readonly #controller = new AbortController();
  readonly #outer: AbortSignal | undefined;
  readonly #ms: number;
  #timer: NodeJS.Timeout | undefined;
  readonly #onOuterAbort = () => this.#controller.abort(this.#outer?.reason);

  constructor(ms: number, outer: AbortSignal | undefined) {
    this.signal = this.#controller.signal;
    this.#ms = ms;
    this.#outer = outer;
    if (outer?.aborted) this.#controller.abort(outer.reason);
    else outer?.addEventListener("abort", this.#onOuterAbort, { once: true });
    this.touch();
  }

  touch(): void {
    clearTimeout(this.#timer);
    if (this.signal.aborted) return;
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#controller.abort(new Error(`timed out after ${this.#ms} ms`));
    }, this.#ms);
  }

  stopClock(): void {
    clearTimeout(this.#timer);
  }

  dispose(): void {
    this.stopClock();
    this.#outer?.removeEventListener("abort", this.#onOuterAbort);
  }

  /** What a low-level failure means for the caller, now that we know who pulled the plug. */
  errorFor(error: unknown, context: string): BotError {
    if (error instanceof BotError) return error;
    if (this.timedOut) return new TimeoutError(this.#ms, context, error);
    if (this.#outer?.aborted) return new AbortedError(context, error);
    const code = (error as { code?: string } | null)?.code;
    if (code !== undefined && TIMEOUT_CODES.has(code)) return new TimeoutError(this.#ms, context, error);
    return new NetworkError(error, context);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What the service said, from `{error}`, `{message}`, `{error: {message}}`, or a short text body. */
function serviceWords(payload: unknown, text: string): string | undefined {
  if (isRecord(payload)) {
    const nested = isRecord(payload.error) ? payload.error.message : undefined;
    for (const candidate of [payload.error, payload.message, nested]) {
      if (typeof candidate === "string" && candidate.trim() !== "") return candidate.trim();
    }
    return undefined;
  }
  const plain = text.trim();
  return plain !== "" && plain.length <= 300 && !plain.startsWith("<") ? plain : undefined;
}

/**
 * The typed error for an answer (base/errors.ts `serviceErrorFor`), or undefined when it is a success:
 * a 2xx is a failure only as the service's envelope, `{result: "failure"}`.
 */
function failureOf(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  context: string,
  presigned: boolean,
): ServiceError | undefined {
  const payload = parseJson(text);
  if (status >= 200 && status < 300 && !(isRecord(payload) && payload.result === "failure")) return undefined;
  return serviceErrorFor(
    {
      status,
      said: serviceWords(payload, text),
      details: isRecord(payload) ? payload.details : undefined,
      retryAfterMs: retryAfterMs(headers["retry-after"]),
      presigned,
    },
    context,
  );
}

/** Every failed call is counted once, where it is thrown. */
function counted(error: BotError): BotError {
  serviceErrorsTotal.inc({ code: error.code });
  return error;
}

/** Header-safe: visible ASCII only. */
const KEY_SHAPE = /^[\x21-\x7e]+$/;

/** A tenant without a usable key gets the answer the service would give, without the round trip. */
function checkedKey(apiKey: string | undefined, context: string): string {
  if (apiKey && KEY_SHAPE.test(apiKey)) return apiKey;
  throw new UnauthorizedError(
    apiKey ? "the key has characters a header cannot carry" : "no API key",
    context,
    false,
  );
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Enough for a sharing link's hops to its file; a redirect loop ends here. */
const MAX_REDIRECTS = 5;

/** What `send` hands on: the answer, still unread, with the call's clock. */
interface Sent {
  res: Dispatcher.ResponseData;
  deadline: Deadline;
  context: string;
  presigned: boolean;
}

/** Retries of GETs happen below this, in undici's RetryAgent: see retry.ts. */
export function createTransport(options: TransportOptions): Transport {
  return new HttpTransport(options);
}

class HttpTransport implements Transport {
  readonly baseUrl: string;
  readonly #options: TransportOptions;
  readonly #trustedHost: string;
  readonly #baseOrigin: string;
  readonly #base: Dispatcher;
  readonly #retrying: Dispatcher;

  constructor(options: TransportOptions) {
    this.#options = options;
    // Through URL so that "HTTP://Host:80" and the href of a request URL are spelled alike.
    this.baseUrl = new URL(mediaOrigin(options.baseUrl)).href.replace(/\/+$/, "");
    const { hostname, origin } = new URL(this.baseUrl);
    this.#trustedHost = hostname;
    this.#baseOrigin = origin;
    this.#base = options.dispatcher ?? new Agent({ connect: { lookup: guardedLookup(hostname) } });
    this.#retrying = retryingDispatcher(this.#base, options.retries, options.logger);
  }

  async json<T>(call: Call, schema: z.ZodType<T>, opts: CallOptions = {}): Promise<T> {
    const { status, text, context } = await this.#read(call, opts);
    const payload = parseJson(text);
    if (payload === undefined)
      throw counted(new InvalidResponseError("the body is not JSON", status, context));
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ");
      throw counted(new InvalidResponseError(issues, status, context, parsed.error));
    }
    return parsed.data;
  }

  async exchange(call: Call, opts: CallOptions = {}): Promise<void> {
    await this.#read(call, opts);
  }

  async download(call: Call, opts: CallOptions = {}): Promise<Download> {
    let sent = await this.#send(call, opts, "*/*");
    // A link a person gave may redirect (a sharing link to its file): each hop is checked as the
    // first one was. The service's own addresses are taken as they answer.
    for (let hops = 0; call.given && REDIRECTS.has(sent.res.statusCode) && hops < MAX_REDIRECTS; hops++) {
      const location = sent.res.headers.location;
      if (typeof location !== "string") break;
      abandon(sent.res.body);
      sent.deadline.dispose();
      call = { ...call, path: new URL(location, this.#url(call.path)).href };
      sent = await this.#send(call, opts, "*/*");
    }
    const { res, deadline, context, presigned } = sent;
    const contentType = String(res.headers["content-type"] ?? "application/octet-stream");
    try {
      if (res.statusCode < 200 || res.statusCode >= 300 || /\bjson\b/i.test(contentType)) {
        const body = await this.#text(res.body, context, res.statusCode);
        throw (
          failureOf(res.statusCode, res.headers, body, context, presigned) ??
          new InvalidResponseError(`JSON (${contentType}) where a file was due`, res.statusCode, context)
        );
      }
    } catch (error) {
      deadline.dispose();
      throw counted(deadline.errorFor(error, context));
    }
    return streamed(sent, contentType);
  }

  async close(): Promise<void> {
    // A dispatcher handed in belongs to whoever made it.
    if (!this.#options.dispatcher) await this.#base.close();
  }

  /** A service path starts with "/"; anything else that is not http(s) (file:, ftp:, data:) is refused. */
  #url(path: string): string {
    if (/^https?:\/\//i.test(path)) return path;
    if (path.startsWith("/")) return `${this.baseUrl}${path}`;
    throw new RefusedFetchError(msg("refusal.result.not_allowed"), {
      message: `refused to fetch a non-http(s) URL (${path.split(":")[0]}:)`,
    });
  }

  /**
   * The key goes to the service's API only: not to a presigned upload or download address, even
   * one on the same host.
   */
  #isApi(target: string): boolean {
    return target.startsWith(`${this.baseUrl}/api/`);
  }

  #text(body: AsyncIterable<Uint8Array>, context: string, status: number): Promise<string> {
    return boundedText(
      body,
      MAX_RESPONSE_BYTES,
      () => new InvalidResponseError(`the answer is over ${MAX_RESPONSE_BYTES} bytes`, status, context),
    );
  }

  async #send(call: Call, opts: CallOptions, accept: string): Promise<Sent> {
    const target = new URL(this.#url(call.path));
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) target.searchParams.set(key, String(value));
    }
    // Never the query: a presigned address carries its signature there.
    const context = `${call.method} ${target.pathname}`;
    const timeoutMs = opts.timeoutMs ?? this.#options.timeoutMs;
    const deadline = new Deadline(timeoutMs, opts.signal);
    const log = this.#options.logger;

    const started = performance.now();
    try {
      await checkFetchTarget(
        target,
        call.given && target.origin !== this.#baseOrigin ? undefined : this.#trustedHost,
      );
      const headers: Record<string, string> = { accept };
      if (this.#isApi(target.href) && !call.given) headers["x-api-key"] = checkedKey(call.apiKey, context);
      const body = requestBody(call, headers, deadline);
      if (deadline.signal.aborted) throw deadline.signal.reason;
      const res = await request(target, {
        method: call.method,
        headers,
        body,
        signal: deadline.signal,
        bodyTimeout: timeoutMs,
        dispatcher: call.method === "GET" ? this.#retrying : this.#base,
      });
      const ms = performance.now() - started;
      serviceSeconds.observe(
        { method: call.method, route: serviceRoute(target.pathname, this.#isApi(target.href)) },
        ms / 1000,
      );
      log.debug(
        { method: call.method, path: target.pathname, status: res.statusCode, ms: Math.round(ms) },
        "media api",
      );
      return { res, deadline, context, presigned: !this.#isApi(target.href) };
    } catch (error) {
      deadline.dispose();
      call.body?.discard();
      const mapped = lostAnswer(call, deadline.errorFor(error, context));
      log.debug(
        {
          method: call.method,
          path: target.pathname,
          code: mapped.code,
          ms: Math.round(performance.now() - started),
        },
        "media api",
      );
      throw counted(mapped);
    }
  }

  /** The whole answer as text, or its typed failure. */
  async #read(call: Call, opts: CallOptions): Promise<{ status: number; text: string; context: string }> {
    const { res, deadline, context, presigned } = await this.#send(call, opts, "application/json");
    try {
      const body = await this.#text(res.body, context, res.statusCode);
      const failure = failureOf(res.statusCode, res.headers, body, context, presigned);
      if (failure) throw failure;
      return { status: res.statusCode, text: body, context };
    } catch (error) {
      // A success whose body was cut off: the job exists, its id is lost.
      throw counted(
        res.statusCode < 300
          ? lostAnswer(call, deadline.errorFor(error, context))
          : deadline.errorFor(error, context),
      );
    } finally {
      deadline.dispose();
      // An early answer (a 400 before the upload was read to its end) leaves the files' sources open.
      call.body?.discard();
    }
  }
}

/**
 * The call's body, with its content headers set: JSON, or the files' chunks streamed, each chunk
 * restarting the call's clock.
 */
function requestBody(
  call: Call,
  headers: Record<string, string>,
  deadline: Deadline,
): string | Readable | undefined {
  if (call.json !== undefined) {
    headers["content-type"] = "application/json";
    return JSON.stringify(call.json);
  }
  if (!call.body) return undefined;
  headers["content-type"] = call.body.contentType;
  headers["content-length"] = String(call.body.length);
  return Readable.from(
    (async function* (chunks) {
      for await (const chunk of chunks) {
        deadline.touch();
        yield chunk;
      }
    })(call.body.chunks),
    { objectMode: false },
  );
}

/**
 * A file's answer as the caller's stream. From here the body runs on undici's idle timeout
 * (bodyTimeout), however long the video is; the caller's signal still cancels it.
 */
function streamed({ res, deadline, context }: Sent, contentType: string): Download {
  deadline.stopClock();
  const length = Number(res.headers["content-length"]);
  const body = Readable.from(
    (async function* () {
      try {
        yield* res.body;
      } catch (error) {
        throw deadline.errorFor(error, context);
      }
    })(),
    { objectMode: false },
  );
  // Also when the caller drops the stream unread: the connection goes back, the listener goes.
  body.once("close", () => {
    deadline.dispose();
    abandon(res.body);
  });
  return { body, size: Number.isFinite(length) ? length : undefined, contentType };
}
