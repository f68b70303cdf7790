import { createMediaClient } from "./core/api/client.js";
import { createLogger, type Logger } from "./core/base/log.js";
import { createBot } from "./core/bot.js";
import type { Config } from "./core/config/config.js";
import { checkMediaService, checkSharedKey, listenFailure } from "./core/config/startup.js";
import { startDiscord } from "./discord/index.js";
import { startBotServer } from "./http/index.js";
import { startSlack } from "./slack/index.js";
import { openStores } from "./store/index.js";

export interface RunningApp {
  /** The bot's HTTP server (health, metrics, Slack's events), by its loopback address. */
  httpUrl: string;
  /** Where Slack sends its requests in HTTP mode. */
  slackEventsUrl?: string;
  /** Where Discord sends interactions when DISCORD_PUBLIC_KEY is set. */
  discordInteractionsUrl?: string;
  /** See Bot.stop: the platforms stay connected until the bot has answered and delivered what it can. */
  stop(options?: { deadlineMs?: number }): Promise<void>;
}

/**
 * Builds the bot from the configuration and starts every platform whose credentials are present.
 * Adapters attach before the bot starts, so jobs resumed from the store find their platform.
 */
export async function startApp(config: Config, logger: Logger = createLogger({ level: config.logLevel })) {
  // The key's check (GET /api/usage) tells whether the service answers, when there is a key.
  await checkMediaService(config.media.url, logger, { probe: !config.media.apiKey });
  const media = createMediaClient({
    baseUrl: config.media.url,
    thumbnailsListPath: config.media.thumbnailsListPath,
    logger,
  });
  await checkSharedKey(media, config.media.apiKey, logger);
  const stores = await openStores(config.storeUrl, config.secretsKey, logger, {
    jobs: { retentionMs: config.jobRetentionMs },
    ...(config.redisSentinel && { sentinel: config.redisSentinel }),
  });
  const server = await startBotServer({
    port: config.port,
    ...(config.host !== undefined && { host: config.host }),
    logger,
    store: stores.keyv("health"),
    availability: stores.availability,
    ...(stores.replication && { replication: stores.replication }),
  }).catch((error: unknown) => {
    throw listenFailure(error, config);
  });
  const bot = createBot({
    config,
    media,
    stores,
    logger,
    engine: { intake: server.intake, ...(config.instanceId && { instanceId: config.instanceId }) },
    // A Home opened through any replica is kept current by the one that moves its person's jobs.
    homes: { signals: stores.signals },
  });
  const discord = config.discord
    ? await startDiscord({
        config: config.discord,
        bot,
        logger,
        store: stores.keyv("discord"),
        stores,
        http: server,
      })
    : undefined;
  const slack = config.slack
    ? await startSlack({
        config: config.slack,
        bot,
        logger,
        store: stores.keyv("slack"),
        keepMs: config.jobRetentionMs,
        claims: stores.claims,
        installations: stores.installations,
        http: server,
      })
    : undefined;
  if (discord) server.readiness.watch("discord", discord.problem);
  if (slack) server.readiness.watch("slack", slack.problem);
  await bot.start();
  logger.info({ platforms: [discord && "discord", slack && "slack"].filter(Boolean) }, "media bot started");

  const running: RunningApp = {
    httpUrl: server.url,
    ...(slack?.eventsUrl && { slackEventsUrl: slack.eventsUrl }),
    ...(discord?.interactionsUrl && { discordInteractionsUrl: discord.interactionsUrl }),
    async stop(options) {
      await bot.stop(options);
      await discord?.stop();
      await slack?.stop();
      await media.close();
      await stores.close();
      await server.close();
    },
  };
  return running;
}
