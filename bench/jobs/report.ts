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
  /** All of the bot's CPU over its status reads: what the issue's "per read" means. */
  cpuMsPerRead: number;
  /** The same split by a least-squares fit of each second's CPU on its reads and deliveries. */
  fitMsPerRead: number;
  fitMsPerDelivery: number;
  /** CPU per second that neither explains (timers, heartbeat, scans, GC not tied to either). */
  fitIdleMsPerSecond: number;
  /** Cores' worth of CPU the bot used over the run (1 = one core busy all the time). */
  botCores: number;
  emulatorCpuSeconds: number;
  emulatorCores: number;
  emulatorLoopDelayP99Ms: number;
  driverLoopDelayP99Ms: number;
  /** Bot and emulator CPU over what the machine's cores offered during the run. */
  machineShare: number;
  loadAverageStart: number;
  loadAverageEnd: number;
  /** 1 when a process lacked CPU headroom (see `saturation`): the figures then measure the machine. */
  saturated: number;
  wallSeconds: number;
  startSeconds: number;
  progressEditsPerJob: number;
  redelivered: number;
  byLabel: Record<string, { requestsPerJob: number; delayP95Ms: number }>;
}

/** What the driver measured around one bot: the emulator's side and the machine's. */
export interface Load {
  emulatorCpuMs: number;
  emulatorLoopDelayP99Ms: number;
  driverLoopDelayP99Ms: number;
  /** 1-minute load average when the run started and when it ended. */
  loadAverage: [number, number];
}

export type RunFigures = Partial<Record<Strategy, Figures>> & {
  /** Status reads the emulator answered, against the sum of both bots' counts. */
  emulatorStatusReads: number;
  seedSeconds: number;
  runSeconds: number;
};

export interface Settings {
  jobs: number;
  speed: number;
  runs: number;
  strategies: Strategy[];
  /** The jobs belong to a replica that stopped, instead of to nobody: start() takes them over. */
  takeover: boolean;
  profileDir?: string;
  caps: { maxRequestsPerSecond: number; maxConcurrentRequests: number };
}

const CORES = availableParallelism();
/** For a caller that measured no emulator or machine figures (bench/scale merges replicas). */
const NO_LOAD: Load = {
  emulatorCpuMs: 0,
  emulatorLoopDelayP99Ms: 0,
  driverLoopDelayP99Ms: 0,
  loadAverage: [0, 0],
};

/**
 * Why a run's figures may say more about the machine than about the bot: a process with no CPU
 * to spare answers late and makes the other look slow. Empty when there was headroom.
 */
export function saturation(f: Figures): string[] {
  const reasons: string[] = [];
  if (f.botCores >= 0.9) reasons.push(`the bot used ${f.botCores} cores`);
  if (f.eventLoopDelayP99Ms >= 200)
    reasons.push(`the bot's event loop lagged (p99 ${f.eventLoopDelayP99Ms} ms)`);
  if (f.emulatorCores >= 0.9) reasons.push(`the emulator used ${f.emulatorCores} cores`);
  if (f.emulatorLoopDelayP99Ms >= 100)
    reasons.push(`the emulator's event loop lagged (p99 ${f.emulatorLoopDelayP99Ms} ms)`);
  if (f.driverLoopDelayP99Ms >= 100)
    reasons.push(`the driver's event loop lagged (p99 ${f.driverLoopDelayP99Ms} ms)`);
  if (f.machineShare >= 0.85)
    reasons.push(`bot and emulator used ${Math.round(f.machineShare * 100)}% of ${CORES} cores`);
  if (f.loadAverageEnd >= CORES) reasons.push(`load average ${f.loadAverageEnd} on ${CORES} cores`);
  return reasons;
}

/**
 * Least squares of each second's CPU on its reads and deliveries, plus a constant: ms per read,
 * per delivery, and per idle second. Seconds of start() are left out (it reads every record).
 */
export function fitCpu(seconds: BotResult["seconds"], skip: number): [number, number, number] {
  const rows = seconds.slice(skip, -1);
  // Normal equations X'X b = X'y with X = [reads, deliveries, 1].
  const m = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  const v = [0, 0, 0];
  for (const { cpuMs, reads, deliveries } of rows) {
    const x = [reads, deliveries, 1];
    for (let i = 0; i < 3; i++) {
      v[i]! += x[i]! * cpuMs;
      for (let j = 0; j < 3; j++) m[i]![j]! += x[i]! * x[j]!;
    }
  }
  return solve3(m, v);
}

function solve3(m: number[][], v: number[]): [number, number, number] {
  const a = m.map((row, i) => [...row, v[i]!]);
  for (let col = 0; col < 3; col++) {
    let pivot = col;
    for (let r = col + 1; r < 3; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]![col]!;
    if (Math.abs(p) < 1e-9) return [Number.NaN, Number.NaN, Number.NaN];
    for (let r = 0; r < 3; r++) {
      if (r === col) continue;
      const factor = a[r]![col]! / p;
      for (let c = col; c < 4; c++) a[r]![c]! -= factor * a[col]![c]!;
    }
  }
  return [a[0]![3]! / a[0]![0]!, a[1]![3]! / a[1]![1]!, a[2]![3]! / a[2]![2]!];
}

/** One strategy's figures from its bot's result and the jobs' planned completions. */
export function figures(
  result: BotResult,
  jobs: SeededJob[],
  goAt: number,
  speed: number,
  load: Load = NO_LOAD,
): Figures {
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
  const cpuMs = result.cpuUserMs + result.cpuSystemMs;
  const wallMs = Math.max(1, result.wallMs);
  const fit = fitCpu(result.seconds, Math.ceil(result.startMs / 1000) + 1);
  const measured: Figures = {
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
    cpuSeconds: round(cpuMs / 1000, 2),
    cpuMsPerRead: round(cpuMs / Math.max(1, reads), 3),
    fitMsPerRead: round(fit[0], 3),
    fitMsPerDelivery: round(fit[1], 3),
    fitIdleMsPerSecond: round(fit[2], 1),
    botCores: round(cpuMs / wallMs, 2),
    emulatorCpuSeconds: round(load.emulatorCpuMs / 1000, 2),
    emulatorCores: round(load.emulatorCpuMs / wallMs, 2),
    emulatorLoopDelayP99Ms: load.emulatorLoopDelayP99Ms,
    driverLoopDelayP99Ms: load.driverLoopDelayP99Ms,
    machineShare: round((cpuMs + load.emulatorCpuMs) / (CORES * wallMs), 2),
    loadAverageStart: load.loadAverage[0],
    loadAverageEnd: load.loadAverage[1],
    saturated: 0,
    wallSeconds: round(result.wallMs / 1000, 1),
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
  measured.saturated = saturation(measured).length > 0 ? 1 : 0;
  return measured;
}

/** The median run, figure by figure (each figure's own median). */
export function medianOf(runs: RunFigures[], strategy: Strategy): Figures {
  const all = runs.map((run) => run[strategy]!);
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
  // Saturated if any run was: a median would hide the run whose figures the machine decided.
  const saturated = Math.max(...all.map((f) => f.saturated));
  return { ...(numbers as Omit<Figures, "byLabel">), saturated, byLabel };
}

export interface Target {
  name: string;
  value: number;
  limit: number;
  ok: boolean;
}

/**
 * Issue 36's ceiling on the bot's peak RSS (MB) with this many jobs in flight, on Node 24: 200 at
 * 10,000 and 320 at 50,000, the line through both between them.
 */
export function rssLimitMb(jobs: number): number {
  const at = Math.min(Math.max(jobs, 10_000), 50_000);
  return 200 + ((at - 10_000) / 40_000) * 120;
}

/** The issues' targets, of the strategies measured: naive's cost and speed, adaptive against naive. */
export function targets(median: Partial<Record<Strategy, Figures>>, jobs: number): Target[] {
  const target = (name: string, value: number, limit: number, ok = value <= limit) => ({
    name,
    value: round(value, 3),
    limit: round(limit, 3),
    ok,
  });
  const { adaptive, naive } = median;
  const checks: Target[] = [];
  if (naive) {
    checks.push(
      target("naive: bot CPU per status read (ms) <= 0.4", naive.cpuMsPerRead, 0.4),
      target(
        "naive: event-loop delay p99 (ms) < 50",
        naive.eventLoopDelayP99Ms,
        50,
        naive.eventLoopDelayP99Ms < 50,
      ),
      target("naive: delivery delay p95 (ms) <= 2000", naive.delayP95Ms, 2000),
    );
  }
  if (adaptive) {
    checks.push(
      target(
        "adaptive: event-loop delay p99 (ms) < 50",
        adaptive.eventLoopDelayP99Ms,
        50,
        adaptive.eventLoopDelayP99Ms < 50,
      ),
      target(
        `adaptive: peak RSS (MB) <= ${round(rssLimitMb(jobs), 0)}`,
        adaptive.peakRssMb,
        rssLimitMb(jobs),
      ),
      target("adaptive: take-up (s) < 15", adaptive.startSeconds, 15, adaptive.startSeconds < 15),
      target(
        "adaptive: delivery delay p95 (ms) < 5000",
        adaptive.delayP95Ms,
        5000,
        adaptive.delayP95Ms < 5000,
      ),
    );
  }
  if (adaptive && naive) {
    checks.push(
      target(
        "adaptive: status requests per job <= half of naive's",
        adaptive.requestsPerJob,
        naive.requestsPerJob / 2,
      ),
      target("adaptive: delivery delay p95 (ms) <= naive's", adaptive.delayP95Ms, naive.delayP95Ms),
    );
  }
  return checks;
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
  ["bot CPU per status read, all CPU / reads (ms)", (f) => f.cpuMsPerRead],
  ["  fitted: per status read (ms)", (f) => f.fitMsPerRead],
  ["  fitted: per delivery (ms)", (f) => f.fitMsPerDelivery],
  ["  fitted: idle, per second (ms)", (f) => f.fitIdleMsPerSecond],
  ["bot CPU, cores busy", (f) => f.botCores],
  ["emulator CPU (s)", (f) => f.emulatorCpuSeconds],
  ["emulator CPU, cores busy", (f) => f.emulatorCores],
  ["emulator event-loop delay p99 (ms)", (f) => f.emulatorLoopDelayP99Ms],
  ["driver event-loop delay p99 (ms)", (f) => f.driverLoopDelayP99Ms],
  [`bot + emulator CPU / (${CORES} cores x wall time)`, (f) => f.machineShare],
  ["load average (1 min) at start / end", (f) => `${f.loadAverageStart} / ${f.loadAverageEnd}`],
  ["saturated (no CPU headroom)", (f) => (f.saturated ? "YES" : "no")],
  ["wall time, start() to last delivery (s)", (f) => f.wallSeconds],
  ["take-up: start() until every job is owned and scheduled (s)", (f) => f.startSeconds],
  ["progress edits per job", (f) => f.progressEditsPerJob],
  ["jobs delivered twice", (f) => f.redelivered],
];

const TITLES: Record<Strategy, string> = { adaptive: "adaptive", naive: "naive (fixed 2 s)" };

export function table(of: Partial<Record<Strategy, Figures>>, strategies: Strategy[]): string {
  const lines = ROWS.map(
    ([name, pick]) => `| ${name} | ${strategies.map((s) => pick(of[s]!)).join(" | ")} |`,
  );
  return [
    `| | ${strategies.map((s) => TITLES[s]).join(" | ")} |`,
    `|---|${strategies.map(() => "---:").join("|")}|`,
    ...lines,
  ].join("\n");
}

export function machine() {
  return {
    cpus: CORES,
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGb: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

export function command(settings: Settings, name: string): string {
  const options = [
    `--jobs ${settings.jobs}`,
    `--speed ${settings.speed}`,
    `--runs ${settings.runs}`,
    ...(settings.strategies.length === 2 ? [] : [`--strategies ${settings.strategies.join(",")}`]),
    ...(settings.takeover ? ["--takeover"] : []),
    ...(settings.profileDir ? [`--profile ${settings.profileDir}`] : []),
    ...(name === "jobs" ? [] : [`--name ${name}`]),
  ];
  return `flock /tmp/bench.lock npm run bench -- jobs ${options.join(" ")}`;
}

export function write(
  outDir: string,
  name: string,
  settings: Settings,
  runs: RunFigures[],
): { json: string; md: string } {
  const strategies = settings.strategies;
  const median = Object.fromEntries(strategies.map((s) => [s, medianOf(runs, s)])) as Partial<
    Record<Strategy, Figures>
  >;
  const checks = targets(median, settings.jobs);
  const host = machine();
  const date = new Date().toISOString();
  mkdirSync(outDir, { recursive: true });
  const json = join(outDir, `${name}.json`);
  const md = join(outDir, `${name}.md`);
  writeFileSync(
    json,
    `${JSON.stringify({ date, machine: host, command: command(settings, name), settings, mix: MIX, median, targets: checks, runs }, null, 2)}\n`,
  );

  const first = median[strategies[0]!]!;
  const labels = Object.keys(first.byLabel);
  const both = (run: Partial<Record<Strategy, Figures>>, pick: (f: Figures) => number | string) =>
    strategies.map((s) => pick(run[s]!)).join(" / ");
  const perRun = runs.map(
    (run, i) =>
      `| ${i + 1} | ${both(run, (f) => f.requestsPerJob)} | ${both(run, (f) => f.delayP95Ms)} | ${both(run, (f) => f.cpuMsPerRead)} | ${both(run, (f) => f.eventLoopDelayP99Ms)} | ${both(run, (f) => f.peakRssMb)} | ${both(run, (f) => f.emulatorCores)} | ${both(run, (f) => `${f.loadAverageStart}-${f.loadAverageEnd}`)} | ${both(run, (f) => (f.saturated ? "YES" : "no"))} | ${run.emulatorStatusReads} | ${run.runSeconds} |`,
  );
  const names = strategies.join(" / ");
  const text = [
    `# Benchmark: jobs${name === "jobs" ? "" : ` (${name})`}`,
    "",
    `${date} - ${host.cpus} CPUs (${host.cpuModel}), ${host.memoryGb} GB, Node ${host.node}, ${host.platform}`,
    "",
    `${settings.jobs} jobs tracked at once against the media API emulator (a child process), ${settings.takeover ? "all of them owned by a replica that stopped (taken over at start)" : "owned by nobody (taken up at start)"}, the emulator's clock running ${settings.speed}x real time; caps ${settings.caps.maxRequestsPerSecond} requests/s and ${settings.caps.maxConcurrentRequests} concurrent. Medians of ${runs.length} run(s). Command: \`${command(settings, name)}\`.`,
    "",
    table(median, strategies),
    "",
    "## Targets",
    "",
    "| target | value | limit | |",
    "|---|---:|---:|---|",
    ...checks.map((t) => `| ${t.name} | ${t.value} | ${t.limit} | ${t.ok ? "met" : "MISSED"} |`),
    "",
    `## By kind (${names})`,
    "",
    "| kind | share | duration (s) | requests per job | delivery delay p95 (ms) |",
    "|---|---:|---|---:|---:|",
    ...labels.map((label) => {
      const entry = MIX.find((m) => m.label === label)!;
      return `| ${label} | ${entry.share * 100}% | ${entry.minMs / 1000}-${entry.maxMs / 1000} | ${both(median, (f) => f.byLabel[label]!.requestsPerJob)} | ${both(median, (f) => f.byLabel[label]!.delayP95Ms)} |`;
    }),
    "",
    `## Runs (${names})`,
    "",
    "| run | requests per job | delay p95 (ms) | bot CPU per read (ms) | loop delay p99 (ms) | peak RSS (MB) | emulator cores | load average | saturated | emulator status reads | run (s) |",
    "|---|---|---|---|---|---|---|---|---|---:|---:|",
    ...perRun,
    "",
    "## Method",
    "",
    "- Each strategy runs in its own process with the real engine, sqlite store, client and normalizer, one after the other so that each has the machine to itself. Naive is the same engine with `fixedPolicy(2 s)`: no jitter, no age steps, progress ignored.",
    '- The jobs and their store records are created first, with the emulator\'s clock standing still, each record stamped with that moment (the bot\'s clock is set back to it at "go"), so that a record is as old as its job. At "go" the clock starts and the engine\'s `start()` takes up every job: all of them are tracked at once. For the second strategy the clock starts over, replaying the same jobs (their state is computed from the clock), and its bot gets a fresh copy of the same seeded store.',
    "- The bot processes run through tsx (the TypeScript sources, about 30 MB more RSS than the compiled `dist/` that `npm start` runs) with the Node flags of `npm start` (its 512 MB heap ceiling and 4 MB semi-spaces).",
    "- Delay = time of the `deliver` hook call minus the job's planned completion, in service time. RSS is sampled every 50 ms; event-loop delay is `monitorEventLoopDelay` (10 ms resolution), both from `start()` to the last delivery.",
    "- CPU is `process.cpuUsage()` of each process (user + system, all its threads: sqlite runs on libuv's pool) from `start()` to the last delivery. \"Per status read\" charges all of the bot's CPU to its reads (the issue's measure). The fitted split regresses each second's CPU on that second's reads and deliveries (least squares with a constant, the seconds of `start()` left out).",
    "- Saturated: the bot or the emulator used 0.9 of a core or more, an event loop lagged (bot p99 >= 200 ms, emulator or driver p99 >= 100 ms), bot + emulator used 85% of the cores or more, or the load average reached the number of cores. Other engineers share this machine: the load average at start and end says how much.",
    "",
  ].join("\n");
  writeFileSync(md, text);
  return { json, md };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
