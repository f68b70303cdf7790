/**
 * bench/results/soak.json (every sample) and soak.md: the bot's memory, handles, event loop, CPU
 * per job and store after each tenth of the run, and whether any of them kept growing.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { leastSquares, median, percentile } from "../stats.js";
import type { StoreFigures } from "./store.js";

export interface Command {
  tag: string;
  scenario: string;
  platform: "discord" | "slack";
  sentAt: number;
  acknowledged: boolean;
  /** A command whose scenario ends in a refusal (over budget): no result is waited for. */
  refused: boolean;
  /** What the command was seen to do besides its result (bench/soak/mix.ts): "queued", ... */
  notes: string[];
  deliveredAt?: number;
}

export interface Sample {
  /** Milliseconds since the start of the run. */
  at: number;
  sent: number;
  delivered: number;
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
  handles: number;
  sockets: number;
  openFds: number;
  eventLoopP99Ms: number;
  cpuSeconds: number;
  store: StoreFigures;
}

export interface Settings {
  command: string;
  minutes: number;
  rate: number;
  timeScale: number;
  retentionMinutes: number;
  concurrency: number;
  /** Send slots passed because `concurrency` commands were in flight. */
  skipped: number;
  /** The bot's last lines when it exited during the run on its own. */
  exitedDuringRun: string | false;
  load: { start: number[]; end: number[] };
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
  storeFileMb: number;
  logDir: string;
  /** What admins set before the traffic: budgets, the server's preset. */
  setup: string[];
  /** Slack views.publish calls Slack took: Home tabs published (on opening, and kept current). */
  homePublishes: number;
  /** Heap snapshots of the bot (--heap-snapshots): after warm-up, at the end of the traffic. */
  heapSnapshots?: string[];
}

/** Per scenario and platform: sent, acknowledged, results, and what was seen (notes) with their counts. */
function scenarioRows(commands: Command[]): string[] {
  const groups = new Map<string, Command[]>();
  for (const command of commands) {
    const key = `${command.scenario} | ${command.platform}`;
    groups.set(key, [...(groups.get(key) ?? []), command]);
  }
  return [...groups.entries()].map(([key, group]) => {
    const notes = new Map<string, number>();
    for (const note of group.flatMap((c) => c.notes)) notes.set(note, (notes.get(note) ?? 0) + 1);
    const seen = [...notes.entries()].map(([note, n]) => `${note}: ${n}`).join("; ");
    const results = group[0]!.refused
      ? "(refused: none expected)"
      : String(group.filter((c) => c.deliveredAt).length);
    return `| ${key} | ${group.length} | ${group.filter((c) => c.acknowledged).length} | ${results} | ${seen || "-"} |`;
  });
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

/** The samples of each tenth of the run (by time), the last of each standing for it. */
function tenths(samples: Sample[], runMs: number): Sample[][] {
  return Array.from({ length: 10 }, (_, i) =>
    samples.filter((s) => s.at > (i * runMs) / 10 && s.at <= ((i + 1) * runMs) / 10 + 1),
  ).filter((group) => group.length > 0);
}

/** Largest distance from the median, as a fraction of it. */
function spread(values: number[]): number {
  const mid = median(values);
  return mid === 0 ? 0 : Math.max(...values.map((v) => Math.abs(v - mid))) / mid;
}

export function write(
  outDir: string,
  settings: Settings,
  commands: Command[],
  samples: Sample[],
): { json: string; md: string; heapGrows: boolean } {
  mkdirSync(outDir, { recursive: true });
  const date = new Date().toISOString();
  const json = join(outDir, "soak.json");
  writeFileSync(json, `${JSON.stringify({ date, settings, commands, samples }, null, 1)}\n`);

  const runMs = settings.minutes * 60_000;
  const groups = tenths(samples, runMs);
  const acknowledged = commands.filter((c) => c.acknowledged);
  const expectingResults = commands.filter((c) => !c.refused);
  const delivered = commands.filter((c) => c.deliveredAt !== undefined);
  const latency = delivered.map((c) => c.deliveredAt! - c.sentAt).sort((a, b) => a - b);
  // Warm-up: the first fifth, and at least until the first finished jobs could have expired.
  const warmMs = Math.max(runMs / 5, (settings.retentionMinutes + 1) * 60_000);
  const warm = groups.filter((g) => g[0]!.at >= warmMs);
  // The heap of a tenth: its lowest sample, the live heap right after a collection.
  const heapOf = (g: Sample[]) => Math.min(...g.map((s) => s.heapUsedMb));
  const heapSpread = spread(warm.map(heapOf));
  // Issue 36: the heap's trend after warm-up, MB per hour, through each tenth's lowest sample (at
  // that sample's time); it grows when the slope stands more than twice its standard error above 0.
  const lowest = warm.map((g) => g.reduce((a, b) => (b.heapUsedMb < a.heapUsedMb ? b : a)));
  const trend = leastSquares(
    lowest.map((s) => s.at / 3_600_000),
    lowest.map((s) => s.heapUsedMb),
  );
  const heapGrows = trend.slope - 2 * trend.stderr > 0;
  const jobRows = (s: Sample) => s.store.namespaces.jobs?.rows ?? 0;
  // Live: not yet past their expiry. The expired ones wait for the next purge (every 5 minutes).
  const liveJobRows = (s: Sample) => jobRows(s) - (s.store.namespaces.jobs?.expired ?? 0);
  const last = (g: Sample[]) => g[g.length - 1]!;
  const jobRowSpread = spread(warm.map((g) => liveJobRows(last(g))));
  const grown = (of: (s: Sample) => number) => {
    const [first, end] = [last(warm[0] ?? groups[0]!), last(groups[groups.length - 1]!)];
    return `${of(first)} -> ${of(end)}`;
  };
  const otherRows = (s: Sample) => s.store.rows - jobRows(s) - (s.store.namespaces.spend?.rows ?? 0);
  const spendPerJob =
    (last(groups[groups.length - 1]!).store.namespaces.spend?.rows ?? 0) / Math.max(1, delivered.length);

  const m = settings.machine;
  const lines = [
    "# Benchmark: soak (one bot process, every job kind on both platforms, a day of traffic)",
    "",
    `${date} - ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Node ${m.node}. Load average (1, 5, 15 min) at the start: ${settings.load.start.map((l) => l.toFixed(2)).join(", ")}; at the end: ${settings.load.end.map((l) => l.toFixed(2)).join(", ")}.`,
    "",
    `Command: \`${settings.command}\`. The bot: \`node dist/main.js\` on a sqlite store, Discord and Slack at once; ${settings.rate} commands a minute for ${settings.minutes} minutes (at most ${settings.concurrency} in flight); emulator time scale ${settings.timeScale} (a 20 s image takes ${fixed(20 * settings.timeScale)} s, a 3-minute video ${fixed(180 * settings.timeScale)} s: the run covers ${fixed(settings.minutes / settings.timeScale / 60 / 24, 2)} days of the service's time); finished jobs kept ${settings.retentionMinutes} minutes (JOB_RETENTION_DAYS).`,
    "",
    "## Verdict",
    "",
    "| | |",
    "|---|---|",
    `| bot process exits during the run | ${settings.exitedDuringRun ? `**yes**:\n\`\`\`\n${settings.exitedDuringRun}\n\`\`\`` : "0"} |`,
    `| commands sent / acknowledged / results delivered | ${commands.length} / ${acknowledged.length} / ${delivered.length} of ${expectingResults.length} that make a job (send slots skipped with ${settings.concurrency} in flight: ${settings.skipped}) |`,
    `| command -> result posted, p50 / p95 (s, wall) | ${fixed(percentile(latency, 50) / 1000)} / ${fixed(percentile(latency, 95) / 1000)} |`,
    `| heap after warm-up (${fixed(warmMs / 60_000)} min): largest distance from its median (target <= 10 %) | **${fixed(heapSpread * 100)} %** (${warm.map((g) => fixed(heapOf(g))).join(", ")} MB) |`,
    `| heap after warm-up: least-squares slope of each tenth's lowest sample (growing when above twice its standard error) | **${fixed(trend.slope, 2)} ± ${fixed(trend.stderr, 2)} MB/h**: ${heapGrows ? "**grows**" : "no growth above noise"} |`,
    `| live job records once jobs expire: largest distance from their median | **${fixed(jobRowSpread * 100)} %** (${warm.map((g) => liveJobRows(last(g))).join(", ")}; with the expired ones not yet purged: ${warm.map((g) => jobRows(last(g))).join(", ")}) |`,
    `| Slack post ledger rows, claims (after warm-up -> end) | ${grown((s) => s.store.namespaces.slack?.rows ?? 0)}; ${grown((s) => s.store.claims)} |`,
    `| kept by design beyond a job's life: spending records (400 days: the period's book and its export) | ${fixed(spendPerJob, 2)} per delivered job; index entries ${grown((s) => s.store.indexEntries)} (jobs' lists: at most 100 per person and 200 per tenant; ids made on the shared key: 10,000 per tenant; spending: 2 per job for its period) |`,
    "",
    "## The mix",
    "",
    `Set up by admins before the traffic: ${settings.setup.join("; ")}. Slack Home tabs published (views.publish taken): ${settings.homePublishes}.`,
    "",
    "| scenario | platform | sent | acknowledged | results shown (channel or private) | seen |",
    "|---|---|---:|---:|---:|---|",
    ...scenarioRows(commands),
    "",
    "## After each tenth of the run",
    "",
    "Heap: the lowest sample of the tenth (the live heap after a collection); event-loop delay: the highest p99 sampled in it; CPU per job: the bot's CPU time in the tenth over the results delivered in it; store: at the tenth's end (rows of the keyv table by namespace, `expired` = past their expiry but still in the file, claims and index entries).",
    "",
    "| at (min) | sent | delivered | RSS (MB) | heap used (MB) | external (MB) | handles | sockets | open fds | event loop p99 (ms) | CPU per job (ms) | store rows | store (MB) | jobs rows (expired) | spend rows | other rows | index entries | claims |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  let previous: Sample | undefined;
  for (const group of groups) {
    const end = last(group);
    const jobs = end.delivered - (previous?.delivered ?? 0);
    const cpuMs = (end.cpuSeconds - (previous?.cpuSeconds ?? group[0]!.cpuSeconds)) * 1000;
    const ns = end.store.namespaces;
    lines.push(
      `| ${fixed(end.at / 60_000)} | ${end.sent} | ${end.delivered} | ${fixed(end.rssMb, 0)} | ${fixed(heapOf(group))} | ${fixed(end.externalMb)} | ${end.handles} | ${end.sockets} | ${end.openFds} | ${fixed(Math.max(...group.map((s) => s.eventLoopP99Ms)))} | ${jobs > 0 ? fixed(cpuMs / jobs) : "n/a"} | ${end.store.rows} | ${fixed(end.store.bytes / 1e6, 2)} | ${ns.jobs?.rows ?? 0} (${ns.jobs?.expired ?? 0}) | ${ns.spend?.rows ?? 0} | ${otherRows(end)} | ${end.store.indexEntries} | ${end.store.claims} |`,
    );
    previous = end;
  }
  const final = last(groups[groups.length - 1]!).store;
  lines.push(
    "",
    `At the end: keyv rows by namespace ${Object.entries(final.namespaces)
      .map(([ns, n]) => `${ns} ${n.rows} (${n.expired} expired)`)
      .join(", ")}; index entries by index ${Object.entries(final.indexes)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(", ")}.`,
    "",
    `Store file at the end: ${fixed(settings.storeFileMb, 2)} MB (sqlite does not give freed pages back to the file system; it reuses them). Logs: ${settings.logDir}.`,
    "",
  );
  const md = join(outDir, "soak.md");
  writeFileSync(md, lines.join("\n"));
  return { json, md, heapGrows };
}
