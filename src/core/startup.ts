import { isIP } from "node:net";
import { request } from "undici";
import { isInternalAddress } from "./api/fetch-policy.js";
import { BotError } from "./errors.js";
import type { Logger } from "./log.js";
import { redactText } from "./redact.js";

/**
 * Start-up checks: a bad credential or an unreachable dependency ends the start with one line
 * that names the variable and what to do, never a stack trace or the secret itself.
 */

/** A start that cannot go on; the message is the operator's line after "Cannot start: ". */
export class StartupError extends Error {
  readonly code = "startup.failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StartupError";
  }
}

/** Failures that carry their own operator's sentence (config, store, start-up checks). */
const EXPLAINED = new Set(["ConfigError", "StartupError", "StoreError", "SecretsError"]);

export function isExplained(error: unknown): boolean {
  return error instanceof BotError || (error instanceof Error && EXPLAINED.has(error.name));
}

/** The one line printed when the start fails; a BotError (another instance on the store) in its own words. */
export function startupLine(error: unknown): string {
  const message =
    error instanceof BotError ? error.userMessage : error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s+/g, " ").trim();
  return redactText(`Cannot start: ${isExplained(error) ? line : `unexpected error: ${line}`}`);
}

/** Loopback names and addresses, internal addresses, and one-label names (a compose or k8s service). */
function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host)) return isInternalAddress(host);
  return !host.includes(".");
}

const PROBE_TIMEOUT_MS = 3_000;

/**
 * Warnings about MEDIA_API_URL, which never stop the start (the service may come up later):
 * plain http to a host off this machine's network sends every API key in clear; no answer at all
 * means every command will fail until it answers.
 */
export async function checkMediaService(baseUrl: string, logger: Logger): Promise<void> {
  const url = new URL(baseUrl);
  if (url.protocol === "http:" && !isLocalHost(url.hostname)) {
    logger.warn(
      { host: url.host },
      "MEDIA_API_URL is plain http to a remote host: API keys and results travel unencrypted. Use https.",
    );
  }
  try {
    const answer = await request(url, { method: "HEAD", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await answer.body.dump();
  } catch (error) {
    logger.warn(
      { host: url.host, reason: error instanceof Error ? error.message : String(error) },
      "MEDIA_API_URL does not answer: commands will fail until the media service is reachable",
    );
  }
}
