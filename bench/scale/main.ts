/**
 * Replicas on one redis: 1, 2 and 4 real bot processes, measured in two parts.
 *
 *   npm run bench -- scale [--replicas 1,2,4] [--burst 200] [--rounds 3] [--jobs 20000] [--speed 3]
 *                          [--parts acks,jobs] [--name scale]
 *
 * Acks: `node dist/main.js` replicas (Slack over HTTP) behind a round-robin balancer; bursts of
 * `--burst` signed slash commands sent at once, each acknowledged by whichever replica the
 * balancer picked; p50/p99 in all and per replica. The replicas do the whole work behind the acks
 * (job messages, creation calls, polling), against the fakes in this process.
 *
 * Jobs: `--jobs` unfinished jobs in the store (seeded once, snapshotted, loaded again before each
 * replica count), taken up and polled by N engine processes (bench/scale/replica.ts) against the
 * emulator (its clock `--speed` times real time): status requests per job, delivery delay,
 * redis commands per job (INFO commandstats), and jobs whose status was read by two replicas at
 * overlapping times (must be 0).
 *
 * --parts runs only the named parts (both by default); --name names the results files.
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { createMediaClient } from "../../src/core/api/index.js";
import { startEmulator } from "../../test/fakes/media-api/index.js";
import { sign, startFakeSlack } from "../../test/fakes/slack/index.js";
import { BotProcess, freePort, startFlags } from "../../test/main-process.js";
import type { BotResult } from "../jobs/bot-process.js";
import type { EmulatorMessage, EmulatorReply } from "../jobs/emulator-process.js";
import { drawJobs } from "../jobs/mix.js";
import { figures } from "../jobs/report.js";
import { seedJobs } from "../jobs/seed.js";
import { percentile } from "../stats.js";
import type { BurstRequest, Timed } from "./burst-process.js";
import { BenchRedis } from "./redis.js";
import type { ReplicaArgs, ReplicaResult } from "./replica.js";

const root = new URL("../..", import.meta.url).pathname;
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    replicas: { type: "string", default: "1,2,4" },
    burst: { type: "string", default: "200" },
    rounds: { type: "string", default: "3" },
    jobs: { type: "string", default: "20000" },
    speed: { type: "string", default: "3" },
    parts: { type: "string", default: "acks,jobs" },
    name: { type: "string", default: "scale" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
  },
});
const counts = values.replicas.split(",").map(Number);
const BURST = Number(values.burst);
const ROUNDS = Number(values.rounds);
const JOBS = Number(values.jobs);
const SPEED = Number(values.speed);
const PARTS = new Set(values.parts.split(",").map((part) => part.trim()));

interface Spread {
  p50: number;
  p99: number;
  max: number;
}

interface AckFigures {
  replicas: number;
  all: Spread & { failed: number };
  perReplica: (Spread & { acks: number })[];
}

interface JobFigures {
  replicas: number;
  requestsPerJob: number;
  delayP50Ms: number;
  delayP95Ms: number;
  redisCommandsPerJob: number;
  /** The same by command (INFO commandstats counts the commands a script runs too), most first. */
  redisCommandsByName: Record<string, number>;
  /** Jobs whose status two replicas read at overlapping times. */
  polledByTwoAtOnce: number;
  /** Jobs whose status more than one replica ever read. */
  polledByTwo: number;
  deliveredTwice: number;
  /** The longest a replica's start() took: taking up its share of the jobs. */
  takeUpSeconds: number;
  seconds: number;
  perReplica: { instanceId: string; jobs: number; reads: number; cpuSeconds: number; peakRssMb: number }[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
const spread = (times: number[]): Spread => {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: round1(percentile(sorted, 50)),
    p99: round1(percentile(sorted, 99)),
    max: round1(sorted.at(-1) ?? 0),
  };
};

// ---- acks ----------------------------------------------------------------------------------------

async function acks(redis: BenchRedis, replicas: number): Promise<AckFigures> {
  await redis.admin.flushAll();
  const slack = await startFakeSlack();
  const emu = await startEmulator({ timeScale: 0.01 });
  emu.account("test-key").creditsLimit = 1e9;
  const bots = await Promise.all(
    Array.from({ length: replicas }, async (_, i) => {
      const port = await freePort();
      const bot = BotProcess.start(
        {
          INSTANCE_ID: `scale-${i}`,
          PORT: String(port),
          MEDIA_API_URL: emu.url,
          MEDIA_API_KEY: "test-key",
          MEDIA_API_KEY_TENANTS: "*",
          STORE_URL: redis.url,
          SLACK_BOT_TOKEN: slack.botToken,
          SLACK_SIGNING_SECRET: slack.signingSecret,
          SLACK_API_URL: slack.apiUrl,
          // A team at once: the per-person and per-workspace rates are not what is measured.
          USER_COMMANDS_PER_MINUTE: "0",
          TENANT_COMMANDS_PER_MINUTE: "0",
        },
        "dist",
      );
      return { bot, origin: `http://127.0.0.1:${port}` };
    }),
  );
  const burst = fork(new URL("./burst-process.ts", import.meta.url).pathname, [
    JSON.stringify(bots.map((b) => b.origin)),
  ]);
  try {
    await Promise.all(bots.map((b) => b.bot.ready(60_000)));
    await message(burst, (m: { type?: string }) => m.type === "ready");
    const signed = (text: string, user: string): BurstRequest => {
      const payload = { ...slack.payloads.slashCommand({ text }).payload, user_id: user, user_name: user };
      const body = new URLSearchParams(payload).toString();
      const timestamp = Math.floor(Date.now() / 1000);
      return {
        body,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-slack-request-timestamp": String(timestamp),
          "x-slack-signature": sign(slack.signingSecret, timestamp, body),
        },
      };
    };
    const timed: Timed[] = [];
    // Round 0 warms up (modules, JIT, connections) and is not counted.
    for (let round = 0; round <= ROUNDS; round += 1) {
      const requests = Array.from({ length: BURST }, (_, i) =>
        signed(`image generate a red fox ${round}-${i} --seed ${i}`, `U0SCALE${round}X${i}`),
      );
      burst.send({ requests });
      const answers = await message<Timed[]>(burst, (m) => Array.isArray(m));
      if (round > 0) timed.push(...answers);
      await drained(() => slack.calls.length + emu.calls.length);
    }
    return {
      replicas,
      all: { ...spread(timed.map((t) => t.ms)), failed: timed.filter((t) => !t.ok).length },
      perReplica: Array.from({ length: replicas }, (_, i) => {
        const mine = timed.filter((t) => t.replica === i).map((t) => t.ms);
        return { acks: mine.length, ...spread(mine) };
      }),
    };
  } finally {
    burst.disconnect();
    await Promise.all(bots.map((b) => b.bot.kill()));
    await Promise.all([slack.close(), emu.close()]);
  }
}

/** Waits until the work behind a burst is done: no call to the fakes for a second. */
async function drained(calls: () => number): Promise<void> {
  let last = -1;
  while (calls() !== last) {
    last = calls();
    await sleep(1_000);
  }
}

// ---- jobs ----------------------------------------------------------------------------------------

async function seed(redis: BenchRedis, emulator: ChildProcess) {
  console.log(`seeding ${JOBS} jobs`);
  const ready = await reply(emulator, "ready");
  const planned = drawJobs(JOBS);
  send(emulator, {
    type: "plan",
    plans: planned.map((j) => ({ kind: j.entry.planned, durationMs: j.durationMs })),
  });
  await reply(emulator, "planned");
  const seededAt = Date.now();
  const client = createMediaClient({ baseUrl: ready.url });
  const jobs = await seedJobs(client.as(ready.apiKey), planned, redis.url, ready);
  await client.close();
  await redis.snapshot();
  return { ready, jobs, seededAt };
}

async function tracked(
  redis: BenchRedis,
  emulator: ChildProcess,
  seeded: Awaited<ReturnType<typeof seed>>,
  replicas: number,
): Promise<JobFigures> {
  await redis.restart();
  const before = await redis.commandCalls();
  const children = Array.from({ length: replicas }, (_, i) => {
    const args: ReplicaArgs = {
      instanceId: `scale-${i}`,
      storeUrl: redis.url,
      mediaUrl: seeded.ready.url,
      apiKey: seeded.ready.apiKey,
      speed: SPEED,
      seededAt: seeded.seededAt,
      caps: { maxRequestsPerSecond: 20_000, maxConcurrentRequests: 128 },
    };
    return fork(new URL("./replica.ts", import.meta.url).pathname, [JSON.stringify(args)], {
      execArgv: ["--import", "tsx", ...startFlags()],
    });
  });
  await Promise.all(children.map((c) => message(c, (m: { type?: string }) => m.type === "ready")));
  const delivered = children.map(() => 0);
  for (const [i, c] of children.entries()) {
    c.on("message", (m: { type?: string; count?: number }) => {
      if (m.type === "delivered") delivered[i] = m.count ?? 0;
    });
  }
  send(emulator, { type: "go", speed: SPEED });
  const { at } = await reply(emulator, "going");
  for (const c of children) c.send({ type: "go" });
  const longest = Math.max(...seeded.jobs.map((j) => j.durationMs)) / SPEED;
  const deadline = Date.now() + longest + 180_000;
  while (delivered.reduce((a, b) => a + b, 0) < seeded.jobs.length) {
    if (Date.now() > deadline)
      throw new Error(`only ${delivered.join("+")} of ${seeded.jobs.length} delivered`);
    await sleep(500);
  }
  const seconds = Math.round((Date.now() - at) / 1000);
  const after = await redis.commandCalls();
  const results = await Promise.all(
    children.map((c) => {
      const result = message<ReplicaResult>(c, (m) => (m as { type?: string }).type === "result");
      c.send({ type: "stop" });
      return result;
    }),
  );
  const byName = Object.entries(after)
    .map(([name, n]) => [name, n - (before[name] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const commands = byName.reduce((sum, [, n]) => sum + n, 0);
  return {
    replicas,
    ...merged(results, seeded, at),
    redisCommandsPerJob: round1(commands / seeded.jobs.length),
    redisCommandsByName: Object.fromEntries(
      byName.map(([name, n]) => [name, round2(n / seeded.jobs.length)]),
    ),
    seconds,
  };
}

/** The replicas' observations as one bot's, for bench/jobs's figures, and what only several can show. */
function merged(results: ReplicaResult[], seeded: Awaited<ReturnType<typeof seed>>, at: number) {
  const whole: BotResult = {
    type: "done",
    strategy: "adaptive",
    reads: {},
    deliveredAt: {},
    seenDoneAt: {},
    redelivered: [],
    progressEdits: 0,
    peakRssBytes: 0,
    peakHeapBytes: 0,
    eventLoopDelayMs: { p50: 0, p99: 0, max: 0 },
    startMs: 0,
    wallMs: 0,
    cpuUserMs: 0,
    cpuSystemMs: 0,
    seconds: [],
  };
  const intervals = new Map<string, { replica: number; start: number; end: number }[]>();
  for (const [replica, r] of results.entries()) {
    for (const [id, list] of Object.entries(r.reads)) {
      whole.reads[id] = (whole.reads[id] ?? 0) + list.length / 2;
      const mine = intervals.get(id) ?? [];
      for (let i = 0; i < list.length; i += 2) mine.push({ replica, start: list[i]!, end: list[i + 1]! });
      intervals.set(id, mine);
    }
    for (const [id, time] of Object.entries(r.deliveredAt)) {
      if (whole.deliveredAt[id] !== undefined) whole.redelivered.push(id);
      whole.deliveredAt[id] = Math.min(time, whole.deliveredAt[id] ?? time);
    }
    for (const [id, time] of Object.entries(r.seenDoneAt))
      whole.seenDoneAt[id] = Math.min(time, whole.seenDoneAt[id] ?? time);
    whole.redelivered.push(...r.redelivered);
  }
  let polledByTwo = 0;
  let polledByTwoAtOnce = 0;
  for (const list of intervals.values()) {
    if (new Set(list.map((l) => l.replica)).size < 2) continue;
    polledByTwo += 1;
    const overlap = list.some((a) =>
      list.some((b) => a.replica !== b.replica && a.start < b.end && b.start < a.end),
    );
    if (overlap) polledByTwoAtOnce += 1;
  }
  const f = figures(whole, seeded.jobs, at, SPEED);
  return {
    requestsPerJob: f.requestsPerJob,
    delayP50Ms: f.delayP50Ms,
    delayP95Ms: f.delayP95Ms,
    polledByTwoAtOnce,
    polledByTwo,
    deliveredTwice: whole.redelivered.length,
    takeUpSeconds: round1(Math.max(...results.map((r) => r.takeUpMs)) / 1000),
    perReplica: results.map((r) => ({
      instanceId: r.instanceId,
      jobs: Object.keys(r.deliveredAt).length,
      reads: Object.values(r.reads).reduce((sum, list) => sum + list.length / 2, 0),
      cpuSeconds: r.cpuSeconds,
      peakRssMb: round1(r.peakRssBytes / 2 ** 20),
    })),
  };
}

// ---- child processes -----------------------------------------------------------------------------

function send(emulator: ChildProcess, m: EmulatorMessage): void {
  emulator.send(m);
}

function reply<T extends EmulatorReply["type"]>(emulator: ChildProcess, type: T) {
  return message(emulator, (m: EmulatorReply) => m.type === type) as Promise<
    Extract<EmulatorReply, { type: T }>
  >;
}

function message<T>(child: ChildProcess, match: (m: T) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: T) => {
      if (!match(m)) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(m);
    };
    const onExit = (code: number | null) => reject(new Error(`benchmark child exited early (code ${code})`));
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

// ---- report --------------------------------------------------------------------------------------

function markdown(
  ack: AckFigures[],
  jobs: JobFigures[],
  load: { before: number[]; after: number[] },
): string {
  const machine = `${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${round1(totalmem() / 2 ** 30)} GB, Node ${process.version}`;
  const avg = (l: number[]) => l.map((n) => n.toFixed(2)).join(", ");
  const acksPart = [
    `## Acks: ${BURST} signed Slack commands at once, ${ROUNDS} rounds, through a round-robin balancer`,
    "",
    "Each replica is `node dist/main.js` (Slack over HTTP, STORE_URL on the one redis-server); the balancer and the sender run in a process of their own, the fake Slack and the emulator in another, all on this machine.",
    "",
    "| replicas | ack p50 (ms) | ack p99 (ms) | max (ms) | failed | per replica: acks, p50 / p99 (ms) |",
    "|---:|---:|---:|---:|---:|---|",
    ...ack.map(
      (a) =>
        `| ${a.replicas} | ${a.all.p50} | ${a.all.p99} | ${a.all.max} | ${a.all.failed} | ${a.perReplica.map((r) => `${r.acks}: ${r.p50} / ${r.p99}`).join("; ")} |`,
    ),
    "",
  ];
  const jobsPart = [
    `## Jobs: ${JOBS} unfinished jobs taken up and polled by the replicas' engines (emulator clock ${SPEED}x)`,
    "",
    "| replicas | status requests per job | delivery delay p50 / p95 (ms, service time) | redis commands per job | jobs polled by two replicas at once | jobs ever polled by two | delivered twice | take-up, slowest replica (s) | run (s) |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...jobs.map(
      (j) =>
        `| ${j.replicas} | ${j.requestsPerJob} | ${j.delayP50Ms} / ${j.delayP95Ms} | ${j.redisCommandsPerJob} | ${j.polledByTwoAtOnce} | ${j.polledByTwo} | ${j.deliveredTwice} | ${j.takeUpSeconds} | ${j.seconds} |`,
    ),
    "",
    "Redis commands per job, by command (INFO commandstats; a script's own commands count as well as its EVAL/EVALSHA):",
    "",
    ...jobs.map(
      (j) =>
        `- ${j.replicas} replica(s): ${Object.entries(j.redisCommandsByName)
          .map(([name, n]) => `${name} ${n}`)
          .join(", ")}`,
    ),
    "",
    "Per replica (jobs delivered, status reads, CPU seconds, peak RSS MB):",
    "",
    ...jobs.map(
      (j) =>
        `- ${j.replicas} replica(s): ${j.perReplica.map((r) => `${r.instanceId} ${r.jobs} jobs, ${r.reads} reads, ${r.cpuSeconds} s CPU, ${r.peakRssMb} MB`).join("; ")}`,
    ),
    "",
  ];
  return [
    "# Benchmark: scale (replicas on one redis)",
    "",
    `${new Date().toISOString()} - ${machine}. Load average (1, 5, 15 min) before: ${avg(load.before)}; after: ${avg(load.after)}.`,
    `Command: \`flock /tmp/bench.lock npm run bench -- scale ${process.argv.slice(2).join(" ")}\`.`,
    "",
    ...(PARTS.has("acks") ? acksPart : []),
    ...(PARTS.has("jobs") ? jobsPart : []),
  ].join("\n");
}

// ---- run -----------------------------------------------------------------------------------------

console.log("building dist/ (npm run build)");
execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
const dir = mkdtempSync(join(tmpdir(), "bench-scale-"));
const redis = await BenchRedis.start(dir);
const loadBefore = loadavg();
try {
  const ackFigures: AckFigures[] = [];
  for (const n of PARTS.has("acks") ? counts : []) {
    console.log(`acks: ${n} replica(s)`);
    const figures = await acks(redis, n);
    console.log(JSON.stringify(figures));
    ackFigures.push(figures);
  }
  const emulator = fork(new URL("../jobs/emulator-process.ts", import.meta.url).pathname, [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const jobFigures: JobFigures[] = [];
  try {
    await redis.admin.flushAll();
    const seeded = PARTS.has("jobs") ? await seed(redis, emulator) : undefined;
    for (const n of counts) {
      if (!seeded) break;
      console.log(`jobs: ${n} replica(s)`);
      const figures = await tracked(redis, emulator, seeded, n);
      console.log(JSON.stringify({ ...figures, perReplica: undefined }));
      jobFigures.push(figures);
    }
  } finally {
    emulator.disconnect();
  }
  const load = { before: loadBefore, after: loadavg() };
  const md = markdown(ackFigures, jobFigures, load);
  writeFileSync(join(values.out, `${values.name}.md`), md);
  writeFileSync(
    join(values.out, `${values.name}.json`),
    `${JSON.stringify({ at: new Date().toISOString(), settings: values, load, acks: ackFigures, jobs: jobFigures }, null, 2)}\n`,
  );
  console.log(md);
} finally {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
