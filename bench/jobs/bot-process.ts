/**
 * One polling strategy in a process of its own: the real engine, store (a sqlite file), client
 * and normalizer, with hooks that only note what happens. It measures itself: peak RSS (sampled
 * every 50 ms) and event-loop delay (perf_hooks histogram), from the moment it starts the engine
 * until the last job is delivered.
 *
 * Argument: JSON BotArgs. Messages in: { type: "go", at }. Out: { type: "ready" }, { type: "done", ... }.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pino } from "pino";
import { createMediaClient, fetchStatus } from "../../src/core/api/index.js";
import { createJobEngine } from "../../src/core/jobs/engine.js";
import { fixedPolicy, type PollPolicy, scaledPolicy } from "../../src/core/jobs/policy.js";
import { openStores } from "../../src/store/index.js";

export type Strategy = "adaptive" | "naive";

export interface BotArgs {
  strategy: Strategy;
  storeUrl: string;
  mediaUrl: string;
  apiKey: string;
  /** How much faster than real time the emulator runs: the policy is compressed as much. */
  speed: number;
  /** When the jobs were created in the store (wall clock): their records' age 0. */
  seededAt: number;
  jobs: number;
  caps: Pick<PollPolicy, "maxRequestsPerSecond" | "maxConcurrentRequests">;
}

export interface BotResult {
  type: "done";
  strategy: Strategy;
  /** Status reads per job id. */
  reads: Record<string, number>;
  /** Wall-clock time of each job's delivery. */
  deliveredAt: Record<string, number>;
  /** Wall-clock time of the first status read that found the job finished. */
  seenDoneAt: Record<string, number>;
  /** Jobs delivered more than once (must stay empty). */
  redelivered: string[];
  progressEdits: number;
  peakRssBytes: number;
  /** JavaScript heap in use (live objects and garbage not yet collected) at its highest sample. */
  peakHeapBytes: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  /** How long start() took to take up every job. */
  startMs: number;
  /** From start() to the last delivery. */
  wallMs: number;
  /** This process's CPU (main thread, and the threads sqlite and libuv run on) over `wallMs`. */
  cpuUserMs: number;
  cpuSystemMs: number;
  /** Per second of the run: the CPU spent, the status reads and the deliveries made. */
  seconds: { cpuMs: number; reads: number; deliveries: number }[];
}

const args = JSON.parse(process.argv[2] ?? "{}") as BotArgs;
const logger = pino({ level: "warn" }, pino.destination(2));
const stores = await openStores(args.storeUrl, undefined, logger);
const client = createMediaClient({ baseUrl: args.mediaUrl });
const api = client.as(args.apiKey);

const reads: Record<string, number> = {};
let readCount = 0;
const deliveredAt: Record<string, number> = {};
const seenDoneAt: Record<string, number> = {};
const redelivered: string[] = [];
let progressEdits = 0;
let delivered = 0;
let allDelivered: () => void;
const finished = new Promise<void>((resolve) => {
  allDelivered = resolve;
});

const scaled = scaledPolicy(1 / args.speed, args.caps);
const policy = args.strategy === "adaptive" ? scaled : fixedPolicy(2_000 / args.speed, scaled);

const go = await new Promise<number>((resolve) => {
  process.on("message", (message: { type: "go"; at: number }) => resolve(message.at));
  process.send?.({ type: "ready" });
});

// The records were stamped `seededAt` while the emulator's clock stood still: the engine's clock is
// set back so that, at "go", every record is as old as its service job (brand new).
const shift = go - args.seededAt;
const engine = createJobEngine({
  store: stores.jobs,
  claims: stores.claims,
  indexes: stores.indexes,
  logger,
  policy,
  clock: { now: () => Date.now() - shift },
  hooks: {
    async fetchStatus(job, signal) {
      reads[job.id] = (reads[job.id] ?? 0) + 1;
      readCount += 1;
      const status = await fetchStatus(api, job.kind, job.serviceJobId, { signal });
      if (status.terminal) seenDoneAt[job.id] ??= Date.now();
      return status;
    },
    async showProgress() {
      progressEdits += 1;
    },
    async deliver(job) {
      if (deliveredAt[job.id] !== undefined) {
        redelivered.push(job.id);
        return undefined;
      }
      deliveredAt[job.id] = Date.now();
      delivered += 1;
      if (delivered >= args.jobs) allDelivered();
      return undefined;
    },
  },
});

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
let peakRssBytes = 0;
let peakHeapBytes = 0;
const sample = () => {
  const { rss, heapUsed } = process.memoryUsage();
  peakRssBytes = Math.max(peakRssBytes, rss);
  peakHeapBytes = Math.max(peakHeapBytes, heapUsed);
};
sample();
const sampler = setInterval(sample, 50);
const cpuBefore = process.cpuUsage();
// Each second's CPU beside its reads and deliveries: what a read and a delivery cost apart
// (a least-squares fit in report.ts) rather than all of the CPU charged to one of them.
const seconds: BotResult["seconds"] = [];
let last = { cpu: cpuBefore, reads: 0, deliveries: 0 };
const second = () => {
  const cpu = process.cpuUsage();
  const spent = process.cpuUsage(last.cpu);
  seconds.push({
    cpuMs: (spent.user + spent.system) / 1000,
    reads: readCount - last.reads,
    deliveries: delivered - last.deliveries,
  });
  last = { cpu, reads: readCount, deliveries: delivered };
};
const perSecond = setInterval(second, 1_000);
loopDelay.enable();

const startedAt = performance.now();
await engine.start();
const startMs = performance.now() - startedAt;
await finished;
const wallMs = performance.now() - startedAt;

loopDelay.disable();
clearInterval(sampler);
clearInterval(perSecond);
second();
const cpu = process.cpuUsage(cpuBefore);
await engine.stop();
await client.close();
await stores.close();

const ms = (ns: number) => Math.round(ns / 1e4) / 100;
const result: BotResult = {
  type: "done",
  strategy: args.strategy,
  reads,
  deliveredAt,
  seenDoneAt,
  redelivered,
  progressEdits,
  peakRssBytes,
  peakHeapBytes,
  eventLoopDelayMs: {
    p50: ms(loopDelay.percentile(50)),
    p99: ms(loopDelay.percentile(99)),
    max: ms(loopDelay.max),
  },
  startMs: Math.round(startMs),
  wallMs: Math.round(wallMs),
  cpuUserMs: Math.round(cpu.user / 1000),
  cpuSystemMs: Math.round(cpu.system / 1000),
  seconds,
};
process.send?.(result, () => process.exit(0));
