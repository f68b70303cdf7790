/**
 * What a log line says of an error, whoever threw it: the bot, discord.js, @slack/web-api, undici,
 * node. Fields are taken by allow-list, never copied whole: libraries hang the request they sent
 * on their errors (discord.js's DiscordAPIError keeps `requestBody` with the uploaded files, a
 * 20 MiB upload made a 75 MB log line), the answer they got (@slack/web-api's `data` and `body`,
 * undici's `body`), and every header. pino's own serializer copies every enumerable field, hence
 * this one.
 *
 * Kept, where the error has them: its type and message, a code, the HTTP status, the method, URL or
 * route of the call, the platform's own error word (Slack's `data.error`), a retry delay, a few
 * headers (rate limits, request ids), the stack's frames and the chain of causes (AggregateError's
 * errors too), each bounded. Anything else is left out. Reading a field never throws (a getter or a
 * proxy that throws reads as absent), and a circular chain of causes ends where it repeats.
 */

export interface LoggedError {
  type: string;
  message: string;
  code?: string | number;
  status?: number;
  method?: string;
  url?: string;
  route?: string;
  /** The platform's own word for the failure: Slack's `error` ("file_uploads_disabled"). */
  error?: string;
  retryAfter?: number | string;
  requestId?: string;
  headers?: Record<string, string>;
  stack?: string;
  cause?: LoggedError | string;
  /** AggregateError: the first few. */
  errors?: (LoggedError | string)[];
}

/** How long a chain of causes is followed. */
export const CAUSE_DEPTH = 5;
/** An error's own message; a cause's is cut shorter. */
const MESSAGE_CHARS = 1000;
const CAUSE_MESSAGE_CHARS = 300;
/** Stack frames kept of the error, and of each cause. */
const FRAMES = 20;
const CAUSE_FRAMES = 8;
const STACK_CHARS = 3000;
/** Any other string field (URL, method, code, header value). */
const FIELD_CHARS = 300;
const AGGREGATED = 5;

/** Headers worth a line: why and how long to wait, and which request it was. */
const HEADERS =
  /^(retry-after|x-ratelimit-[\w-]+|x-request-id|x-slack-req-id|x-amz-request-id|x-amzn-requestid|cf-ray|content-type|content-length)$/i;
const REQUEST_ID_HEADERS = [
  "x-request-id",
  "x-slack-req-id",
  "x-amz-request-id",
  "x-amzn-requestid",
  "cf-ray",
];
const MAX_HEADERS = 12;

/** `text` at most `max` characters long, saying how much was left out. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** A field as it reads, or undefined when reading it throws (a getter, a revoked proxy). */
export function read(value: unknown, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

export function isErrorLike(value: unknown): value is Error {
  if (typeof value !== "object" || value === null) return false;
  try {
    return value instanceof Error || Object.prototype.toString.call(value) === "[object Error]";
  } catch {
    return false;
  }
}

/** An error's message as a line's `msg`: bounded, and read by a read that cannot throw. */
export function messageOf(error: unknown): string {
  return text(read(error, "message"), MESSAGE_CHARS) ?? "";
}

function text(value: unknown, max = FIELD_CHARS): string | undefined {
  return typeof value === "string" ? cut(value, max) : undefined;
}

function numberOrText(value: unknown): number | string | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : text(value, 100);
}

function typeOf(error: object): string {
  try {
    const name = error.constructor?.name;
    if (typeof name === "string" && name !== "" && name !== "Object") return name;
  } catch {
    // a proxy's getPrototypeOf trap
  }
  return text(read(error, "name"), 100) ?? "Error";
}

/** The allowed headers of a plain object, a fetch Headers, or undici's array of pairs. */
function allowedHeaders(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const out: Record<string, string> = {};
  let count = 0;
  const keep = (name: unknown, raw: unknown) => {
    if (count >= MAX_HEADERS || typeof name !== "string" || !HEADERS.test(name)) return;
    const joined = Array.isArray(raw) ? raw.filter((v) => typeof v === "string").join(", ") : raw;
    if (typeof joined !== "string" && typeof joined !== "number") return;
    out[name.toLowerCase()] = cut(String(joined), 200);
    count += 1;
  };
  try {
    const entries = read(value, "entries");
    if (typeof entries === "function" && !Array.isArray(value)) {
      for (const [name, raw] of (value as Headers).entries()) keep(name, raw);
    } else if (Array.isArray(value)) {
      for (let i = 0; i + 1 < value.length && i < 200; i += 2) keep(String(value[i]), String(value[i + 1]));
    } else {
      for (const name of Object.keys(value).slice(0, 200)) keep(name, read(value, name));
    }
  } catch {
    // headers that cannot be read are left out
  }
  return count > 0 ? out : undefined;
}

function frames(stack: unknown, max: number): string | undefined {
  if (typeof stack !== "string") return undefined;
  // The first lines repeat the type and message (which may be long): the frames alone are kept.
  const lines = stack.split("\n", 200).filter((line) => /^\s+at\s/.test(line));
  if (lines.length === 0) return undefined;
  const kept = lines.slice(0, max).join("\n");
  const more = lines.length > max ? `\n    … ${lines.length - max} more frames` : "";
  return cut(kept, STACK_CHARS) + more;
}

function statusOf(error: object): number | undefined {
  for (const key of ["status", "statusCode"]) {
    const value = read(error, key);
    if (typeof value === "number" && Number.isInteger(value)) return value;
  }
  const response = read(error, "response");
  const nested = typeof response === "object" && response !== null ? read(response, "status") : undefined;
  return typeof nested === "number" ? nested : undefined;
}

function set<K extends keyof LoggedError>(out: LoggedError, key: K, value: LoggedError[K] | undefined): void {
  if (value !== undefined) out[key] = value;
}

/** A thrown value that is not an error: its text, short. */
function thrownText(value: unknown): string {
  try {
    if (typeof value === "string") return cut(value, CAUSE_MESSAGE_CHARS);
    if (typeof value !== "object" || value === null) return String(value);
    const message = read(value, "message");
    return typeof message === "string"
      ? cut(message, CAUSE_MESSAGE_CHARS)
      : `[${Object.prototype.toString.call(value).slice(8, -1)}]`;
  } catch {
    return "[unreadable]";
  }
}

function describe(error: Error, depth: number, seen: Set<object>): LoggedError {
  seen.add(error);
  const top = depth === 0;
  const out: LoggedError = {
    type: typeOf(error),
    message: text(read(error, "message"), top ? MESSAGE_CHARS : CAUSE_MESSAGE_CHARS) ?? "",
  };
  set(out, "code", numberOrText(read(error, "code")));
  set(out, "status", statusOf(error));
  set(out, "method", text(read(error, "method"), 16));
  set(out, "url", text(read(error, "url")));
  set(out, "route", text(read(error, "route")));
  const data = read(error, "data");
  set(out, "error", typeof data === "object" && data !== null ? text(read(data, "error"), 100) : undefined);
  set(out, "retryAfter", numberOrText(read(error, "retryAfter") ?? read(error, "retryAfterMs")));
  const headers = allowedHeaders(read(error, "headers"));
  set(out, "headers", headers);
  const requestId =
    text(read(error, "requestId"), 100) ?? REQUEST_ID_HEADERS.map((h) => headers?.[h]).find(Boolean);
  set(out, "requestId", requestId);
  set(out, "stack", frames(read(error, "stack"), top ? FRAMES : CAUSE_FRAMES));

  // @slack/web-api's WebAPIRequestError keeps its cause in `original` as well.
  const cause = read(error, "cause") ?? read(error, "original");
  if (cause !== undefined && cause !== null) out.cause = related(cause, depth + 1, seen);
  const errors = read(error, "errors");
  if (Array.isArray(errors) && errors.length > 0) {
    out.errors = errors.slice(0, AGGREGATED).map((each) => related(each, depth + 1, seen));
    if (errors.length > AGGREGATED) out.errors.push(`… ${errors.length - AGGREGATED} more errors`);
  }
  return out;
}

function related(value: unknown, depth: number, seen: Set<object>): LoggedError | string {
  if (!isErrorLike(value)) return thrownText(value);
  if (seen.has(value)) return "[the same error again]";
  if (depth > CAUSE_DEPTH) return `[further causes not logged: ${typeOf(value)}]`;
  return describe(value, depth, seen);
}

/** What a log line holds of an error (see above); a thrown value that is not an Error becomes its text. */
export function loggedError(value: unknown): LoggedError | string {
  return related(value, 0, new Set());
}
