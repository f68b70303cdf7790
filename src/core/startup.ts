import type { MediaClient } from "./api/client.js";
import { ConfigError } from "./config.js";
import { BotError, UnauthorizedError } from "./errors.js";
import type { Logger } from "./log.js";

/**
 * What the operator must fix before anyone uses the bot, said at start rather than to the first
 * user who tries a command.
 */

/**
 * The bot needs a way to an API key: the shared MEDIA_API_KEY, or SECRETS_KEY so that admins can
 * save their own with setup. With neither, every command that calls the service would tell users
 * to ask an admin, and the admin would learn that the operator must set SECRETS_KEY: so the bot
 * refuses to start, and says which to set.
 */
export function requireKeyPath(config: { media: { apiKey?: string }; secretsKey?: string }): void {
  if (config.media.apiKey || config.secretsKey) return;
  throw new ConfigError(
    "No API key can ever be used: set MEDIA_API_KEY (one service key for every server and workspace) or SECRETS_KEY (so admins can save their own key with setup), or both.",
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
    const code = error instanceof BotError ? error.code : "unknown";
    logger.warn(
      { err: error, code },
      `could not check MEDIA_API_KEY: the service at ${media.baseUrl} did not answer GET /api/usage; starting anyway`,
    );
  }
}
