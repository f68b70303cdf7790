/**
 * How fast the Slack side acknowledges a burst: 200 signed `/media image generate ...` requests
 * sent at once to the real Bolt app (HTTP mode), timed from send to Bolt's HTTP answer. Slack
 * gives up after 3 s; the target is p99 < 250 ms. Behind the acks the whole bot works for real
 * (users.info, validation, creation calls at the media API emulator, job messages, polling,
 * uploads), so the acks compete with that work for the event loop, as they would in production.
 * Rounds start once the previous round's work has drained; the figures are medians over rounds
 * (bench/ack.ts).
 *
 * The bot runs in a process of its own (test/slack/bot-process.ts); the fake Slack, the emulator
 * and the requests run here.
 *
 *   npx tsx bench/slack-ack/main.ts [rounds]      (default 5 rounds; prints and writes bench/results/slack-ack.json)
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { startEmulator } from "../../test/fakes/media-api/index.js";
import { sign, startFakeSlack } from "../../test/fakes/slack/index.js";
import {
  type AckResult,
  type Round,
  report,
  roundFigures,
  runRounds,
  startProcess,
  stopProcess,
} from "../ack.js";

const BURST = 200;
const TARGET_P99_MS = 250;
/** The bot runs alone in its process: the fakes and this load generator do not share its event loop. */
const BOT = fileURLToPath(new URL("../../test/slack/bot-process.ts", import.meta.url));

export type { Round };
export type SlackAckResult = AckResult<"slack-ack">;

/**
 * Sends a burst and times each answer, on a thread of its own: this process also runs the fake
 * Slack and the emulator, which the bot keeps busy right after its acks, and their work must not
 * delay reading the acks. Plain node:http, so the figures are the bot's and not a heavy client's.
 */
const SENDER = `
const { parentPort } = require("node:worker_threads");
const http = require("node:http");
// A new connection per request, as Slack's deliveries come: no idle keep-alive socket that the
// server closes between rounds just as it is reused.
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
function send(url, { body, headers }) {
  return new Promise((resolve) => {
    const start = performance.now();
    const done = (ok) => resolve({ ms: performance.now() - start, ok });
    const req = http.request(url, { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode === 200));
    });
    req.on("error", () => done(false));
    req.end(body);
  });
}
parentPort.on("message", ({ url, requests }) => {
  Promise.all(requests.map((r) => send(url, r))).then((timed) => parentPort.postMessage(timed));
});
`;

/** Measures, prints the figures and writes them to bench/results/slack-ack.json. */
export async function run(rounds = 5): Promise<SlackAckResult> {
  const result = await measure(rounds);
  report(result, "signed slash commands at once");
  return result;
}

async function measure(rounds: number): Promise<SlackAckResult> {
  const fake = await startFakeSlack();
  const emulator = await startEmulator({ timeScale: 0.01 });
  emulator.account("test-key").creditsLimit = 1_000_000_000;
  const dir = mkdtempSync(join(tmpdir(), "bench-slack-ack-"));
  const bot = await startProcess<{ eventsUrl: string }>(
    BOT,
    [fake.apiUrl, fake.botToken, fake.signingSecret, emulator.url, dir],
    ["--expose-gc"],
  );
  const url = bot.info.eventsUrl;

  const sender = new Worker(SENDER, { eval: true });

  /**
   * A signed request as Slack sends it, signed before the clock starts. Each comes from a person
   * of its own (a team at once, not three people typing 200 commands), so no one hits the
   * per-person job limit or drags a long job history along; users.info does not know these ids,
   * which the bot takes as "not an admin".
   */
  function signed(text: string, user: string) {
    const payload = { ...fake.payloads.slashCommand({ text }).payload, user_id: user, user_name: user };
    const body = new URLSearchParams(payload).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      body,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": sign(fake.signingSecret, timestamp, body),
      },
    };
  }

  /**
   * One burst: every request built first, then all sent in the same tick. Answers other than 200
   * count as failed (a late ack is a 404 from Bolt).
   */
  async function burst(round: number): Promise<Round> {
    const requests = Array.from({ length: BURST }, (_, i) =>
      signed(`image generate a red fox number ${round}-${i} --seed ${i}`, `U0BENCH${round + 1}X${i}`),
    );
    sender.postMessage({ url, requests });
    const [timed] = (await once(sender, "message")) as [{ ms: number; ok: boolean }[]];
    return roundFigures(
      timed.map((t) => t.ms),
      timed.filter((t) => !t.ok).length,
    );
  }

  try {
    return await runRounds({
      name: "slack-ack",
      burst: BURST,
      targetP99: TARGET_P99_MS,
      rounds,
      send: burst,
      // Calls to Slack or the service: both fakes run here.
      calls: () => fake.calls.length + emulator.calls.length,
    });
  } finally {
    await sender.terminate();
    await stopProcess(bot.child);
    await emulator.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run(Number(process.argv[2] ?? 5));
  process.exitCode = result.pass ? 0 : 1;
}
