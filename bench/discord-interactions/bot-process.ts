/**
 * The whole bot for bench/discord-interactions in a process of its own, as `npm start` runs it with
 * DISCORD_PUBLIC_KEY: POST /discord/interactions on its HTTP server, no gateway connection, the
 * core, the job engine and sqlite stores. Prints one JSON line with the endpoint's URL once
 * serving; stops when stdin ends.
 *
 *   node --import tsx bot-process.ts <restUrl> <token> <guildId> <publicKey> <mediaUrl> <dir>
 */

import { pino } from "pino";
import { startDiscord } from "../../src/discord/index.js";
import { startHttpServer } from "../../src/http/index.js";
import { openBotCore } from "../../test/bot-core.js";

const [restUrl, token, guildId, publicKey, mediaUrl, dir] = process.argv.slice(2);
if (!restUrl || !token || !guildId || !publicKey || !mediaUrl || !dir)
  throw new Error("usage: see the header");

// One HTTP server whose requests the interactions' work and the job engine yield to, as in the app.
const http = await startHttpServer({ port: 0, host: "127.0.0.1", logger: pino({ level: "silent" }) });
const core = await openBotCore({ mediaUrl, dir, scale: 0.01, intake: http.intake });
const { bot, stores, logger } = core;
const discord = await startDiscord({
  config: { token, restUrl, guildId, publicKey },
  bot,
  logger,
  store: stores.keyv("discord"),
  stores,
  http,
});
await bot.start();
console.log(JSON.stringify({ url: discord.interactionsUrl }));

process.stdin.resume();
process.stdin.on("end", async () => {
  await discord.stop();
  await core.close();
  await http.close();
  process.exit(0);
});
