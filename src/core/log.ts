import { type DestinationStream, type Logger, type LoggerOptions, pino } from "pino";
import { isStoreOutage } from "../store/errors.js";
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
        // The last word on every line, whatever produced it: secrets inside strings (see redact.ts).
        streamWrite: redactText,
        // A store outage is told once and every 30 s by the store (store/availability.ts); the
        // heartbeats, polls, deliveries and scans it fails meanwhile would repeat it per operation.
        logMethod(args, method) {
          const [first] = args as unknown[];
          if (typeof first === "object" && first !== null && isStoreOutage((first as { err?: unknown }).err))
            return;
          method.apply(this, args);
        },
      },
      serializers: { err: pino.stdSerializers.err },
    },
    options.destination,
  );
}
