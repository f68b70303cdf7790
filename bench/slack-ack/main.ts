/**
 * How fast the Slack side acknowledges a burst: 200 signed `/media image generate ...` requests
 * sent at once to the real Bolt app (HTTP mode), timed from send to Bolt's HTTP answer. Slack
 * gives up after 3 s; the target is p99 < 250 ms. Behind the acks the whole bot works for real
 * (users.info, validation, creation calls at the media API emulator, job messages, polling,
 * uploads), so the acks compete with that work for the event loop, as they would in production.
 * Rounds start once the previous round's work has drained; the figures are medians over rounds.
 *
 * The bot runs in a process of its own (test/slack/bot-process.ts); the fake Slack, the emulator
 * and the requests run here.
 *
 *   npx tsx bench/slack-ack/main.ts [rounds]      (default 5 rounds; prints and writes bench/results/slack-ack.json)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { startEmulator } from "../../test/fakes/media-api/index.js";
import { sign, startFakeSlack } from "../../test/fakes/slack/index.js";

const BURST = 200;
const TARGET_P99_MS = 250;
const RESULTS = fileURLToPath(new URL("../results/slack-ack.json", import.meta.url));
/** The bot runs alone in its process: the fakes and this load generator do not share its event loop. */
const BOT = fileURLToPath(new URL("../../test/slack/bot-process.ts", import.meta.url));

export interface Round {
  p50: number;
  p99: number;
  max: number;
  /** Answers other than 200 (a late ack is a 404 from Bolt). */
  failed: number;
}

export interface SlackAckResult {
  name: "slack-ack";
  burst: number;
  rounds: Round[];
  /** Medians over the rounds, in ms. */
  p50: number;
  p99: number;
  targetP99: number;
  pass: boolean;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const ms = (value: number) => Math.round(value * 10) / 10;

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

/** Starts the bot process and resolves with its events URL. */
async function startBot(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", BOT, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return { child, url: (JSON.parse(line) as { eventsUrl: string }).eventsUrl };
}

/** Measures, prints the figures and writes them to bench/results/slack-ack.json. */
export async function run(rounds = 5): Promise<SlackAckResult> {
  const result = await measure(rounds);
  for (const [i, r] of result.rounds.entries()) {
    console.log(`round ${i + 1}: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, failed ${r.failed}`);
  }
  console.log(
    `slack-ack: ${result.burst} signed slash commands at once; median p50 ${result.p50} ms, median p99 ${result.p99} ms (target < ${result.targetP99} ms): ${result.pass ? "PASS" : "FAIL"}`,
  );
  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(
    RESULTS,
    `${JSON.stringify({ ...result, node: process.version, at: new Date().toISOString() }, null, 2)}\n`,
  );
  return result;
}

async function measure(rounds: number): Promise<SlackAckResult> {
  const fake = await startFakeSlack();
  const emulator = await startEmulator({ timeScale: 0.01 });
  emulator.account("test-key").creditsLimit = 1_000_000_000;
  const dir = mkdtempSync(join(tmpdir(), "bench-slack-ack-"));
  const { child, url } = await startBot([fake.apiUrl, fake.botToken, fake.signingSecret, emulator.url, dir]);

  /**
   * Waits until the work behind the acks has drained (no call to Slack or the service for half a
   * second), so each round starts from the same place instead of from the previous round's jobs.
   */
  async function settle(): Promise<void> {
    const calls = () => fake.calls.length + emulator.calls.length;
    let seen = -1;
    while (calls() !== seen) {
      seen = calls();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

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

  /** One burst: every request built first, then all sent in the same tick. */
  async function burst(round: number): Promise<Round> {
    const requests = Array.from({ length: BURST }, (_, i) =>
      signed(`image generate a red fox number ${round}-${i} --seed ${i}`, `U0BENCH${round + 1}X${i}`),
    );
    sender.postMessage({ url, requests });
    const [timed] = (await once(sender, "message")) as [{ ms: number; ok: boolean }[]];
    const sorted = timed.map((t) => t.ms).sort((a, b) => a - b);
    return {
      p50: ms(percentile(sorted, 50)),
      p99: ms(percentile(sorted, 99)),
      max: ms(sorted.at(-1)!),
      failed: timed.filter((t) => !t.ok).length,
    };
  }

  try {
    // Warm-up: modules, JIT, connections and caches are not what is measured.
    await burst(-1);
    await settle();
    const measured: Round[] = [];
    for (let round = 0; round < rounds; round += 1) {
      measured.push(await burst(round));
      await settle();
    }
    const p99 = median(measured.map((r) => r.p99));
    return {
      name: "slack-ack",
      burst: BURST,
      rounds: measured,
      p50: median(measured.map((r) => r.p50)),
      p99,
      targetP99: TARGET_P99_MS,
      pass: p99 < TARGET_P99_MS && measured.every((r) => r.failed === 0),
    };
  } finally {
    await sender.terminate();
    child.stdin!.end();
    if (child.exitCode === null) await once(child, "exit");
    await emulator.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run(Number(process.argv[2] ?? 5));
  process.exitCode = result.pass ? 0 : 1;
}
