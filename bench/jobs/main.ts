/**
 * Ten thousand jobs tracked at once: the adaptive policy against naive fixed 2-second polling.
 *
 *   npm run bench -- jobs [--jobs 10000] [--speed 1] [--runs 3] [--strategies adaptive,naive]
 *                         [--takeover] [--profile DIR] [--name jobs] [--out bench/results]
 *
 * --jobs (10000), --speed (how much faster than real time the emulator's clock runs; 1),
 * --runs (3; medians are reported), --strategies (both, one after the other), --takeover (the jobs
 * belong to a replica that stopped, rather than to nobody: the bot takes them over), --profile (the bot
 * processes run with `node --cpu-prof` and leave their .cpuprofile there), --name (of the
 * results files: <name>.md and <name>.json), --out (bench/results).
 *
 * Why real time by default: naive polling of 10,000 jobs every 2 s is 5,000 requests/s, and
 * the emulator answers about 8,000/s on one core; any faster clock and naive would be starved
 * by the emulator rather than measured.
 */
import { type ChildProcess, fork } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createMediaClient } from "../../src/core/api/index.js";
import { startFlags } from "../../test/main-process.js";
import type { BotArgs, BotResult, Strategy } from "./bot-process.js";
import type { EmulatorMessage, EmulatorReply } from "./emulator-process.js";
import { drawJobs } from "./mix.js";
import {
  figures,
  type Load,
  medianOf,
  type RunFigures,
  type Settings,
  saturation,
  table,
  targets,
  write,
} from "./report.js";
import { seedJobs } from "./seed.js";

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      jobs: { type: "string", default: "10000" },
      speed: { type: "string", default: "1" },
      runs: { type: "string", default: "3" },
      strategies: { type: "string", default: "adaptive,naive" },
      takeover: { type: "boolean", default: false },
      profile: { type: "string" },
      name: { type: "string", default: "jobs" },
      out: { type: "string", default: new URL("../results", import.meta.url).pathname },
    },
  });
  const strategies = values.strategies.split(",").map((name) => name.trim()) as Strategy[];
  for (const strategy of strategies)
    if (strategy !== "adaptive" && strategy !== "naive") throw new Error(`unknown strategy ${strategy}`);
  const settings: Settings = {
    jobs: Number(values.jobs),
    speed: Number(values.speed),
    runs: Number(values.runs),
    strategies,
    takeover: values.takeover,
    ...(values.profile ? { profileDir: values.profile } : {}),
    // Above what naive polling needs, so the caps shape neither strategy.
    caps: { maxRequestsPerSecond: 20_000, maxConcurrentRequests: 128 },
  };
  const runs: RunFigures[] = [];
  for (let i = 1; i <= settings.runs; i++) {
    console.log(
      `jobs benchmark: run ${i} of ${settings.runs} (${settings.jobs} jobs, speed ${settings.speed}x)`,
    );
    const figuresOfRun = await once(settings);
    runs.push(figuresOfRun);
    console.log(table(figuresOfRun, strategies));
  }
  const median = Object.fromEntries(strategies.map((s) => [s, medianOf(runs, s)]));
  console.log(`\nmedians of ${runs.length} run(s):\n${table(median, strategies)}\n`);
  const checks = targets(median, settings.jobs);
  for (const t of checks)
    console.log(`${t.ok ? "met   " : "MISSED"} ${t.name}: ${t.value} (limit ${t.limit})`);
  const files = write(values.out, values.name, settings, runs);
  console.log(`\nwritten: ${files.json}, ${files.md}`);
  // A missed target fails the run (after the figures are written, to be read).
  if (checks.some((t) => !t.ok)) process.exitCode = 1;
}

async function once(settings: Settings): Promise<RunFigures> {
  const dir = mkdtempSync(join(tmpdir(), "bench-jobs-"));
  const emulator = child(new URL("./emulator-process.ts", import.meta.url).pathname, []);
  try {
    const ready = await reply(emulator, "ready");
    const planned = drawJobs(settings.jobs);
    const plan: EmulatorMessage = {
      type: "plan",
      plans: planned.map((job) => ({ kind: job.entry.planned, durationMs: job.durationMs })),
    };
    emulator.send(plan);
    await reply(emulator, "planned");

    const seededAt = Date.now();
    const client = createMediaClient({ baseUrl: ready.url });
    const seedFile = join(dir, "seed.sqlite");
    const jobs = await seedJobs(client.as(ready.apiKey), planned, `sqlite://${seedFile}`, ready, {
      createdAt: seededAt,
      ...(settings.takeover ? { ownedBy: "bench-stopped-replica" } : {}),
    });
    await client.close();
    const seedSeconds = Math.round((Date.now() - seededAt) / 1000);

    // One strategy after the other, each with the machine to itself: at the start both poll
    // every job every 2 s or so, and together they would ask more than the emulator answers.
    // Each gets a copy of the same seeded store, and the emulator replays the same jobs.
    const measure = async (strategy: Strategy) => {
      const file = join(dir, `${strategy}.sqlite`);
      copyFileSync(seedFile, file);
      const args: BotArgs = {
        strategy,
        storeUrl: `sqlite://${file}`,
        mediaUrl: ready.url,
        apiKey: ready.apiKey,
        speed: settings.speed,
        seededAt,
        jobs: jobs.length,
        caps: settings.caps,
      };
      // A directory per strategy, without a file name: tsx's loader thread writes a profile too,
      // and a fixed name would let it overwrite the main thread's (the biggest file is the bot's).
      const profileDir = settings.profileDir && join(settings.profileDir, strategy);
      if (profileDir) mkdirSync(profileDir, { recursive: true });
      const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
      const bot = child(
        new URL("./bot-process.ts", import.meta.url).pathname,
        [JSON.stringify(args)],
        [...startFlags(), ...profile],
      );
      await message(bot, (m: { type: string }) => m.type === "ready");
      const before = await count(emulator);
      const loadBefore = loadavg();
      const go: EmulatorMessage = { type: "go", speed: settings.speed };
      emulator.send(go);
      const { at } = await reply(emulator, "going");
      driverDelay.reset();
      bot.send({ type: "go", at });
      const result = await message<BotResult>(bot, (m) => m.type === "done");
      const seconds = Math.round((Date.now() - at) / 1000);
      const after = await count(emulator);
      const load: Load = {
        emulatorCpuMs: Math.round(after.cpuMs - before.cpuMs),
        emulatorLoopDelayP99Ms: after.loopDelayP99Ms,
        driverLoopDelayP99Ms: Math.round(driverDelay.percentile(99) / 1e4) / 100,
        loadAverage: [round2(loadBefore[0]!), round2(loadavg()[0]!)],
      };
      const measured = figures(result, jobs, at, settings.speed, load);
      console.log(`${strategy}: ${saturation(measured).join("; ") || "not saturated"}`);
      return { figures: measured, emulatorReads: after.statusReads - before.statusReads, seconds };
    };
    const measured: Partial<RunFigures> = { emulatorStatusReads: 0, seedSeconds, runSeconds: 0 };
    for (const strategy of settings.strategies) {
      const one = await measure(strategy);
      measured[strategy] = one.figures;
      measured.emulatorStatusReads! += one.emulatorReads;
      measured.runSeconds! += one.seconds;
    }
    return measured as RunFigures;
  } finally {
    emulator.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** This (the driver's) event loop: a lagging driver would hand out "go" late. */
const driverDelay = monitorEventLoopDelay({ resolution: 10 });
driverDelay.enable();

const round2 = (value: number) => Math.round(value * 100) / 100;

async function count(emulator: ChildProcess): Promise<Extract<EmulatorReply, { type: "count" }>> {
  const ask: EmulatorMessage = { type: "count" };
  emulator.send(ask);
  return reply(emulator, "count");
}

function child(path: string, args: string[], flags: string[] = []): ChildProcess {
  return fork(path, args, {
    execArgv: ["--import", "tsx", ...flags],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

function reply<T extends EmulatorReply["type"]>(
  emulator: ChildProcess,
  type: T,
): Promise<Extract<EmulatorReply, { type: T }>> {
  return message(emulator, (m: EmulatorReply) => m.type === type) as Promise<
    Extract<EmulatorReply, { type: T }>
  >;
}

/** The child's next message that `match`es; a child that exits first is an error. */
function message<T>(process: ChildProcess, match: (m: T) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: T) => {
      if (!match(m)) return;
      process.off("message", onMessage);
      process.off("exit", onExit);
      resolve(m);
    };
    const onExit = (code: number | null) => reject(new Error(`benchmark child exited early (code ${code})`));
    process.on("message", onMessage);
    process.once("exit", onExit);
  });
}

await run(process.argv.slice(2));
driverDelay.disable();
