/**
 * The Discord gateway floor for bench/discord-ack: discord.js's own client, made as the bot makes
 * it (src/discord/client.ts: the same intents and REST options), logged in to a fake Discord of
 * its own, with a handler that only defers each interaction (a deferred reply, as the bot's acks
 * are), in a process of its own as the bot is. Prints one JSON line once connected; stops when
 * stdin ends.
 *
 *   node --import tsx gateway-process.ts <restUrl> <token>
 */
import { once } from "node:events";
import { Events } from "discord.js";
import { createDiscordClient } from "../../src/discord/client.js";

const [restUrl, token] = process.argv.slice(2);
if (!restUrl || !token) throw new Error("usage: see the header");

const client = createDiscordClient({ token, restUrl });
client.on(Events.InteractionCreate, (interaction) => {
  if (interaction.isRepliable()) interaction.deferReply().catch((error: unknown) => console.error(error));
});
const ready = once(client, Events.ClientReady);
await client.login(token);
await ready;
console.log(JSON.stringify({ ready: true }));

process.stdin.resume();
process.stdin.on("end", () => {
  void client.destroy().then(() => process.exit(0));
});
