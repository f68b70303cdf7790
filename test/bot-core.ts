/**
 * The platform-neutral core of a whole bot for the processes that run one apart from the fakes
 * (test/slack/bot-process.ts, bench/discord-ack/bot-process.ts): sqlite stores in a directory, the
 * media client to the emulator and the core with the emulator's key and a policy on the emulator's
 * compressed clock, all with a silent logger unless given one. The caller starts its platform's adapter on
 * `bot`, then starts the bot.
 */
import { join } from "node:path";
import { type Logger, pino } from "pino";
import { createMediaClient, type MediaClient } from "../src/core/api/client.js";
import { type Bot, createBot } from "../src/core/bot.js";
import type { Intake } from "../src/core/intake/intake.js";
import { scaledPolicy } from "../src/core/jobs/policy.js";
import { openStores, type Stores } from "../src/store/index.js";

export interface BotCoreOptions {
  /** The media API emulator, whose account "test-key" the bot uses. */
  mediaUrl: string;
  /** Where the sqlite file goes. */
  dir: string;
  /** Multiplies the polling policy's durations (0.01: 100 times shorter), to match the emulator's clock. */
  scale: number;
  /** The media client's timeout per call. Default 20 s. */
  timeoutMs?: number;
  /** Default: silent. */
  logger?: Logger;
  /** For tenants' own API keys (setup); none when left out. */
  secretsKey?: string;
  /** MEDIA_API_KEY_TENANTS. Default: every server and workspace, no person's own install. */
  apiKeyTenants?: readonly string[];
  /** The HTTP server's requests, which the engine's reads and deliveries yield to, as in the app. */
  intake?: Intake;
}

export interface BotCore {
  bot: Bot;
  stores: Stores;
  media: MediaClient;
  logger: Logger;
  /** Stops the bot, then closes the client and the stores; stop the adapter first. */
  close(): Promise<void>;
}

export async function openBotCore({
  mediaUrl,
  dir,
  scale,
  timeoutMs = 20_000,
  logger = pino({ level: "silent" }),
  secretsKey,
  intake,
  apiKeyTenants = ["*"],
}: BotCoreOptions): Promise<BotCore> {
  const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`, secretsKey, logger);
  const media = createMediaClient({ baseUrl: mediaUrl, timeoutMs, logger });
  const bot = createBot({
    config: {
      media: { url: mediaUrl, apiKey: "test-key", apiKeyTenants, thumbnailsListPath: "/api/thumbnails" },
    },
    media,
    stores,
    engine: { policy: scaledPolicy(scale), ...(intake && { intake }) },
    logger,
  });
  return {
    bot,
    stores,
    media,
    logger,
    async close() {
      await bot.stop();
      await media.close();
      await stores.close();
    },
  };
}
