/**
 * The chaos campaign: the real bot process (`node dist/main.js`, built first), the media API
 * emulator and both fake chats, a mix of every job kind on both platforms, and SIGKILLs at
 * chosen moments of the job life (during a creation call, while polling, during a confirm,
 * during an upload, right after a post), each followed by a restart with the same INSTANCE_ID.
 * Then a second run with two instances on one store, killing one of them: the survivor must take
 * over its jobs. With `--pair-store redis`, that second run also stops the redis-server for 15 to
 * 60 s among its moments (and starts it again with its data): the store goes away under load.
 * With `--pair-store sentinel` the two instances find their Redis through three sentinels, and
 * every other moment of the second run SIGKILLs the Redis primary instead of a bot: the sentinels
 * promote its replica (the killed node comes back as the new one's replica). That run's report is
 * bench/results/chaos-sentinel.md and .json.
 *
 *   npm run bench -- chaos [--kills 100] [--pair-kills 10] [--pair-store sqlite|redis|sentinel]
 *                          [--time-scale 0.1] [--concurrency 10] [--drain 60] [--seed 1]
 *                          [--entry dist|src] [--out bench/results] [--logs DIR]
 *                          [--moments creation,post] [--scenarios design,cinematic]
 *
 * --kills: kills of the single-instance run, --pair-kills: of the two-instance run (0 skips either;
 * with sentinel, default 20: 10 bot kills and 10 promotions);
 * --time-scale: the emulator's job durations (0.1: a 3-minute video takes 18 s, an image 2 s); --drain: seconds
 * results may take after the last kill; --entry src runs src/main.ts through tsx, without a build.
 * --logs: where each run keeps every bot process's log, its store and a trace of the chats and
 * the service's calls (default: a temp dir, named at the end), to trace a lost or doubled tag;
 * --moments / --scenarios: only these moments / the scenarios whose name holds one of these words
 * (to reproduce one class fast).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CrashWorld } from "../../test/crash-world.js";
import {
  type RestartableRedis,
  type SentinelGroup,
  startRestartableRedis,
  startSentinelGroup,
} from "../../test/store/redis-process.js";
import { seededRandom } from "../random.js";
import { percentile } from "../stats.js";
import {
  type CampaignResult,
  MOMENTS,
  type Moment,
  PRIMARY_KILL,
  runCampaign,
  STORE_OUTAGE,
  type Summary,
  summarize,
} from "./campaign.js";
import { SCENARIOS, type Scenario, TAG, weighted } from "./mix.js";
import { type RunReport, write } from "./report.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    kills: { type: "string", default: "100" },
    "pair-kills": { type: "string" },
    "pair-store": { type: "string", default: "sqlite" },
    "time-scale": { type: "string", default: "0.1" },
    concurrency: { type: "string", default: "10" },
    drain: { type: "string", default: "60" },
    seed: { type: "string", default: "1" },
    entry: { type: "string", default: "dist" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
    logs: { type: "string" },
    moments: { type: "string" },
    scenarios: { type: "string" },
  },
});
const entry = values.entry === "src" ? "src" : "dist";
const timeScale = Number(values["time-scale"]);
const pairStore =
  (["redis", "sentinel"] as const).find((store) => store === values["pair-store"]) ?? "sqlite";

const logsRoot = values.logs ?? mkdtempSync(join(tmpdir(), "chaos-logs-"));
const onlyMoments = values.moments?.split(",");
const onlyScenarios = values.scenarios?.split(",");
const chosen = (scenario: Scenario) => !onlyScenarios || onlyScenarios.some((w) => scenario.name.includes(w));

const random = seededRandom(Number(values.seed));
const log = (line: string) => console.log(line);
const root = new URL("../..", import.meta.url).pathname;

async function campaign(
  name: string,
  kills: number,
  options: {
    instances: string[];
    discord: boolean;
    moments: readonly Moment[];
    storeUrl?: string;
    store?: RestartableRedis;
    failover?: SentinelGroup;
    env?: Record<string, string>;
  },
): Promise<RunReport> {
  const logDir = join(logsRoot, options.instances.length > 1 ? "pair" : "single");
  mkdirSync(logDir, { recursive: true });
  const world = await CrashWorld.start({
    timeScale,
    entry,
    discord: options.discord,
    logDir,
    ...(options.storeUrl && { storeUrl: options.storeUrl }),
    ...(options.env && { env: options.env }),
  });
  try {
    console.log(`== ${name}: ${kills} kills, instances ${options.instances.join(", ")}`);
    const result = await runCampaign({
      world,
      instances: options.instances,
      kills,
      moments: options.moments.filter((m) => !onlyMoments || onlyMoments.includes(m)),
      scenarios: weighted(SCENARIOS.filter((s) => (options.discord || s.platform === "slack") && chosen(s))),
      concurrency: Number(values.concurrency),
      armMs: 10_000,
      pauseMs: 1_000,
      takeoverMs: 30_000,
      drainMs: Number(values.drain) * 1000,
      ...(options.store && { store: options.store, outageMs: [15_000, 60_000] }),
      ...(options.failover && { failover: options.failover }),
      random,
      log,
    });
    const summary: Summary = summarize(world, result, percentile);
    console.log(JSON.stringify(summary, null, 2));
    keepTrace(world, result, logDir);
    return {
      name,
      instances: options.instances,
      summary,
      missedMoments: result.missedMoments,
      unexpectedExits: result.unexpectedExits,
      durationMs: result.durationMs,
      kills: result.kills,
    };
  } finally {
    await world.close();
  }
}

/** What a lost or doubled tag is traced with, beside the processes' logs: the store, the chats, the calls. */
function keepTrace(world: CrashWorld, result: CampaignResult, dir: string): void {
  const store = world.storeUrl.replace(/^sqlite:\/\//, "");
  for (const suffix of ["", "-wal", "-shm"])
    if (world.storeUrl.startsWith("sqlite://") && existsSync(store + suffix))
      copyFileSync(store + suffix, join(dir, `bot.sqlite${suffix}`));
  const trace = {
    commands: result.commands,
    kills: result.kills,
    slack: world.slack.messages(),
    discord: world.discord?.messages() ?? [],
    service: world.emu.calls.map(({ at, method, path, status, json, fields }) => ({
      at,
      method,
      path,
      status,
      tag: TAG.exec(JSON.stringify(json ?? fields ?? {}))?.[0],
    })),
  };
  writeFileSync(join(dir, "trace.json"), JSON.stringify(trace, null, 1));
}

if (entry === "dist") {
  console.log("building dist/ (npm run build)");
  execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
}
const command = `npm run bench -- chaos ${process.argv.slice(2).join(" ")}`.trim();
const runs: RunReport[] = [];
const kills = Number(values.kills);
if (kills > 0)
  runs.push(
    await campaign("one instance, both platforms", kills, {
      instances: ["chaos-a"],
      discord: true,
      moments: MOMENTS,
    }),
  );
const pairKills = Number(values["pair-kills"] ?? (pairStore === "sentinel" ? 20 : 10));
// The chat's posts cannot be told apart per instance: the other moments are per instance.
const pairMoments = MOMENTS.filter((m) => m !== "post");
if (pairKills > 0 && pairStore === "sentinel") {
  const group = await startSentinelGroup({ downAfterMs: 1_000 });
  try {
    runs.push(
      await campaign("two instances on Redis behind Sentinel, its primary killed, Slack", pairKills, {
        instances: ["chaos-a", "chaos-b"],
        discord: false,
        // Every other moment promotes a replica: as many promotions as bot kills.
        moments: pairMoments.flatMap((m) => [m, PRIMARY_KILL] as const),
        storeUrl: `redis://${group.name}`,
        env: { REDIS_SENTINELS: group.setting, REDIS_SENTINEL_NAME: group.name },
        failover: group,
      }),
    );
  } finally {
    await group.stop();
  }
} else if (pairKills > 0) {
  const redis = pairStore === "redis" ? await startRestartableRedis() : undefined;
  try {
    runs.push(
      await campaign(`two instances on one ${pairStore} store, Slack`, pairKills, {
        instances: ["chaos-a", "chaos-b"],
        // The fake gateway keeps one session per bot token, as Discord does for one shard.
        discord: false,
        // On redis the store itself goes away among them (restarted with its data).
        moments: [...pairMoments, ...(redis ? ([STORE_OUTAGE] as const) : [])],
        ...(redis && { storeUrl: redis.url, store: redis }),
      }),
    );
  } finally {
    await redis?.stop();
  }
}
const machine = {
  cpus: availableParallelism(),
  cpuModel: cpus()[0]?.model ?? "unknown",
  memoryGb: Math.round(totalmem() / 1e8) / 10,
  node: process.version,
};
const files = write(
  values.out,
  { command, timeScale, entry, concurrency: Number(values.concurrency), seed: Number(values.seed), machine },
  runs,
  pairStore === "sentinel" ? "chaos-sentinel" : "chaos",
);
console.log(`written: ${files.json}, ${files.md}; logs, stores and traces: ${logsRoot}`);
