/**
 * What the replica-acknowledged writes cost per job (docs/scaling.md, "Redis that fails over"):
 * one bot process (`node dist/main.js`, Slack over HTTP) on Redis behind Sentinel (a primary, its
 * replica and three sentinels: real redis-server processes), `--jobs` image commands in bursts of
 * `--burst`, each made, tracked, delivered and settled; then the same on one Redis without a
 * replica, where nothing waits. From the bot's /metrics (mediabot_store_replica_ack_seconds) and
 * the primary's INFO commandstats: acknowledgements per job, WAIT round trips per job (one SET and
 * one WAIT each, pipelined, on a connection of their own), and the time the bot waited for them.
 *
 *   npm run bench -- replica-acks [--jobs 100] [--burst 20] [--rounds 3]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { createClient, type RedisClientType } from "@keyv/redis";
import { startEmulator } from "../../test/fakes/media-api/index.js";
import { startFakeSlack } from "../../test/fakes/slack/index.js";
import { BotProcess, freePort } from "../../test/main-process.js";
import { type RedisNode, spawnRedis, startSentinelGroup } from "../../test/store/redis-process.js";
import { median } from "../stats.js";

const root = new URL("../..", import.meta.url).pathname;
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    jobs: { type: "string", default: "100" },
    burst: { type: "string", default: "20" },
    rounds: { type: "string", default: "3" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
  },
});
const JOBS = Number(values.jobs);
const BURST = Number(values.burst);
const ROUNDS = Number(values.rounds);

interface Figures {
  store: string;
  jobs: number;
  /** replicated() calls per job: the points where the bot waits for a replica before it acts. */
  acknowledgementsPerJob: number;
  /** WAIT commands per job: lane round trips (SET + WAIT), shared by the acknowledgements asked meanwhile. */
  waitRoundTripsPerJob: number;
  /** What the bot waited for them, per job, in ms (the sum over its acknowledgements). */
  waitedMsPerJob: number;
  /** Of single acknowledgements: the share answered within 0.5 ms, 1 ms and 2.5 ms. */
  answeredWithin: Record<string, number>;
  /** Every command the primary ran per job (the sentinels' own PING and INFO left out). */
  redisCommandsPerJob: number;
  seconds: number;
}

async function admin(node: RedisNode): Promise<RedisClientType> {
  const client: RedisClientType = createClient({ socket: { ...node, reconnectStrategy: false } });
  client.on("error", () => {});
  await client.connect();
  return client;
}

async function commandCalls(client: RedisClientType): Promise<Record<string, number>> {
  const calls: Record<string, number> = {};
  for (const match of (await client.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls[match[1]!] = Number(match[2]);
  return calls;
}

/** The histogram's count, sum and cumulative buckets from a Prometheus text page. */
function histogram(text: string, name: string) {
  const number = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const buckets = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`, "gm")))
    buckets.set(m[1]!, Number(m[2]));
  return {
    count: number(new RegExp(`^${name}_count (\\d+)`, "m")),
    sum: number(new RegExp(`^${name}_sum ([\\d.e+-]+)`, "m")),
    buckets,
  };
}

async function run(store: string, env: Record<string, string>, primary: () => Promise<RedisNode>) {
  const slack = await startFakeSlack();
  const emu = await startEmulator({ timeScale: 0.01 });
  emu.account("test-key").creditsLimit = 1e9;
  const port = await freePort();
  const bot = BotProcess.start(
    {
      INSTANCE_ID: `acks-${store}`,
      PORT: String(port),
      MEDIA_API_URL: emu.url,
      MEDIA_API_KEY: "test-key",
      MEDIA_API_KEY_TENANTS: "*",
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: slack.signingSecret,
      SLACK_API_URL: slack.apiUrl,
      USER_COMMANDS_PER_MINUTE: "0",
      TENANT_COMMANDS_PER_MINUTE: "0",
      ...env,
    },
    "dist",
  );
  try {
    await bot.ready(60_000);
    const url = `http://127.0.0.1:${port}/slack/events`;
    const users = Array.from({ length: BURST }, (_, i) => slack.addUser(`acks ${i}`).id);
    // A channel each: Slack's one post a second per channel is not what is measured.
    const channels = Array.from({ length: BURST }, (_, i) => slack.addChannel(`acks-${i}`));
    const finished = () =>
      channels
        .flatMap((channel) => slack.messages(channel))
        .filter((m) =>
          /"type":"header","text":\{"type":"plain_text","text":"✅/.test(JSON.stringify(m.blocks)),
        ).length;
    const metric = async () =>
      histogram(
        await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
        "mediabot_store_replica_ack_seconds",
      );
    const redis = await admin(await primary());
    // A first burst warms up (modules, JIT, connections) and is not counted.
    const send = async (from: number, count: number) => {
      const before = finished();
      await Promise.all(
        Array.from({ length: count }, (_, i) =>
          slack.slashCommand(url, {
            text: `image generate a red fox ${from + i}`,
            user: users[i % BURST]!,
            channel: channels[i % BURST]!,
          }),
        ),
      );
      const deadline = Date.now() + 120_000;
      while (finished() < before + count) {
        if (Date.now() > deadline) throw new Error(`${finished() - before} of ${count} delivered`);
        await sleep(50);
      }
    };
    await send(-BURST, BURST);
    // The bookkeeping of a job lands right after its start: let the warm-up's settle.
    await sleep(1_000);
    const [calls, acks] = [await commandCalls(redis), await metric()];
    const startedAt = Date.now();
    for (let sent = 0; sent < JOBS; sent += BURST) await send(sent, Math.min(BURST, JOBS - sent));
    await sleep(1_000);
    const seconds = (Date.now() - startedAt) / 1000;
    const [callsAfter, acksAfter] = [await commandCalls(redis), await metric()];
    redis.destroy();
    const delta = (name: string) => (callsAfter[name] ?? 0) - (calls[name] ?? 0);
    const sentinels = new Set([
      "ping",
      "info",
      "publish",
      "subscribe",
      "client|setname",
      "role",
      "config|rewrite",
    ]);
    const commands = Object.keys(callsAfter)
      .filter((name) => !sentinels.has(name))
      .reduce((sum, name) => sum + delta(name), 0);
    const count = acksAfter.count - acks.count;
    const within = (le: string) =>
      count === 0 ? 0 : ((acksAfter.buckets.get(le) ?? 0) - (acks.buckets.get(le) ?? 0)) / count;
    const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
    return {
      store,
      jobs: JOBS,
      acknowledgementsPerJob: round(count / JOBS),
      waitRoundTripsPerJob: round(delta("wait") / JOBS),
      waitedMsPerJob: round(((acksAfter.sum - acks.sum) * 1000) / JOBS, 3),
      answeredWithin: {
        "0.5 ms": round(within("0.0005")),
        "1 ms": round(within("0.001")),
        "2.5 ms": round(within("0.0025")),
      },
      redisCommandsPerJob: round(commands / JOBS, 1),
      seconds: round(seconds, 1),
    } satisfies Figures;
  } finally {
    await bot.kill();
    await Promise.all([slack.close(), emu.close()]);
  }
}

console.log("building dist/ (npm run build)");
execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
const rounds: Figures[][] = [];
for (let r = 0; r < ROUNDS; r++) {
  const group = await startSentinelGroup({ downAfterMs: 5_000 });
  const withReplica = await run(
    "sentinel: a primary, its replica",
    { REDIS_SENTINELS: group.setting, REDIS_SENTINEL_NAME: group.name },
    () => group.primary(),
  ).finally(() => group.stop());
  const port = await freePort();
  const alone = await spawnRedis(port, ["--save", "", "--appendonly", "no"]);
  const withoutReplica = await run(
    "one redis, no replica",
    { STORE_URL: `redis://127.0.0.1:${port}` },
    async () => ({
      host: "127.0.0.1",
      port,
    }),
  ).finally(() => alone.stop());
  console.log(JSON.stringify([withReplica, withoutReplica], null, 2));
  rounds.push([withReplica, withoutReplica]);
}

/** Each figure's median over the rounds. */
const medianOf = (i: number): Figures => {
  const all = rounds.map((r) => r[i]!);
  const m = (pick: (f: Figures) => number) => median(all.map(pick));
  return {
    store: all[0]!.store,
    jobs: JOBS,
    acknowledgementsPerJob: m((f) => f.acknowledgementsPerJob),
    waitRoundTripsPerJob: m((f) => f.waitRoundTripsPerJob),
    waitedMsPerJob: m((f) => f.waitedMsPerJob),
    answeredWithin: Object.fromEntries(
      Object.keys(all[0]!.answeredWithin).map((k) => [k, m((f) => f.answeredWithin[k] ?? 0)]),
    ),
    redisCommandsPerJob: m((f) => f.redisCommandsPerJob),
    seconds: m((f) => f.seconds),
  };
};
const summary = [medianOf(0), medianOf(1)];
const machine = `${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 1e9)} GB, Node ${process.version}, load ${loadavg()
  .map((l) => l.toFixed(1))
  .join(" ")}`;
const command = `npm run bench -- replica-acks ${process.argv.slice(2).join(" ")}`.trim();
mkdirSync(values.out, { recursive: true });
writeFileSync(
  join(values.out, "replica-acks.json"),
  `${JSON.stringify({ date: new Date().toISOString(), command, machine, summary, rounds }, null, 2)}\n`,
);
const row = (f: Figures) =>
  `| ${f.store} | ${f.acknowledgementsPerJob} | ${f.waitRoundTripsPerJob} | ${f.waitedMsPerJob} ms | ${Object.entries(
    f.answeredWithin,
  )
    .map(([k, v]) => `${Math.round(v * 100)}% within ${k}`)
    .join(", ")} | ${f.redisCommandsPerJob} | ${f.seconds} s |`;
writeFileSync(
  join(values.out, "replica-acks.md"),
  [
    "# Benchmark: replica acknowledgements per job",
    "",
    `${new Date().toISOString()} - ${machine}`,
    "",
    `Command: \`${command}\`. One bot process (\`node dist/main.js\`, Slack over HTTP), ${JOBS} image commands in bursts of ${BURST} (a first burst not counted), each made, tracked, delivered and settled; medians of ${ROUNDS} rounds, each on new redis-server processes.`,
    "",
    "| store | acknowledgements per job | WAIT round trips per job | waited per job | single acknowledgements | Redis commands per job | run |",
    "|---|---|---|---|---|---|---|",
    ...summary.map(row),
    "",
    "- An acknowledgement is a point where the bot waits for a replica before it acts (`mediabot_store_replica_ack_seconds`): a start before its creation call (its claim, reservation and intent), the job's record and its message after it, a delivery's claim and `delivering` before the post, its `delivered` after it, and the job's settlement.",
    "- A WAIT round trip is one SET and one WAIT, pipelined, on the acknowledgement connection of its own (the primary's INFO commandstats): the acknowledgements asked while one is on its way share the next, so under load there are fewer round trips than acknowledgements.",
    "- Without a replica in sync the bot knows it from ROLE (asked every second) and waits for nothing: the same acknowledgements cost no command.",
    "- Redis commands per job: every command the primary ran during the measured bursts over the jobs, the sentinels' own PING, INFO, PUBLISH and the bot's ROLE (once a second, not per job) left out.",
    "",
  ].join("\n"),
);
console.log(`written: ${join(values.out, "replica-acks.md")}, .json`);
