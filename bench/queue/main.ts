/**
 * The queue under a crowd: `npm run bench -- queue [--people 50] [--each 20] [--duration 1000]
 * [--out bench/results]`.
 *
 * `people × each` `image generate` commands at once (1,000 by default) from 50 people of one
 * tenant, whose admins set a running limit of 3 per person and 20 for the tenant, and a queue
 * length of `each` (the default 10 would refuse the 14th of a person's 20 commands). The whole bot
 * runs in this process (createBot, real sqlite stores, the engine polling), against the media
 * API emulator; every job takes `--duration` ms at the service. The people all at once, each
 * person's commands one after the other as fast as the bot answers them.
 *
 * Checks and figures:
 * - every command made exactly one creation call (none lost, none twice), and every job ended;
 * - each person's jobs reached the service in the order they were asked;
 * - the wait of each person's first job, from the commands' sending to its creation call (p50,
 *   p95, max), against the target: one job's duration plus 2 s;
 * - the queue's store calls (each a round trip to sqlite: one statement, or two for a queued
 *   enqueue) per queued job, and in all.
 *
 * Writes bench/results/queue.json and queue.md.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { parseArgs } from "node:util";
import type { QueueStore } from "../../src/store/index.js";
import { actor, Harness } from "../../test/core/bot/harness.js";
import { percentile } from "../stats.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    people: { type: "string", default: "50" },
    each: { type: "string", default: "20" },
    duration: { type: "string", default: "1000" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
  },
});
const people = Number(values.people);
const each = Number(values.each);
const durationMs = Number(values.duration);
const total = people * each;
const PERSON_LIMIT = 3;
const TENANT_LIMIT = 20;
const TARGET_FIRST_WAIT_MS = durationMs + 2_000;
const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

const at = new Date().toISOString();
const loadBefore = uptime();
console.log(`queue: ${process.version}, ${availableParallelism()} cpus; ${loadBefore}`);

const h = await Harness.start({ jobLimit: PERSON_LIMIT });
await h.stores.tenants.update(
  { platform: "discord", tenantId: actor().tenantId },
  { tenantRunningLimit: TENANT_LIMIT, queueLimit: each },
);

// Every call of the queue's store, by step: each is one round trip to the store.
const calls = new Map<string, number>();
const queue = h.stores.queue as unknown as Record<string, (...args: unknown[]) => unknown>;
/** Each person's prompts in the order the bot took them (its queue's order), as the store saw them. */
const arrived = new Map<string, string[]>();
for (const name of Object.keys(queue) as (keyof QueueStore)[]) {
  const step = queue[name]!;
  queue[name] = (...args: unknown[]) => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    if (name === "enqueue") {
      const entry = args[0] as { userId: string; payload: string };
      const asked = (JSON.parse(entry.payload) as { options: { prompt: string } }).options.prompt;
      arrived.set(entry.userId, [...(arrived.get(entry.userId) ?? []), asked]);
    }
    return step(...args);
  };
}

for (let n = 0; n < total; n++) h.emu.planNextJob("image", { durationMs });
const prompt = (person: number, n: number) => `p${person}-${n}`;
const asked: { person: number; n: number }[] = [];
for (let person = 0; person < people; person++) for (let n = 0; n < each; n++) asked.push({ person, n });

// When each prompt's creation call was first seen (read every 10 ms).
const seen = new Map<string, number>();
const prompts = () =>
  h.creations("/api/image/generate").map((call) => (call.json as { prompt: string }).prompt);
const watch = setInterval(() => {
  const now = Date.now();
  for (const p of prompts()) if (!seen.has(p)) seen.set(p, now);
}, 10);

const sent = Date.now();
// The people all at once; each person's commands one after the other, as fast as the bot answers
// them (one person's two commands never come at the same instant).
await Promise.all(
  Array.from({ length: people }, async (_, person) => {
    for (let n = 0; n < each; n++) {
      await h.command(
        "image.generate",
        { prompt: prompt(person, n) },
        { actor: actor({ userId: `person-${person}` }) },
      );
    }
  }),
);
const answeredMs = Date.now() - sent;
// Every job ended once its person was told it is ready (the delivery's last step).
const ended = async () => {
  for (;;) {
    const told = h.chat.posts.filter((p) => p.options.idempotencyKey?.endsWith(":ready")).length;
    if (told >= total && prompts().length >= total) return;
    if (Date.now() - sent > 30 * 60_000) throw new Error(`only ${told} of ${total} jobs ended after 30 min`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};
await ended();
const wallMs = Date.now() - sent;
clearInterval(watch);
for (const p of prompts()) if (!seen.has(p)) seen.set(p, Date.now());

const made = prompts();
const counts = new Map<string, number>();
for (const p of made) counts.set(p, (counts.get(p) ?? 0) + 1);
const twice = [...counts.values()].filter((c) => c > 1).length;
const missing = asked.filter(({ person, n }) => !counts.has(prompt(person, n))).length;
const outOfOrderDetail: { took: string[]; made: string[] }[] = [];
for (let person = 0; person < people; person++) {
  const order = made.filter((p) => p.startsWith(`p${person}-`));
  const took = arrived.get(`person-${person}`) ?? [];
  if (order.join() !== took.join()) outOfOrderDetail.push({ took, made: order });
}
const outOfOrder = outOfOrderDetail.length;
const firstWaits = Array.from(
  { length: people },
  (_, person) => seen.get(arrived.get(`person-${person}`)![0]!)! - sent,
).sort((a, b) => a - b);
const queuedJobs = (calls.get("ready") ?? 0) as number;
const allCalls = [...calls.values()].reduce((a, b) => a + b, 0);
const figures = {
  commands: total,
  created: made.length,
  missing,
  twice,
  outOfOrderPeople: outOfOrder,
  outOfOrderDetail: outOfOrderDetail.slice(0, 5),
  queued: queuedJobs,
  answeredMs,
  wallMs,
  firstWait: {
    p50: percentile(firstWaits, 50),
    p95: percentile(firstWaits, 95),
    max: firstWaits.at(-1)!,
    targetP95: TARGET_FIRST_WAIT_MS,
  },
  storeCalls: Object.fromEntries([...calls.entries()].sort()),
  storeCallsPerQueuedJob: queuedJobs > 0 ? Math.round((allCalls / queuedJobs) * 100) / 100 : null,
  storeCallsPerCommand: Math.round((allCalls / total) * 100) / 100,
};
const pass =
  missing === 0 &&
  twice === 0 &&
  outOfOrder === 0 &&
  made.length === total &&
  figures.firstWait.p95 <= TARGET_FIRST_WAIT_MS;
await h.close();
const loadAfter = uptime();

const summary = {
  name: "queue",
  at,
  node: process.version,
  machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? "unknown" },
  uptime: { before: loadBefore, after: loadAfter },
  command: ["npm run bench -- queue", ...process.argv.slice(2)].join(" "),
  settings: {
    people,
    each,
    durationMs,
    personLimit: PERSON_LIMIT,
    tenantLimit: TENANT_LIMIT,
    queueLength: each,
  },
  figures,
  pass,
};
console.log(JSON.stringify(figures, null, 2));
console.log(pass ? "PASS" : "FAIL");
mkdirSync(values.out, { recursive: true });
writeFileSync(`${values.out}/queue.json`, `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(`${values.out}/queue.md`, markdown());
console.log(`written: ${values.out}/queue.json, queue.md`);
process.exitCode = pass ? 0 : 1;

function markdown(): string {
  const f = figures;
  const perStep = Object.entries(f.storeCalls)
    .map(([step, count]) => `${step} ${count}`)
    .join(", ");
  return [
    "# Queue: 1,000 commands at once in one tenant",
    "",
    `Run ${at} with \`${summary.command}\`, Node ${process.version}, ${summary.machine.cpus} cpus (${summary.machine.cpuModel}).`,
    "",
    `- \`uptime\` before: ${loadBefore}`,
    `- \`uptime\` after: ${loadAfter}`,
    "",
    `${total} \`image generate\` commands at once from ${people} people (${each} each) of one tenant: running limit ${PERSON_LIMIT} per person and ${TENANT_LIMIT} for the tenant, queue length ${each}. The whole bot in one process (createBot, sqlite stores, the engine), against the media API emulator; every job takes ${durationMs} ms at the service.`,
    "",
    "| figure | value | target | verdict |",
    "|---|---|---|---|",
    `| creation calls | ${f.created} for ${f.commands} commands | one each | ${f.created === f.commands && f.missing === 0 && f.twice === 0 ? "PASS" : "FAIL"} |`,
    `| commands never started / started twice | ${f.missing} / ${f.twice} | 0 / 0 | ${f.missing + f.twice === 0 ? "PASS" : "FAIL"} |`,
    `| people whose jobs started out of order | ${f.outOfOrderPeople} | 0 | ${f.outOfOrderPeople === 0 ? "PASS" : "FAIL"} |`,
    `| wait of each person's first job, p50 / p95 / max (ms) | ${f.firstWait.p50} / ${f.firstWait.p95} / ${f.firstWait.max} | p95 ≤ ${TARGET_FIRST_WAIT_MS} | ${f.firstWait.p95 <= TARGET_FIRST_WAIT_MS ? "PASS" : "FAIL"} |`,
    `| jobs that waited in the queue | ${f.queued} | | |`,
    `| queue store calls per queued job | ${f.storeCallsPerQueuedJob} (${f.storeCallsPerCommand} per command) | | |`,
    `| all commands answered (ms) | ${f.answeredMs} | | |`,
    `| all jobs ended (ms) | ${f.wallMs} | | |`,
    "",
    `Queue store calls by step: ${perStep}. Each is one round trip to sqlite (one statement; a queued \`enqueue\` is two: the insert that decides, then its place).`,
    "",
  ].join("\n");
}
