/**
 * The whole bot (Bolt over HTTP, core, engine, sqlite) in a process of its own, so that its memory
 * and its event loop are not shared with the fake Slack, the emulator or the test runner (the
 * memory test and bench/slack-ack use it). It prints its events URL as one JSON line, then
 * answers lines on stdin with one JSON line each, and stops when stdin ends:
 *   measure  -> collects garbage, resets the kernel's peak-RSS mark, answers the resident size
 *   report   -> answers the resident size and its peak since `measure`
 *
 *   node --expose-gc --import tsx bot-process.ts <slackApiUrl> <botToken> <signingSecret> <mediaUrl> <dir> [slackMinuteMs]
 *
 * slackMinuteMs: Slack's rate-limit minute as the fake Slack keeps it (its `tiers`), which the
 * bot's pacing then keeps too, its waits shortened alike; default Slack's real minute.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pino } from "pino";
import { startHttpServer } from "../../src/http/index.js";
import { DEFAULT_PACING, type PacingPolicy } from "../../src/slack/calls.js";
import { startSlack } from "../../src/slack/index.js";
import { openBotCore } from "../bot-core.js";

const [apiUrl, botToken, signingSecret, mediaUrl, dir, slackMinuteMs] = process.argv.slice(2);
if (!apiUrl || !botToken || !signingSecret || !mediaUrl || !dir) throw new Error("usage: see the header");
const silent = pino({ level: "silent" });
const gc = globalThis.gc;
if (!gc) throw new Error("run with --expose-gc");

/** The bot's pacing, backoffs and waits for Slack's files, shortened as much as Slack's minute. */
function compressedPacing(minuteMs: number): Partial<PacingPolicy> {
  const scale = minuteMs / DEFAULT_PACING.minuteMs;
  return {
    minuteMs,
    backoffBaseMs: DEFAULT_PACING.backoffBaseMs * scale,
    backoffMaxMs: DEFAULT_PACING.backoffMaxMs * scale,
    fileReadyMs: DEFAULT_PACING.fileReadyMs * scale,
    fileReadyPollMs: DEFAULT_PACING.fileReadyPollMs * scale,
  };
}

/** Resident and peak resident size in bytes, as the kernel counts them. */
function memory(): { rss: number; peak: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

// One HTTP server whose requests both the Slack side and the job engine yield to, as in the app.
const http = await startHttpServer({ port: 0, logger: silent });
const core = await openBotCore({ mediaUrl, dir, scale: 0.005, logger: silent, intake: http.intake });
const { bot, stores, logger } = core;
const slack = await startSlack({
  http,
  config: { botToken, signingSecret, port: 0, apiUrl },
  bot,
  logger,
  store: stores.keyv("slack"),
  claims: stores.claims,
  clientOptions: { retryConfig: { retries: 0 } },
  ...(slackMinuteMs && { pacing: compressedPacing(Number(slackMinuteMs)) }),
});
await bot.start();
console.log(JSON.stringify({ eventsUrl: slack.eventsUrl }));

for await (const line of createInterface({ input: process.stdin })) {
  if (line === "measure") {
    gc();
    // "5" resets VmHWM to the current resident size (Linux >= 4.0).
    writeFileSync("/proc/self/clear_refs", "5");
    console.log(JSON.stringify(memory()));
  } else if (line === "report") {
    console.log(JSON.stringify(memory()));
  }
}
await slack.stop();
await core.close();
await http.close();
