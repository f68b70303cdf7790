/**
 * Ten thousand jobs tracked at once: the adaptive policy against naive fixed 2-second polling.
 *
 *   npm run bench -- jobs [--jobs 10000] [--speed 1] [--runs 1] [--out bench/results]
 *
 * --jobs (10000), --speed (how much faster than real time the emulator's clock runs; 1),
 * --runs (1; medians are reported), --out (bench/results).
 *
 * Why real time by default: naive polling of 10,000 jobs every 2 s is 5,000 requests/s, and
 * the emulator answers about 8,000/s on one core; any faster clock and naive would be starved
 * by the emulator rather than measured.
 */
import { type ChildProcess, fork } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createMediaClient } from "../../src/core/api/index.js";
import type { BotArgs, BotResult, Strategy } from "./bot-process.js";
import type { EmulatorMessage, EmulatorReply } from "./emulator-process.js";
import { drawJobs } from "./mix.js";
import { figures, medianOf, type RunFigures, type Settings, table, targets, write } from "./report.js";
import { seedJobs } from "./seed.js";

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      jobs: { type: "string", default: "10000" },
      speed: { type: "string", default: "1" },
      runs: { type: "string", default: "1" },
      out: { type: "string", default: new URL("../results", import.meta.url).pathname },
    },
  });
  const settings: Settings = {
    jobs: Number(values.jobs),
    speed: Number(values.speed),
    runs: Number(values.runs),
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
    console.log(table(figuresOfRun.adaptive, figuresOfRun.naive));
  }
  const adaptive = medianOf(runs, "adaptive");
  const naive = medianOf(runs, "naive");
  console.log(`\nmedians of ${runs.length} run(s):\n${table(adaptive, naive)}\n`);
  for (const t of targets(adaptive, naive))
    console.log(`${t.ok ? "met   " : "MISSED"} ${t.name}: ${t.value} (limit ${t.limit})`);
  const files = write(values.out, settings, runs);
  console.log(`\nwritten: ${files.json}, ${files.md}`);
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
    const jobs = await seedJobs(client.as(ready.apiKey), planned, `sqlite://${seedFile}`, ready);
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
      const bot = child(
        new URL("./bot-process.ts", import.meta.url).pathname,
        [JSON.stringify(args)],
        startFlags(),
      );
      await message(bot, (m: { type: string }) => m.type === "ready");
      const readsBefore = await statusReads(emulator);
      const go: EmulatorMessage = { type: "go", speed: settings.speed };
      emulator.send(go);
      const { at } = await reply(emulator, "going");
      bot.send({ type: "go", at });
      const result = await message<BotResult>(bot, (m) => m.type === "done");
      const seconds = Math.round((Date.now() - at) / 1000);
      return {
        figures: figures(result, jobs, at, settings.speed),
        emulatorReads: (await statusReads(emulator)) - readsBefore,
        seconds,
      };
    };
    const adaptive = await measure("adaptive");
    const naive = await measure("naive");
    return {
      adaptive: adaptive.figures,
      naive: naive.figures,
      emulatorStatusReads: adaptive.emulatorReads + naive.emulatorReads,
      seedSeconds,
      runSeconds: adaptive.seconds + naive.seconds,
    };
  } finally {
    emulator.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function statusReads(emulator: ChildProcess): Promise<number> {
  const count: EmulatorMessage = { type: "count" };
  emulator.send(count);
  return (await reply(emulator, "count")).statusReads;
}

/**
 * The Node flags `npm start` gives the bot (its heap ceiling, which decides how much garbage V8
 * lets pile up before collecting): the bot processes here run with the same ones.
 */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith("--"));
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
