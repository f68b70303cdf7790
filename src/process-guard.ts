import { randomBytes } from "node:crypto";
import type { Logger } from "./core/base/log.js";

/**
 * The last line behind the rule that a fault in one request never ends the process. Every stream
 * and promise has an owner that handles its errors; this only catches what slipped past one, logs
 * it with a reference an operator can grep for, and keeps the other servers and workspaces served.
 */

/**
 * Errors of one HTTP exchange (a body closed unread, a connection reset, a stalled download). When
 * one escapes as an 'error' event nobody listens to, Node throws it from a tick of its own, after
 * the stream is already torn down: nothing else is half-changed, so running on is safe.
 */
const REQUEST_SCOPED_CODES = new Set([
  "UND_ERR_ABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ABORT_ERR",
]);

function isRequestScoped(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && REQUEST_SCOPED_CODES.has(code);
}

const reference = () => randomBytes(4).toString("hex");

/**
 * Installs the process-wide handlers. A stray rejection is logged and the bot runs on; so is a
 * stray error of one request's stream. Any other uncaught exception may have left shared state
 * half-changed, so it is logged and the process exits with code 1 for its supervisor to restart it
 * (jobs resume from the store).
 */
export function guardProcess(logger: Logger, exit: (code: number) => void = process.exit): void {
  process.on("unhandledRejection", (reason) => {
    logger.error({ err: reason, reference: reference() }, "unhandled rejection (the bot keeps running)");
  });
  process.on("uncaughtException", (error, origin) => {
    if (isRequestScoped(error)) {
      logger.error({ err: error, reference: reference() }, "stray request error (the bot keeps running)");
      return;
    }
    logger.fatal({ err: error, origin, reference: reference() }, "uncaught exception: stopping");
    logger.flush?.();
    exit(1);
  });
}
