/**
 * What the acknowledgement benchmarks (bench/discord-ack, bench/slack-ack) share: a burst's
 * figures, the warm-up and measured rounds with their medians and verdict, the printed lines and
 * bench/results/<name>.json, and the helper processes they run the bot (or the emulator) in.
 * Each benchmark keeps its own way of sending a burst and timing the acks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { median, percentile } from "./stats.js";

export interface Round {
  p50: number;
  p99: number;
  max: number;
  /** Commands not acknowledged in time; each benchmark says how it tells. */
  failed: number;
}

export interface AckResult<Name extends string = string> {
  name: Name;
  burst: number;
  rounds: Round[];
  /** Medians over the rounds, in ms. */
  p50: number;
  p99: number;
  targetP99: number;
  pass: boolean;
}

const ms = (value: number) => Math.round(value * 10) / 10;
const sleep = (time: number) => new Promise((resolve) => setTimeout(resolve, time));

/** One burst's figures from each command's time to its ack in ms (rounded to 0.1 ms). */
export function roundFigures(times: readonly number[], failed: number): Round {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: ms(percentile(sorted, 50)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted.at(-1) ?? 0),
    failed,
  };
}

/**
 * Waits until the work behind the acks has drained (the count of calls the fakes received unchanged
 * for half a second), so each round starts from the same place instead of from the previous
 * round's jobs.
 */
async function settle(count: () => number): Promise<void> {
  let seen = -1;
  while (count() !== seen) {
    seen = count();
    await sleep(500);
  }
}

export interface AckBenchmark<Name extends string> {
  name: Name;
  /** Commands per burst. */
  burst: number;
  targetP99: number;
  rounds: number;
  /** Sends one burst and times its acks; round -1 is the warm-up. */
  send(round: number): Promise<Round>;
  /** Calls the fakes have received so far: the work behind the acks has drained once it stands still. */
  calls(): number;
}

/** A warm-up burst, then `rounds` measured ones, each once the previous one's work has drained. */
export async function runRounds<Name extends string>(
  benchmark: AckBenchmark<Name>,
): Promise<AckResult<Name>> {
  // Warm-up: modules, JIT, connections and caches are not what is measured.
  await benchmark.send(-1);
  await settle(() => benchmark.calls());
  const measured: Round[] = [];
  for (let round = 0; round < benchmark.rounds; round += 1) {
    measured.push(await benchmark.send(round));
    await settle(() => benchmark.calls());
  }
  const p99 = median(measured.map((r) => r.p99));
  return {
    name: benchmark.name,
    burst: benchmark.burst,
    rounds: measured,
    p50: median(measured.map((r) => r.p50)),
    p99,
    targetP99: benchmark.targetP99,
    pass: p99 < benchmark.targetP99 && measured.every((r) => r.failed === 0),
  };
}

/**
 * Prints each round and the verdict, and writes the result to bench/results/<name>.json.
 * `burst` says what a burst is, as in "200 slash commands dispatched at once".
 */
export function report(result: AckResult, burst: string): void {
  for (const [i, r] of result.rounds.entries()) {
    console.log(`round ${i + 1}: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, failed ${r.failed}`);
  }
  console.log(
    `${result.name}: ${result.burst} ${burst}; median p50 ${result.p50} ms, median p99 ${result.p99} ms (target < ${result.targetP99} ms): ${result.pass ? "PASS" : "FAIL"}`,
  );
  const file = fileURLToPath(new URL(`./results/${result.name}.json`, import.meta.url));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify({ ...result, node: process.version, at: new Date().toISOString() }, null, 2)}\n`,
  );
}

/**
 * Starts a TypeScript helper process (`nodeOptions` go before tsx's) and resolves with the JSON of
 * its first stdout line, which it prints once ready. Its stderr is ours, so its errors show.
 */
export async function startProcess<T>(
  script: string,
  args: string[],
  nodeOptions: string[] = [],
): Promise<{ child: ChildProcess; info: T }> {
  const child = spawn(process.execPath, [...nodeOptions, "--import", "tsx", script, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return { child, info: JSON.parse(line) as T };
}

/** Ends the helper's stdin, its signal to stop, and waits until it has exited. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  child.stdin!.end();
  if (child.exitCode === null) await once(child, "exit");
}
