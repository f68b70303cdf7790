/**
 * The whole bot for bench/discord-ack in a process of its own: the real discord.js client (logged
 * in to the fake Discord), the core, the job engine and sqlite stores, as `npm start` runs them.
 * Prints one JSON line once connected; stops when stdin ends.
 *
 *   node --import tsx bot-process.ts <restUrl> <token> <guildId> <mediaUrl> <dir>
 */
import { join } from "node:path";
import { pino } from "pino";
import { createMediaClient } from "../../src/core/api/client.js";
import { createBot } from "../../src/core/bot.js";
import { scaledPolicy } from "../../src/core/jobs/policy.js";
import { startDiscord } from "../../src/discord/index.js";
import { openStores } from "../../src/store/index.js";

const [restUrl, token, guildId, mediaUrl, dir] = process.argv.slice(2);
if (!restUrl || !token || !guildId || !mediaUrl || !dir) throw new Error("usage: see the header");

const logger = pino({ level: "silent" });
const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`, undefined, logger);
const media = createMediaClient({ baseUrl: mediaUrl, timeoutMs: 20_000, logger });
const bot = createBot({
  config: { media: { url: mediaUrl, apiKey: "test-key", thumbnailsListPath: "/api/thumbnails" } },
  media,
  stores,
  engine: { policy: scaledPolicy(0.01) },
  logger,
});
const discord = await startDiscord({
  config: { token, restUrl, guildId },
  bot,
  logger,
  store: stores.keyv("discord"),
});
await bot.start();
console.log(JSON.stringify({ ready: true }));

process.stdin.resume();
process.stdin.on("end", async () => {
  await discord.stop();
  await bot.stop();
  await media.close();
  await stores.close();
  process.exit(0);
});
