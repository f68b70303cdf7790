import { type DestinationStream, type Logger, type LoggerOptions, pino } from "pino";
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
      // The last word on every line, whatever produced it: secrets inside strings (see redact.ts).
      hooks: { streamWrite: redactText },
      serializers: { err: pino.stdSerializers.err },
    },
    options.destination,
  );
}
