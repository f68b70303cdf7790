import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../core/base/log.js";
import { isErrorLike, messageOf } from "../core/base/logged-error.js";
import { REDACTED } from "../core/base/redact.js";

const LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
};

/**
 * Keys of Slack payloads that hold what people typed into a form (the setup form's API key is in
 * `view.state`) or a short-lived credential. The values cannot be known in advance, so they go by key.
 */
const PAYLOAD_SECRETS = new Set(["state", "token", "response_url", "response_urls", "trigger_id"]);

/**
 * Bolt and Socket Mode log whole payloads at debug ("Received a message on the WebSocket: {...}"):
 * the JSON part is written without its secret keys, and one that does not parse is withheld.
 */
export function scrubPayload(text: string): string {
  const start = text.indexOf("{");
  if (start < 0) return text;
  try {
    const payload: unknown = JSON.parse(text.slice(start));
    const scrubbed = JSON.stringify(payload, (key, value: unknown) =>
      PAYLOAD_SECRETS.has(key) ? REDACTED : value,
    );
    return `${text.slice(0, start)}${scrubbed}`;
  } catch {
    return `${text.slice(0, start)}[payload withheld]`;
  }
}

/**
 * The WebClient's debug lines that quote a whole request or answer ("http request body: {...}",
 * "http request result: {...}", "http request headers: {...}"): a log line carries no body (a
 * message's blocks, what people typed, a 1 MB refusal), so only its length and, for an answer,
 * Slack's verdict are kept.
 */
const BODY_LINE = /^(http request (?:body|result|headers)): /;

function withheld(text: string): string | undefined {
  const line = BODY_LINE.exec(text);
  if (!line) return undefined;
  const quoted = text.slice(line[0].length);
  let verdict = "";
  try {
    const { ok, error } = JSON.parse(quoted) as { ok?: unknown; error?: unknown };
    if (typeof ok === "boolean")
      verdict = `, ok: ${ok}${typeof error === "string" ? `, error: ${error.slice(0, 100)}` : ""}`;
  } catch {
    // not JSON: its length is all there is to say
  }
  return `${line[1]}: [withheld: ${quoted.length} characters${verdict}]`;
}

/** A library's line as text: a body withheld, a payload scrubbed, and never a throw. */
function said(first: unknown): string {
  try {
    const text = String(first);
    return withheld(text) ?? scrubPayload(text);
  } catch {
    return "[a value that cannot be read]";
  }
}

/** Bolt, its WebClient and Socket Mode write through the bot's pino logger (with its redaction of secrets). */
export function boltLogger(logger: Logger): BoltLogger {
  const write =
    (level: "debug" | "info" | "warn" | "error") =>
    (...parts: unknown[]) => {
      // The WebClient logs every call at debug whatever the level: scrubbing costs a JSON parse
      // and stringify per payload, so nothing is built for a line that would not be written.
      if (!logger.isLevelEnabled(level)) return;
      const [first, ...rest] = parts;
      const error = isErrorLike(first);
      const text = error ? messageOf(first) : said(first);
      logger[level](
        {
          ...(error && { err: first }),
          ...(rest.length > 0 && { slack: rest.map((p) => (typeof p === "string" ? scrubPayload(p) : p)) }),
        },
        text,
      );
    };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    // pino's level rules; Bolt asks only to decide whether to build debug output.
    setLevel() {},
    getLevel: () => LEVELS[logger.level] ?? LogLevel.ERROR,
    setName() {},
  };
}
