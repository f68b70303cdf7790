/**
 * The soak: one real bot process (`node dist/main.js`, built first) serving both platforms for a
 * long while, a steady mix of every job kind (the chaos campaign's scenarios, without kills) and
 * of what people use beside them (bench/soak/mix.ts: presets, private results, budgets, a person
 * whose commands queue past the running limit, Slack's Home tab kept current), the emulator's
 * clock fast enough that half an hour covers about a day of traffic, and finished jobs kept only
 * minutes (JOB_RETENTION_DAYS) so that their expiry happens within the run. The bot's own
 * /metrics and its store are sampled throughout: what grows without bound shows.
 *
 *   npm run bench -- soak [--minutes 30] [--rate 30] [--time-scale 0.02] [--retention-minutes 3]
 *                         [--concurrency 12] [--sample 10] [--out bench/results] [--heap-snapshots]
 *
 * --rate: commands sent per minute (one every 60/rate s, skipped while --concurrency are in
 * flight); --sample: seconds between two looks at the bot; --heap-snapshots: the bot writes a heap
 * snapshot at the 2/10 mark (after warm-up) and at the end of the traffic, into the logs' folder,
 * for bench/soak/heap-diff.ts to name what grew between them (writing one raises the bot's RSS by
 * about 190 MB for the rest of its life: such a run's RSS says nothing).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CrashWorld, type Instance } from "../../test/crash-world.js";
import { SCENARIOS, takingTurns, weighted } from "../chaos/mix.js";
import { castOf, prepare, type SoakScenario, type SoakTraffic, shownResults, soakScenarios } from "./mix.js";
import { type Command, type Sample, write } from "./report.js";
import { storeFigures } from "./store.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    minutes: { type: "string", default: "30" },
    rate: { type: "string", default: "30" },
    "time-scale": { type: "string", default: "0.02" },
    "retention-minutes": { type: "string", default: "3" },
    concurrency: { type: "string", default: "12" },
    sample: { type: "string", default: "10" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
    "heap-snapshots": { type: "boolean", default: false },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const timeScale = Number(values["time-scale"]);
const retentionMinutes = Number(values["retention-minutes"]);
const concurrency = Number(values.concurrency);
const sampleMs = Number(values.sample) * 1000;
const root = new URL("../..", import.meta.url).pathname;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Figures of prom-client's default metrics (and ours) from the bot's GET /metrics. */
function metric(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : Number.NaN;
}

async function look(
  instance: Instance,
  storePath: string,
): Promise<Omit<Sample, "at" | "sent" | "delivered">> {
  const text = await (await fetch(new URL("/metrics", instance.slackEventsUrl))).text();
  const store = await storeFigures(storePath);
  return {
    rssMb: metric(text, "process_resident_memory_bytes") / 1e6,
    heapUsedMb: metric(text, "nodejs_heap_size_used_bytes") / 1e6,
    externalMb: metric(text, "nodejs_external_memory_bytes") / 1e6,
    handles: metric(text, "nodejs_active_handles_total"),
    sockets: metric(text, "nodejs_active_handles", 'type="Socket"'),
    openFds: metric(text, "process_open_fds"),
    eventLoopP99Ms: metric(text, "nodejs_eventloop_lag_p99_seconds") * 1000,
    cpuSeconds: metric(text, "process_cpu_seconds_total"),
    store,
  };
}

console.log("building dist/ (npm run build)");
execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });

const logDir = mkdtempSync(join(tmpdir(), "soak-logs-"));
const world = await CrashWorld.start({
  timeScale,
  entry: "dist",
  discord: true,
  logDir,
  env: {
    JOB_RETENTION_DAYS: String(retentionMinutes / (24 * 60)),
    ...(values["heap-snapshots"] && {
      NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${logDir}`,
    }),
  },
});
const storePath = world.storeUrl.replace(/^sqlite:\/\//, "");
const instance = await world.startInstance("soak");
let exitedDuringRun = false;
void instance.bot.exited.then(() => {
  if (!over) exitedDuringRun = true;
});
let over = false;
const commands: Command[] = [];
const byTag = new Map<string, Command>();
const traffic: SoakTraffic = {
  world,
  user: takingTurns(world, concurrency, "soak"),
  get over() {
    return over;
  },
  live: async () => instance,
  note(tag, what) {
    const command = byTag.get(tag);
    if (command && !command.notes.includes(what)) command.notes.push(what);
  },
};
const cast = castOf(world);
const setup = await prepare(traffic, cast);
console.log(`set up: ${setup.join("; ")}`);

// The soak's own scenarios between the campaign's, so that a short run meets each of them early.
const campaign: SoakScenario[] = weighted(SCENARIOS);
const own = soakScenarios(cast);
const mix = campaign.flatMap((scenario, i) => (own[i] ? [scenario, own[i]] : [scenario]));
mix.push(...own.slice(campaign.length));
const samples: Sample[] = [];
let inFlight = 0;
let skipped = 0;
const startedAt = Date.now();
const endAt = startedAt + minutes * 60_000;
const loadAt = { start: loadavg(), end: [0, 0, 0] };

const dms = { channels: new Set<string>(), read: 0 };
const snapshotMarks = values["heap-snapshots"] ? [startedAt + minutes * 12_000, endAt] : [];
const snapshots: string[] = [];

/**
 * Has the bot write a heap snapshot (after a full collection: the live heap) and waits until the
 * file is whole: V8 writes it on the bot's main thread, the file's last byte closes its JSON.
 */
async function heapSnapshot(): Promise<void> {
  const before = new Set(readdirSync(logDir));
  process.kill(instance.bot.pid!, "SIGUSR2");
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    await sleep(2000);
    const file = readdirSync(logDir).find((f) => f.endsWith(".heapsnapshot") && !before.has(f));
    if (!file) continue;
    const path = join(logDir, file);
    const size = statSync(path).size;
    await sleep(2000);
    if (size > 0 && statSync(path).size === size) {
      snapshots.push(path);
      console.log(`heap snapshot ${snapshots.length}: ${path} (${(size / 1e6).toFixed(0)} MB)`);
      return;
    }
  }
  console.log("heap snapshot: none written within 5 minutes");
}

/** Marks the results shown since the last look, in the channels or privately (the chats' histories only grow). */
function collect(): number {
  const { posted, privately } = shownResults(world, dms);
  for (const command of commands) {
    if (command.deliveredAt !== undefined || command.refused) continue;
    if (privately.has(command.tag)) traffic.note(command.tag, "shown only to its person");
    if (posted.has(command.tag) || privately.has(command.tag)) command.deliveredAt = Date.now();
  }
  return commands.filter((c) => c.deliveredAt !== undefined).length;
}

const sender = (async () => {
  const gap = 60_000 / rate;
  for (let next = startedAt; Date.now() < endAt; next += gap) {
    await sleep(Math.max(0, next - Date.now()));
    if (inFlight >= concurrency) {
      skipped += 1;
      continue;
    }
    const index = commands.length;
    const scenario = mix[index % mix.length]!;
    const command: Command = {
      tag: `chaos-${index + 1}`,
      scenario: scenario.name,
      platform: scenario.platform,
      sentAt: Date.now(),
      acknowledged: false,
      refused: scenario.refused === true,
      notes: [],
    };
    commands.push(command);
    byTag.set(command.tag, command);
    inFlight += 1;
    void scenario
      .run(traffic, command.tag, index)
      .then(async (acknowledged) => {
        command.acknowledged = acknowledged;
        // A job holds its user's slot until its result shows (or for 10 minutes at most).
        const until = Date.now() + 600_000;
        while (
          acknowledged &&
          !command.refused &&
          !over &&
          command.deliveredAt === undefined &&
          Date.now() < until
        )
          await sleep(500);
      })
      .catch((error: unknown) =>
        console.log(`${command.tag} (${scenario.name}) failed to drive: ${String(error)}`),
      )
      .finally(() => {
        inFlight -= 1;
      });
  }
})();

while (Date.now() < endAt) {
  await sleep(Math.min(sampleMs, Math.max(0, endAt - Date.now())));
  const delivered = collect();
  const figures = await look(instance, storePath).catch((error: unknown) => {
    console.log(`look failed: ${String(error)}`);
    return undefined;
  });
  if (!figures) continue;
  const sample: Sample = { at: Date.now() - startedAt, sent: commands.length, delivered, ...figures };
  samples.push(sample);
  console.log(
    `${(sample.at / 60_000).toFixed(1)} min: sent ${sample.sent}, delivered ${delivered}, rss ${sample.rssMb.toFixed(0)} MB, heap ${sample.heapUsedMb.toFixed(1)} MB, handles ${sample.handles}, store ${sample.store.rows} rows / ${(sample.store.bytes / 1e6).toFixed(2)} MB`,
  );
  if (snapshotMarks[snapshots.length] !== undefined && Date.now() >= snapshotMarks[snapshots.length]!)
    await heapSnapshot();
}
if (snapshots.length < snapshotMarks.length) await heapSnapshot();
await sender;
loadAt.end = loadavg();
over = true;
// The last commands' results, for the delivered count (nothing is sampled meanwhile).
const drainEnd = Date.now() + 60_000;
while (Date.now() < drainEnd && collect() < commands.filter((c) => c.acknowledged && !c.refused).length)
  await sleep(1000);
collect();
const homePublishes = world.slack.calls.filter((c) => c.method === "views.publish" && c.answered.ok).length;
const tail = exitedDuringRun ? instance.bot.tail(20) : "";
await instance.bot.kill();
const storeFileMb = statSync(storePath).size / 1e6;
const finalStore = await storeFigures(storePath);
await world.close();
console.log(JSON.stringify(finalStore));

const files = write(
  values.out,
  {
    command: `npm run bench -- soak ${process.argv.slice(2).join(" ")}`.trim(),
    minutes,
    rate,
    timeScale,
    retentionMinutes,
    concurrency,
    skipped,
    exitedDuringRun: exitedDuringRun ? tail : false,
    load: loadAt,
    machine: {
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryGb: Math.round(totalmem() / 1e8) / 10,
      node: process.version,
    },
    storeFileMb,
    logDir,
    setup,
    homePublishes,
    heapSnapshots: snapshots,
  },
  commands,
  samples,
);
console.log(`written: ${files.json}, ${files.md}; logs: ${logDir}`);
// The guard: a heap that keeps growing, or a bot that exited, fails the run (once it is written).
if (files.heapGrows || exitedDuringRun) process.exitCode = 1;
