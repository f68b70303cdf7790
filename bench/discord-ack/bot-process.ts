/**
 * The whole bot for bench/discord-ack in a process of its own: the real discord.js client (logged
 * in to the fake Discord), the core, the job engine and sqlite stores, as `npm start` runs them.
 * Prints one JSON line once connected; stops when stdin ends.
 *
 *   node --import tsx bot-process.ts <restUrl> <token> <guildId> <mediaUrl> <dir>
 */
import { Events } from "discord.js";
import { pino } from "pino";
import { startDiscord } from "../../src/discord/index.js";
import { startHttpServer } from "../../src/http/index.js";
import { openBotCore } from "../../test/bot-core.js";
import { mark } from "../ack-timings.js";

const [restUrl, token, guildId, mediaUrl, dir] = process.argv.slice(2);
if (!restUrl || !token || !guildId || !mediaUrl || !dir) throw new Error("usage: see the header");

// As `npm start` has it: the bot's one HTTP server, whose intake the job engine and Discord share.
const http = await startHttpServer({ port: 0, logger: pino({ level: "silent" }) });
const core = await openBotCore({ mediaUrl, dir, scale: 0.01, intake: http.intake });
const { bot, stores, logger } = core;
const discord = await startDiscord({
  config: { token, restUrl, guildId },
  bot,
  logger,
  store: stores.keyv("discord"),
  stores,
  http,
});
// The gateway packet as discord.js has it, before the bot's handler: the start of "in the bot".
discord.client.on(Events.Raw, (packet: { t?: string; d?: { id?: string } }) => {
  if (packet.t === "INTERACTION_CREATE" && packet.d?.id) mark(packet.d.id, "received");
});
await bot.start();
console.log(JSON.stringify({ ready: true }));

process.stdin.resume();
process.stdin.on("end", async () => {
  await discord.stop();
  await core.close();
  await http.close();
  process.exit(0);
});
