import { type DestinationStream, type Logger, type LoggerOptions, pino } from "pino";
import { isStoreOutage } from "../../store/errors.js";
import { bounded, capLine } from "./log-bounds.js";
import { isErrorLike, read } from "./logged-error.js";
import { REDACTED, redactText } from "./redact.js";

export type { Logger } from "pino";

/**
 * Field names that hold secrets anywhere in a logged object: tenants' API keys, chat tokens,
 * signing secrets. The code does not log them on purpose; this is the net for the day someone
 * logs a whole request, config or error object.
 */
const SECRET_KEYS = [
  "apiKey",
  "api_key",
  "x-api-key",
  "authorization",
  "Authorization",
  "cookie",
  "token",
  "accessToken",
  "access_token",
  "botToken",
  "appToken",
  "refreshToken",
  "refresh_token",
  "signingSecret",
  "clientSecret",
  "client_secret",
  "stateSecret",
  "secretsKey",
  "secret",
  "password",
  "responseUrl",
  "response_url",
];

/**
 * pino's `*` matches exactly one level, so each key is listed at the depths where it shows up:
 * top level, `config.apiKey`, `req.headers["x-api-key"]`, `err.request.headers.authorization`.
 */
const DEPTHS = ["", "*.", "*.*.", "*.*.*."];

export const REDACTED_PATHS: string[] = DEPTHS.flatMap((prefix) =>
  SECRET_KEYS.map((key) => `${prefix}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`}`),
);

export { REDACTED };

/**
 * Whether `error` is the store's outage, which the store tells once and every 30 s
 * (store/availability.ts): the heartbeats, polls, deliveries and scans it fails meanwhile would
 * repeat it per operation. A value that cannot be read is not one.
 */
export function toldByTheStore(error: unknown): boolean {
  try {
    return isStoreOutage(error);
  } catch {
    return false;
  }
}

/**
 * A call's arguments as pino gets them, or none for a line not to write. The fields become a
 * bounded copy (log-bounds.ts: every error, under any key, as logged-error.ts says) before pino
 * reads anything of them, so a getter or a proxy that throws, a cycle or a 20 MiB Buffer never
 * reaches it; nor does an error's own message, which pino reads when no message is given.
 */
function safeArgs(args: unknown[]): unknown[] | undefined {
  const [first, ...rest] = args;
  if (typeof first !== "object" || first === null) return args;
  const fields = isErrorLike(first) ? { err: first } : first;
  if (toldByTheStore(read(fields, "err"))) return undefined;
  const copy = bounded(fields);
  return [typeof copy === "object" && copy !== null ? copy : { fields: copy }, ...rest];
}

export interface LogOptions {
  level?: LoggerOptions["level"];
  name?: string;
  /** Where lines go; stdout by default. Tests pass a stream they read back. */
  destination?: DestinationStream;
}

export function createLogger(options: LogOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? "info",
      name: options.name,
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
      hooks: {
        // The last word on every line, whatever produced it (the bot, or a library's logger routed
        // here): secrets inside strings replaced (see redact.ts), then the line cut to its cap.
        streamWrite: (line) => capLine(redactText(line)),
        logMethod(args, method) {
          const safe = safeArgs(args as unknown[]);
          if (safe) method.apply(this, safe as Parameters<typeof method>);
        },
      },
      // pino's own copies every field of an error, its request's body included. The log call's
      // fields are bounded by then (safeArgs); this covers an error in a child logger's bindings.
      serializers: { err: bounded },
    },
    options.destination,
  );
}
