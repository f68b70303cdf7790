import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { request } from "undici";
import { CodedError } from "../../common/coded-error.js";
import type { MediaClient } from "../api/client.js";
import { isInternalAddress } from "../api/fetch-policy.js";
import { BotError, UnauthorizedError } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import { redactText } from "../base/redact.js";
import type { SharedKeyTenants } from "../tenancy/tenancy.js";
import { ConfigError } from "./config.js";

/**
 * Start-up checks: a bad credential or an unreachable dependency ends the start with one line
 * that names the variable and what to do, never a stack trace or the secret itself.
 */

/** A start that cannot go on; the message is the operator's line after "Cannot start: ". */
export class StartupError extends CodedError {
  readonly code = "startup.failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Failures that carry their own operator's sentence (config, store, start-up checks). */
const EXPLAINED = new Set([
  "ConfigError",
  "StartupError",
  "StoreError",
  "SecretsError",
  "InstanceInUseError",
]);

export function isExplained(error: unknown): boolean {
  return error instanceof Error && EXPLAINED.has(error.name);
}

/** The one line printed when the start fails. */
export function startupLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
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

/** The documentation's own names (RFC 2606), which .env.example uses: never a real service. */
const PLACEHOLDER_HOST = /(^|\.)example(\.(com|net|org))?$/i;

/**
 * MEDIA_API_URL is checked in steps. A placeholder, or a name that does not exist (a typo, the
 * wrong domain), cannot start to work by itself: the start ends there, in one line. What only
 * warns, because the service may come up after the bot: plain http to a host off this machine's
 * network (every API key would travel in clear), and a service that does not answer. With
 * `probe: false` the caller asks the service something anyway (checkSharedKey), so it is not
 * asked twice.
 */
export async function checkMediaService(
  baseUrl: string,
  logger: Logger,
  { probe = true }: { probe?: boolean } = {},
): Promise<void> {
  const url = new URL(baseUrl);
  if (PLACEHOLDER_HOST.test(url.hostname)) {
    throw new StartupError(
      `MEDIA_API_URL is still the placeholder of .env.example (${url.origin}): set it to the address of your Media Generation Service, or try the bot without one with npm run playground.`,
    );
  }
  await requireKnownHost(url);
  if (url.protocol === "http:" && !isLocalHost(url.hostname)) {
    logger.warn(
      { host: url.host },
      "MEDIA_API_URL is plain http to a remote host: API keys and results travel unencrypted. Use https.",
    );
  }
  if (!probe) return;
  try {
    const answer = await request(url, { method: "HEAD", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await answer.body.dump();
  } catch (error) {
    logger.warn(
      { host: url.host, reason: reasonOf(error) },
      "MEDIA_API_URL does not answer: commands will fail until the media service is reachable",
    );
  }
}

/**
 * A host name the resolver says does not exist (NXDOMAIN) ends the start; a resolver that does
 * not answer in time, or fails for a while (EAI_AGAIN), leaves it to the service's own check.
 */
async function requireKnownHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host)) return;
  const code = await Promise.race([
    lookup(host).then(
      () => undefined,
      (error: unknown) => (error as NodeJS.ErrnoException).code,
    ),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), PROBE_TIMEOUT_MS).unref()),
  ]);
  if (code === "ENOTFOUND") {
    throw new StartupError(
      `MEDIA_API_URL names a host that does not exist (${host}: ENOTFOUND): check the address of your Media Generation Service.`,
    );
  }
}

/** An error's own words and, when a lower layer failed, theirs ("fetch failed: connect ECONNREFUSED"). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}

/** Where the bot's HTTP server listens, and the settings that said so (none: the default port). */
export interface ListenSettings {
  port: number;
  portSetting?: "PORT" | "SLACK_PORT";
  host?: string;
}

/**
 * Why the HTTP server could not listen, as the operator's line naming the setting to change; an
 * error that is not about the address is returned as it is.
 */
export function listenFailure(error: unknown, { port, portSetting, host }: ListenSettings): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const setting = portSetting ?? "PORT";
  const which = portSetting ? `${portSetting} ${port}` : `Port ${port} (the default, as PORT is unset)`;
  const on = host ? ` on HOST ${host}` : "";
  const options = { cause: error };
  switch (code) {
    case "EADDRINUSE":
      return new StartupError(
        `${which} is taken${on}: another process listens there (EADDRINUSE). Set ${setting} to a free port, or stop that process.`,
        options,
      );
    case "EACCES":
      return new StartupError(
        `${which} needs privileges this process does not have${on} (EACCES): set ${setting} to a port above 1023.`,
        options,
      );
    case "EADDRNOTAVAIL":
      return new StartupError(
        `HOST ${host} is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its addresses, or unset it to listen on all of them.`,
        options,
      );
    case "EAFNOSUPPORT":
      return new StartupError(
        `HOST ${host} is an IPv6 address and this machine has no IPv6 (EAFNOSUPPORT): set HOST to 0.0.0.0 or an IPv4 address.`,
        options,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartupError(
        `HOST ${host} is not a name this machine can resolve (${code}): set HOST to an address, such as 127.0.0.1 or 0.0.0.0.`,
        options,
      );
    default:
      return error;
  }
}

/**
 * What the operator must fix before anyone uses the bot, said at start rather than to the first
 * user who tries a command.
 */

/**
 * The bot needs a way to an API key: the shared MEDIA_API_KEY serving some tenants
 * (MEDIA_API_KEY_TENANTS), or SECRETS_KEY so that admins can save their own with setup. With
 * neither, every command that calls the service would tell users to ask an admin, and the admin
 * would learn that the operator must set something: so the bot refuses to start, and says what.
 */
export function requireKeyPath(config: {
  media: { apiKey?: string; apiKeyTenants: SharedKeyTenants };
  secretsKey?: string;
}): void {
  const { apiKey, apiKeyTenants } = config.media;
  if (config.secretsKey || (apiKey && apiKeyTenants.length > 0)) return;
  throw new ConfigError(
    apiKey
      ? "No API key can ever be used: MEDIA_API_KEY serves no server or workspace. Name them in MEDIA_API_KEY_TENANTS (or *), or set SECRETS_KEY so admins can save their own key with setup."
      : "No API key can ever be used: set MEDIA_API_KEY (one service key, for the servers and workspaces MEDIA_API_KEY_TENANTS names) or SECRETS_KEY (so admins can save their own key with setup), or both.",
  );
}

/** Long enough for a service that answers, short enough not to hold a restart for half a minute. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * MEDIA_API_KEY is tried with GET /api/usage, which costs nothing. A key the service refuses stops
 * the start (ConfigError); a service that cannot be reached is only a warning, since it may come
 * back and the bot has nothing to fix.
 */
export async function checkSharedKey(
  media: MediaClient,
  apiKey: string | undefined,
  logger: Logger,
): Promise<void> {
  if (!apiKey) return;
  try {
    await media.as(apiKey).usage.get({ timeoutMs: CHECK_TIMEOUT_MS });
    logger.info("MEDIA_API_KEY accepted by the service");
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      throw new ConfigError(
        `MEDIA_API_KEY was refused by the service at ${media.baseUrl} (401${error.serviceMessage ? `: ${error.serviceMessage}` : ""}). Check the key, or unset it to use only keys saved with setup.`,
      );
    }
    // Said in one line: the service's trouble is no fault of the bot's, and a stack says nothing more.
    const reason = error instanceof BotError ? { code: error.code, reason: reasonOf(error) } : { err: error };
    logger.warn(
      reason,
      `could not check MEDIA_API_KEY: the service at ${media.baseUrl} did not answer GET /api/usage; starting anyway`,
    );
  }
}
