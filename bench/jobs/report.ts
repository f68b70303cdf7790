import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { percentile } from "../stats.js";
import type { BotResult, Strategy } from "./bot-process.js";
import { MIX } from "./mix.js";
import type { SeededJob } from "./seed.js";

export interface Figures {
  requestsPerJob: number;
  /** Completion (the emulator's plan) to the deliver call, in service time. */
  delayP50Ms: number;
  delayP95Ms: number;
  delayMaxMs: number;
  /** The two parts of the delay: completion to the read that saw it, and that read to the deliver call. */
  pollLagP95Ms: number;
  engineLatencyP95Ms: number;
  peakRssMb: number;
  peakHeapMb: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  cpuSeconds: number;
  startSeconds: number;
  progressEditsPerJob: number;
  redelivered: number;
  byLabel: Record<string, { requestsPerJob: number; delayP95Ms: number }>;
}

export type RunFigures = Record<Strategy, Figures> & {
  /** Status reads the emulator answered, against the sum of both bots' counts. */
  emulatorStatusReads: number;
  seedSeconds: number;
  runSeconds: number;
};

export interface Settings {
  jobs: number;
  speed: number;
  runs: number;
  caps: { maxRequestsPerSecond: number; maxConcurrentRequests: number };
}

/** One strategy's figures from its bot's result and the jobs' planned completions. */
export function figures(result: BotResult, jobs: SeededJob[], goAt: number, speed: number): Figures {
  const delays: number[] = [];
  const lags: number[] = [];
  const latencies: number[] = [];
  const byLabel = new Map<string, { reads: number; delays: number[] }>();
  let reads = 0;
  for (const job of jobs) {
    const delivered = result.deliveredAt[job.id];
    if (delivered === undefined) throw new Error(`${result.strategy}: job ${job.id} was never delivered`);
    const completed = goAt + job.durationMs / speed;
    const seen = result.seenDoneAt[job.id] ?? delivered;
    const delay = (delivered - completed) * speed;
    lags.push((seen - completed) * speed);
    latencies.push((delivered - seen) * speed);
    const label = byLabel.get(job.label) ?? { reads: 0, delays: [] };
    label.reads += result.reads[job.id] ?? 0;
    label.delays.push(delay);
    byLabel.set(job.label, label);
    reads += result.reads[job.id] ?? 0;
    delays.push(delay);
  }
  const ascending = (a: number, b: number) => a - b;
  delays.sort(ascending);
  return {
    requestsPerJob: round(reads / jobs.length, 2),
    delayP50Ms: Math.round(percentile(delays, 50)),
    delayP95Ms: Math.round(percentile(delays, 95)),
    delayMaxMs: Math.round(delays.at(-1) ?? 0),
    pollLagP95Ms: Math.round(percentile(lags.sort(ascending), 95)),
    engineLatencyP95Ms: Math.round(percentile(latencies.sort(ascending), 95)),
    peakRssMb: round(result.peakRssBytes / 2 ** 20, 1),
    peakHeapMb: round(result.peakHeapBytes / 2 ** 20, 1),
    eventLoopDelayP99Ms: result.eventLoopDelayMs.p99,
    eventLoopDelayMaxMs: result.eventLoopDelayMs.max,
    cpuSeconds: result.cpuSeconds,
    startSeconds: round(result.startMs / 1000, 1),
    progressEditsPerJob: round(result.progressEdits / jobs.length, 2),
    redelivered: result.redelivered.length,
    byLabel: Object.fromEntries(
      [...byLabel].map(([name, { reads: n, delays: d }]) => [
        name,
        {
          requestsPerJob: round(n / d.length, 1),
          delayP95Ms: Math.round(
            percentile(
              d.sort((a, b) => a - b),
              95,
            ),
          ),
        },
      ]),
    ),
  };
}

/** The median run, figure by figure (each figure's own median). */
export function medianOf(runs: RunFigures[], strategy: Strategy): Figures {
  const all = runs.map((run) => run[strategy]);
  const median = (pick: (f: Figures) => number) => {
    const values = all.map(pick).sort((a, b) => a - b);
    const mid = values.length >> 1;
    return values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
  };
  const first = all[0]!;
  const numbers = Object.fromEntries(
    (Object.keys(first) as (keyof Figures)[])
      .filter((key) => typeof first[key] === "number")
      .map((key) => [key, median((f) => f[key] as number)]),
  );
  const byLabel = Object.fromEntries(
    Object.keys(first.byLabel).map((label) => [
      label,
      {
        requestsPerJob: median((f) => f.byLabel[label]!.requestsPerJob),
        delayP95Ms: median((f) => f.byLabel[label]!.delayP95Ms),
      },
    ]),
  );
  return { ...(numbers as Omit<Figures, "byLabel">), byLabel };
}

export interface Target {
  name: string;
  value: number;
  limit: number;
  ok: boolean;
}

export function targets(adaptive: Figures, naive: Figures): Target[] {
  const target = (name: string, value: number, limit: number) => ({
    name,
    value: round(value, 2),
    limit: round(limit, 2),
    ok: value <= limit,
  });
  return [
    target("peak RSS (MB) < 300", adaptive.peakRssMb, 300),
    target("event-loop delay p99 (ms) < 50", adaptive.eventLoopDelayP99Ms, 50),
    target("status requests per job <= half of naive's", adaptive.requestsPerJob, naive.requestsPerJob / 2),
    target("p95 delivery delay (ms) <= 1.5 x naive's", adaptive.delayP95Ms, naive.delayP95Ms * 1.5),
  ];
}

const ROWS: [string, (f: Figures) => number | string][] = [
  ["status requests per job", (f) => f.requestsPerJob],
  ["completion -> delivery p50 (ms, service time)", (f) => f.delayP50Ms],
  ["completion -> delivery p95 (ms, service time)", (f) => f.delayP95Ms],
  ["completion -> delivery max (ms, service time)", (f) => f.delayMaxMs],
  ["  of which completion -> read that saw it, p95", (f) => f.pollLagP95Ms],
  ["  of which that read -> deliver call, p95", (f) => f.engineLatencyP95Ms],
  ["peak RSS (MB)", (f) => f.peakRssMb],
  ["peak JS heap used (MB)", (f) => f.peakHeapMb],
  ["event-loop delay p99 (ms)", (f) => f.eventLoopDelayP99Ms],
  ["event-loop delay max (ms)", (f) => f.eventLoopDelayMaxMs],
  ["CPU time of the bot process (s)", (f) => f.cpuSeconds],
  ["start(): taking up every job (s)", (f) => f.startSeconds],
  ["progress edits per job", (f) => f.progressEditsPerJob],
  ["jobs delivered twice", (f) => f.redelivered],
];

export function table(adaptive: Figures, naive: Figures): string {
  const lines = ROWS.map(([name, pick]) => `| ${name} | ${pick(adaptive)} | ${pick(naive)} |`);
  return ["| | adaptive | naive (fixed 2 s) |", "|---|---:|---:|", ...lines].join("\n");
}

export function write(outDir: string, settings: Settings, runs: RunFigures[]): { json: string; md: string } {
  const adaptive = medianOf(runs, "adaptive");
  const naive = medianOf(runs, "naive");
  const checks = targets(adaptive, naive);
  const machine = {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGb: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  const date = new Date().toISOString();
  mkdirSync(outDir, { recursive: true });
  const json = join(outDir, "jobs.json");
  const md = join(outDir, "jobs.md");
  writeFileSync(
    json,
    `${JSON.stringify({ date, machine, settings, mix: MIX, median: { adaptive, naive }, targets: checks, runs }, null, 2)}\n`,
  );

  const labels = Object.keys(adaptive.byLabel);
  const perRun = runs.map(
    (run, i) =>
      `| ${i + 1} | ${run.adaptive.requestsPerJob} / ${run.naive.requestsPerJob} | ${run.adaptive.delayP95Ms} / ${run.naive.delayP95Ms} | ${run.adaptive.peakRssMb} / ${run.naive.peakRssMb} | ${run.adaptive.eventLoopDelayP99Ms} / ${run.naive.eventLoopDelayP99Ms} | ${run.emulatorStatusReads} | ${run.seedSeconds} | ${run.runSeconds} |`,
  );
  const text = [
    "# Benchmark: jobs",
    "",
    `${date} - ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGb} GB, Node ${machine.node}, ${machine.platform}`,
    "",
    `${settings.jobs} jobs tracked at once against the media API emulator (a child process), the emulator's clock running ${settings.speed}x real time; caps ${settings.caps.maxRequestsPerSecond} requests/s and ${settings.caps.maxConcurrentRequests} concurrent for both strategies. Medians of ${runs.length} run(s). Command: \`npm run bench -- jobs --jobs ${settings.jobs} --speed ${settings.speed} --runs ${settings.runs}\`.`,
    "",
    table(adaptive, naive),
    "",
    "## Targets (adaptive)",
    "",
    "| target | value | limit | |",
    "|---|---:|---:|---|",
    ...checks.map((t) => `| ${t.name} | ${t.value} | ${t.limit} | ${t.ok ? "met" : "MISSED"} |`),
    "",
    "## By kind (adaptive / naive)",
    "",
    "| kind | share | duration (s) | requests per job | delivery delay p95 (ms) |",
    "|---|---:|---|---:|---:|",
    ...labels.map((label) => {
      const entry = MIX.find((m) => m.label === label)!;
      return `| ${label} | ${entry.share * 100}% | ${entry.minMs / 1000}-${entry.maxMs / 1000} | ${adaptive.byLabel[label]!.requestsPerJob} / ${naive.byLabel[label]!.requestsPerJob} | ${adaptive.byLabel[label]!.delayP95Ms} / ${naive.byLabel[label]!.delayP95Ms} |`;
    }),
    "",
    "## Runs (adaptive / naive)",
    "",
    "| run | requests per job | delay p95 (ms) | peak RSS (MB) | loop delay p99 (ms) | emulator status reads | seeding (s) | run (s) |",
    "|---|---|---|---|---|---:|---:|---:|",
    ...perRun,
    "",
    "## Method",
    "",
    "- Each strategy runs in its own process with the real engine, sqlite store, client and normalizer, one after the other so that each has the machine to itself. Naive is the same engine with `fixedPolicy(2 s)`: no jitter, no age steps, progress ignored.",
    "- The jobs and their store records are created first, with the emulator's clock standing still. At \"go\" the clock starts and the engine's `start()` takes up every job: all of them are tracked at once. For the second strategy the clock starts over, replaying the same jobs (their state is computed from the clock), and its bot gets a fresh copy of the same seeded store.",
    "- The bot processes run through tsx (the TypeScript sources, about 30 MB more RSS than the compiled `dist/` that `npm start` runs) with the Node flags of `npm start` (its 512 MB heap ceiling; without it V8 lets garbage reach about four times the live heap: one run without it peaked at 287 MB adaptive and 408 MB naive).",
    "- Delay = time of the `deliver` hook call minus the job's planned completion, in service time. RSS is sampled every 50 ms; event-loop delay is `monitorEventLoopDelay` (10 ms resolution), both from `start()` to the last delivery.",
    "",
  ].join("\n");
  writeFileSync(md, text);
  return { json, md };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
