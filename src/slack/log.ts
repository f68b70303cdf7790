import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../core/log.js";

const LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
};

/** Bolt and its WebClient write through the bot's pino logger (with its redaction of secrets). */
export function boltLogger(logger: Logger): BoltLogger {
  const write =
    (level: "debug" | "info" | "warn" | "error") =>
    (...parts: unknown[]) => {
      const [first, ...rest] = parts;
      logger[level](rest.length > 0 ? { slack: rest } : {}, String(first));
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
