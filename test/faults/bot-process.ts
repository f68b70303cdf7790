/**
 * The whole bot in a process of its own, on Discord and Slack at once, with the process guard
 * src/main.ts installs: a fault that escaped would end this process (or show up as a guard line
 * in its log), never the test runner. It logs pino JSON lines (warn and above) on stdout, prints
 * one line `{"ready": true, "eventsUrl": ...}` once started, and stops when stdin ends.
 *
 *   node --import tsx bot-process.ts '<json of BotProcessOptions>'
 */
import { createInterface } from "node:readline";
import { pino } from "pino";
import { startDiscord } from "../../src/discord/index.js";
import { guardProcess } from "../../src/process-guard.js";
import { startSlack } from "../../src/slack/index.js";
import { openBotCore } from "../bot-core.js";

export interface BotProcessOptions {
  mediaUrl: string;
  dir: string;
  /** The media client's timeout per call: short, so that a slow service is a timeout in milliseconds. */
  timeoutMs: number;
  discord: { token: string; restUrl: string; guildId: string };
  slack: { botToken: string; signingSecret: string; apiUrl: string };
}

const options = JSON.parse(process.argv[2] ?? "") as BotProcessOptions;
const logger = pino({ level: "warn" });
guardProcess(logger);

const core = await openBotCore({
  mediaUrl: options.mediaUrl,
  dir: options.dir,
  scale: 0.005,
  timeoutMs: options.timeoutMs,
  logger,
});
const discord = await startDiscord({
  config: options.discord,
  bot: core.bot,
  logger,
  store: core.stores.keyv("discord"),
  stores: core.stores,
});
const slack = await startSlack({
  config: { ...options.slack, port: 0 },
  bot: core.bot,
  logger,
  store: core.stores.keyv("slack"),
  claims: core.stores.claims,
  clientOptions: { retryConfig: { retries: 0 } },
});
await core.bot.start();
console.log(JSON.stringify({ ready: true, eventsUrl: slack.eventsUrl }));

for await (const _ of createInterface({ input: process.stdin })) {
  // Lines are not commands: the process only waits for stdin to end.
}
await discord.stop();
await slack.stop();
await core.close();
