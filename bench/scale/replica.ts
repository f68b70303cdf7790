/**
 * One replica's job engine in a process of its own, on the shared redis: the real engine, store,
 * liveness and client, with hooks that note every status read (when it began and ended) and every
 * delivery. Several of these on one redis split the tracked jobs between them; the parent merges
 * what they saw.
 *
 * Argument: JSON ReplicaArgs. Messages in: { type: "go" }, { type: "stop" }. Out: { type: "ready" },
 * { type: "delivered", count } (each second), { type: "result", ... } after "stop".
 */
import { pino } from "pino";
import { createMediaClient, fetchStatus } from "../../src/core/api/index.js";
import { createJobEngine } from "../../src/core/jobs/engine.js";
import { type PollPolicy, scaledPolicy } from "../../src/core/jobs/policy.js";
import { openStores } from "../../src/store/index.js";

export interface ReplicaArgs {
  instanceId: string;
  storeUrl: string;
  mediaUrl: string;
  apiKey: string;
  /** How much faster than real time the emulator runs: the policy is compressed as much. */
  speed: number;
  /** When the jobs were created in the store (wall clock): their records' age 0. */
  seededAt: number;
  caps: Pick<PollPolicy, "maxRequestsPerSecond" | "maxConcurrentRequests">;
}

export interface ReplicaResult {
  type: "result";
  instanceId: string;
  /** Per job id: [start, end] of each status read, flattened (wall clock, ms). */
  reads: Record<string, number[]>;
  deliveredAt: Record<string, number>;
  seenDoneAt: Record<string, number>;
  /** Jobs this replica delivered twice. */
  redelivered: string[];
  progressEdits: number;
  peakRssBytes: number;
  cpuSeconds: number;
  /** How long start() took: taking up this replica's share of the jobs. */
  takeUpMs: number;
}

const args = JSON.parse(process.argv[2] ?? "{}") as ReplicaArgs;
const logger = pino({ level: "warn" }, pino.destination(2));
const stores = await openStores(args.storeUrl, undefined, logger);
const client = createMediaClient({ baseUrl: args.mediaUrl });
const api = client.as(args.apiKey);

const reads: Record<string, number[]> = {};
const deliveredAt: Record<string, number> = {};
const seenDoneAt: Record<string, number> = {};
const redelivered: string[] = [];
let progressEdits = 0;
let delivered = 0;

await new Promise<void>((resolve) => {
  process.once("message", () => resolve());
  process.send?.({ type: "ready" });
});
// The records were stamped before "go": the engine's clock is set back so that they are new.
const shift = Date.now() - args.seededAt;
const engine = createJobEngine({
  store: stores.jobs,
  claims: stores.claims,
  indexes: stores.indexes,
  logger,
  policy: scaledPolicy(1 / args.speed, args.caps),
  clock: { now: () => Date.now() - shift },
  instanceId: args.instanceId,
  hooks: {
    async fetchStatus(job, signal) {
      const started = Date.now();
      try {
        const status = await fetchStatus(api, job.kind, job.serviceJobId, { signal });
        if (status.terminal) seenDoneAt[job.id] ??= Date.now();
        return status;
      } finally {
        let list = reads[job.id];
        if (!list) {
          list = [];
          reads[job.id] = list;
        }
        list.push(started, Date.now());
      }
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
      return undefined;
    },
  },
});

let peakRssBytes = 0;
const sampler = setInterval(() => {
  peakRssBytes = Math.max(peakRssBytes, process.memoryUsage().rss);
  process.send?.({ type: "delivered", count: delivered });
}, 1_000);
const cpuBefore = process.cpuUsage();
const startedAt = performance.now();
await engine.start();
const takeUpMs = Math.round(performance.now() - startedAt);

await new Promise<void>((resolve) => process.once("message", () => resolve()));
clearInterval(sampler);
const cpu = process.cpuUsage(cpuBefore);
await engine.stop();
await client.close();
await stores.close();
const result: ReplicaResult = {
  type: "result",
  instanceId: args.instanceId,
  reads,
  deliveredAt,
  seenDoneAt,
  redelivered,
  progressEdits,
  peakRssBytes,
  cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100,
  takeUpMs,
};
process.send?.(result, () => process.exit(0));
