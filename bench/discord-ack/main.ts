/**
 * How fast the Discord side acknowledges a burst: 200 `/image generate` interactions dispatched
 * at once through the fake gateway to the real discord.js client, timed from the dispatch to
 * the defer callback the fake receives (both on the fake's clock). Discord gives up after 3 s;
 * the target is p99 < 250 ms. Behind the defers the whole bot works for real (validation,
 * creation calls at the emulator, job messages, polling, uploads), so the defers compete with
 * that work for the event loop, as they would in production. Each command comes from a person of
 * its own (a server at once, not one person typing 200 commands); rounds start once the previous
 * round's work has drained, and the figures are medians over rounds.
 *
 * The bot, the emulator and the fake Discord each run in a process of their own, so that only the
 * bot's event loop is measured.
 *
 *   npx tsx bench/discord-ack/main.ts [rounds]      (default 5; prints and writes bench/results/discord-ack.json)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DISCORD_LIMITS } from "../../src/discord/limits.js";
import {
  type FakeDiscord,
  type InjectedInteraction,
  startFakeDiscord,
} from "../../test/fakes/discord/index.js";

const BURST = 200;
const TARGET_P99_MS = 250;
const RESULTS = fileURLToPath(new URL("../results/discord-ack.json", import.meta.url));
const BOT = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("./emulator-process.ts", import.meta.url));

export interface Round {
  p50: number;
  p99: number;
  max: number;
  /** Interactions without a defer within Discord's 3 s (later ones are refused, so they never arrive). */
  failed: number;
}

export interface DiscordAckResult {
  name: "discord-ack";
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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a helper process and resolves with the JSON of its first line. */
async function start<T>(script: string, args: string[]): Promise<{ child: ChildProcess; info: T }> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return { child, info: JSON.parse(line) as T };
}

async function stop(child: ChildProcess): Promise<void> {
  child.stdin!.end();
  if (child.exitCode === null) await once(child, "exit");
}

/** Waits until the work behind the defers has drained: no request to Discord for half a second. */
async function settle(fake: FakeDiscord): Promise<void> {
  let seen = -1;
  while (fake.calls.length !== seen) {
    seen = fake.calls.length;
    await sleep(500);
  }
}

async function burst(fake: FakeDiscord, round: number): Promise<Round> {
  const users = Array.from({ length: BURST }, (_, i) => fake.addUser(`bench${round + 1}x${i}`));
  const sent: InjectedInteraction[] = await Promise.all(
    users.map((user, i) =>
      fake.sendCommand({
        name: "image",
        subcommand: "generate",
        options: { prompt: `a red fox number ${round}-${i}`, seed: i },
        user,
      }),
    ),
  );
  const deferredAt = (i: InjectedInteraction) => fake.callbacks(i.id)[0]?.at;
  await fake
    .waitFor(() => sent.every((i) => deferredAt(i) !== undefined), DISCORD_LIMITS.firstResponseMs + 500)
    .catch(() => undefined);
  const timed = sent.flatMap((i) => {
    const at = deferredAt(i);
    return at === undefined ? [] : [at - fake.interaction(i.id)!.createdAt];
  });
  const sorted = timed.sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1)!,
    failed: BURST - timed.length,
  };
}

export async function run(rounds = 5): Promise<DiscordAckResult> {
  const fake = await startFakeDiscord();
  const dir = mkdtempSync(join(tmpdir(), "bench-discord-ack-"));
  const emulator = await start<{ url: string }>(EMULATOR, []);
  const bot = await start<{ ready: boolean }>(BOT, [
    fake.restUrl,
    fake.token,
    fake.guild.id,
    emulator.info.url,
    dir,
  ]);
  try {
    // Warm-up: modules, JIT, connections and caches are not what is measured.
    await burst(fake, -1);
    await settle(fake);
    const measured: Round[] = [];
    for (let round = 0; round < rounds; round += 1) {
      measured.push(await burst(fake, round));
      await settle(fake);
    }
    const p99 = median(measured.map((r) => r.p99));
    return {
      name: "discord-ack",
      burst: BURST,
      rounds: measured,
      p50: median(measured.map((r) => r.p50)),
      p99,
      targetP99: TARGET_P99_MS,
      pass: p99 < TARGET_P99_MS && measured.every((r) => r.failed === 0),
    };
  } finally {
    await stop(bot.child);
    await stop(emulator.child);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run(Number(process.argv[2] ?? 5));
  for (const [i, r] of result.rounds.entries()) {
    console.log(`round ${i + 1}: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, failed ${r.failed}`);
  }
  console.log(
    `discord-ack: ${result.burst} slash commands dispatched at once; median p50 ${result.p50} ms, median p99 ${result.p99} ms (target < ${result.targetP99} ms): ${result.pass ? "PASS" : "FAIL"}`,
  );
  mkdirSync(join(RESULTS, ".."), { recursive: true });
  writeFileSync(
    RESULTS,
    `${JSON.stringify({ ...result, node: process.version, at: new Date().toISOString() }, null, 2)}\n`,
  );
  process.exitCode = result.pass ? 0 : 1;
}
