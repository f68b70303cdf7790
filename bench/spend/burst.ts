/**
 * What budgets cost a burst: `starts` paid starts at once in one tenant, through 1 and through 3
 * replicas (processes of their own, replica.ts) on one store, sqlite and redis, each start a real
 * creation call to the emulator (a process of its own). The same burst is timed with spending
 * (probe, budgets, the atomic check and reservation; then the record and the settlement, once
 * the starts under way have made their calls) and without it (the creation call alone); the figure is the ratio of their wall times, median of the rounds,
 * the two kinds of rounds taken in turn so that the machine's load falls on both alike. Target:
 * within 1.5 times.
 *
 * Then what the budgets hold to: the same starts against an `everyone` budget of three quarters
 * of them make exactly that many jobs, and 2,000 at once (against 1,500) never give up: every
 * start is made or refused by its budget, none fails.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Budget } from "../../src/store/index.js";
import { openStores } from "../../src/store/index.js";
import { startProcess, stopProcess } from "../ack.js";
import { BenchRedis } from "../scale/redis.js";
import { median } from "../stats.js";
import type { BurstAnswer, BurstOrder } from "./replica.js";

const REPLICA = fileURLToPath(new URL("./replica.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("../discord-ack/emulator-process.ts", import.meta.url));

export const BURST_TARGET_RATIO = 1.5;

export type Backend = "sqlite" | "redis";

export interface BurstFigures {
  backend: Backend;
  replicas: number;
  starts: number;
  /** Wall time of each round, ms: with spending, and the same burst without it. */
  withMs: number[];
  /** With spending, until the last start's bookkeeping had landed, ms. */
  settledMs: number[];
  medianSettledMs: number;
  withoutMs: number[];
  /** When the last creation call of the burst began, median ms after the common start: with, without. */
  medianCalledWithMs: number;
  medianCalledWithoutMs: number;
  medianWithMs: number;
  medianWithoutMs: number;
  ratio: number;
  /** Starts that failed (a store that gave up...): must be 0. */
  failed: number;
}

export interface HoldFigures {
  backend: Backend;
  replicas: number;
  starts: number;
  limit: number;
  made: number;
  refused: number;
  failed: number;
  wallMs: number;
}

class Replica {
  private constructor(
    private readonly child: ChildProcess,
    private readonly lines: AsyncIterator<string>,
    private readonly reader: Interface,
  ) {}

  static async start(storeUrl: string, mediaUrl: string): Promise<Replica> {
    const child = spawn(process.execPath, ["--import", "tsx", REPLICA, storeUrl, mediaUrl], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const reader = createInterface({ input: child.stdout! });
    const lines = reader[Symbol.asyncIterator]();
    const ready = await lines.next();
    if (ready.done) throw new Error("a replica ended before it was ready");
    return new Replica(child, lines, reader);
  }

  async burst(order: BurstOrder): Promise<BurstAnswer> {
    this.child.stdin!.write(`${JSON.stringify(order)}\n`);
    const line = await this.lines.next();
    if (line.done) throw new Error("a replica ended during a burst");
    return JSON.parse(line.value) as BurstAnswer;
  }

  async stop(): Promise<void> {
    this.child.stdin!.end();
    if (this.child.exitCode === null) await once(this.child, "exit");
    this.reader.close();
  }
}

let tenants = 0;

/** One burst of `starts` split over the replicas, all begun together; its wall time and outcomes. */
async function burstOnce(
  replicas: readonly Replica[],
  order: { tenantId: string; starts: number; spending: boolean },
): Promise<{
  wallMs: number;
  calledMs: number;
  settledMs: number;
  made: number;
  refused: number;
  failed: number;
  error?: string;
}> {
  const at = Date.now() + 300;
  const share = Math.floor(order.starts / replicas.length);
  const answers = await Promise.all(
    replicas.map((replica, i) =>
      replica.burst({
        tenantId: order.tenantId,
        starts: i === replicas.length - 1 ? order.starts - share * (replicas.length - 1) : share,
        prefix: `R${i}X`,
        spending: order.spending,
        at,
      }),
    ),
  );
  const sum = (key: "made" | "refused" | "failed") => answers.reduce((total, a) => total + a[key], 0);
  const error = answers.find((a) => a.error)?.error;
  return {
    wallMs: Math.max(...answers.map((a) => a.endedAt)) - at,
    calledMs: Math.max(...answers.map((a) => a.calledAt)) - at,
    settledMs: Math.max(...answers.map((a) => a.settledAt)) - at,
    made: sum("made"),
    refused: sum("refused"),
    failed: sum("failed"),
    ...(error && { error }),
  };
}

async function withBudgets(storeUrl: string, rules: Budget[]): Promise<string> {
  tenants += 1;
  const tenantId = `TBURST${process.pid}X${tenants}`;
  const stores = await openStores(storeUrl);
  try {
    await stores.spend.changeBudgets({ platform: "slack", tenantId }, () => rules);
  } finally {
    await stores.close();
  }
  return tenantId;
}

/** Budgets that bind every start and refuse none: the bookkeeping is all there is to see. */
const BINDING: Budget[] = [
  { scope: "everyone", id: "", unit: "credits", limit: 10_000_000 },
  { scope: "user", id: "*", unit: "jobs", limit: 1_000 },
];

export async function measureBursts(
  starts: number,
  rounds: number,
  big: number,
): Promise<{ bursts: BurstFigures[]; holds: HoldFigures[] }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-spend-burst-"));
  const emulator = await startProcess<{ url: string }>(EMULATOR, []);
  const redis = await BenchRedis.start(dir);
  const bursts: BurstFigures[] = [];
  const holds: HoldFigures[] = [];
  try {
    for (const backend of ["sqlite", "redis"] as const) {
      const url = backend === "sqlite" ? `sqlite://${join(dir, "burst.sqlite")}` : redis.url;
      for (const count of [1, 3]) {
        const replicas = await Promise.all(
          Array.from({ length: count }, () => Replica.start(url, emulator.info.url)),
        );
        try {
          // Warm-up: modules, connections, JIT, both ways; not measured.
          for (const spending of [false, true]) {
            await burstOnce(replicas, { tenantId: await withBudgets(url, BINDING), starts, spending });
          }
          const withMs: number[] = [];
          const settledMs: number[] = [];
          const withoutMs: number[] = [];
          const called = { with: [] as number[], without: [] as number[] };
          let failed = 0;
          for (let round = 0; round < rounds; round += 1) {
            for (const spending of [false, true]) {
              const tenantId = await withBudgets(url, BINDING);
              const result = await burstOnce(replicas, { tenantId, starts, spending });
              (spending ? withMs : withoutMs).push(result.wallMs);
              called[spending ? "with" : "without"].push(result.calledMs);
              if (spending) settledMs.push(result.settledMs);
              failed += result.failed;
              if (result.error) console.error(`  ${backend} x${count}: ${result.error}`);
            }
          }
          const figures: BurstFigures = {
            backend,
            replicas: count,
            starts,
            withMs,
            settledMs,
            medianSettledMs: median(settledMs),
            withoutMs,
            medianCalledWithMs: median(called.with),
            medianCalledWithoutMs: median(called.without),
            medianWithMs: median(withMs),
            medianWithoutMs: median(withoutMs),
            ratio: Math.round((median(withMs) / median(withoutMs)) * 100) / 100,
            failed,
          };
          bursts.push(figures);
          console.log(
            `burst ${backend} x${count} replicas, ${starts} at once: with spending ${figures.medianWithMs} ms (last creation call began at ${figures.medianCalledWithMs} ms against ${figures.medianCalledWithoutMs} without; bookkeeping landed at ${figures.medianSettledMs} ms), without ${figures.medianWithoutMs} ms (median of ${rounds}); ratio ${figures.ratio} (target <= ${BURST_TARGET_RATIO}); failed ${failed}`,
          );
          if (count === 3) {
            for (const [total, limit] of [
              [starts, Math.floor((starts * 3) / 4)],
              [big, Math.floor((big * 3) / 4)],
            ] as const) {
              const tenantId = await withBudgets(url, [{ scope: "everyone", id: "", unit: "jobs", limit }]);
              const result = await burstOnce(replicas, { tenantId, starts: total, spending: true });
              holds.push({ backend, replicas: count, starts: total, limit, ...result });
              console.log(
                `hold ${backend} x${count}: ${total} at once against ${limit} jobs: made ${result.made}, refused ${result.refused}, failed ${result.failed}, ${result.wallMs} ms`,
              );
              if (result.error) console.error(`  ${result.error}`);
            }
          }
        } finally {
          await Promise.all(replicas.map((replica) => replica.stop()));
        }
      }
    }
  } finally {
    await redis.stop();
    await stopProcess(emulator.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return { bursts, holds };
}
