/**
 * The queue under a crowd: `npm run bench -- queue [--people 50] [--each 20] [--duration 1000]
 * [--out bench/results] [--same-process]`.
 *
 * `people × each` `image generate` commands at once (1,000 by default) from 50 people of one
 * tenant, whose admins set a running limit of 3 per person and 20 for the tenant, and a queue
 * length of `each` (the default 10 would refuse the 14th of a person's 20 commands). The whole bot
 * runs in this process (createBot, real sqlite stores, the engine polling), against the media
 * API emulator in a process of its own (emulator-process.ts), as the service is; every job takes
 * `--duration` ms at the service. `--same-process` runs the emulator in the bot's process, as the
 * first runs did: its renders of the results' pictures then take the bot's event loop. The people
 * all at once, each person's commands one after the other as fast as the bot answers them.
 *
 * Checks and figures:
 * - every command made exactly one creation call (none lost, none twice), and every job ended;
 * - each person's jobs reached the service in the order they were asked;
 * - the wait of each person's first job, from the commands' sending to the service's receipt of
 *   its creation call (the emulator's record; p50, p95, max), against the target: one job's
 *   duration plus 2 s;
 * - the queue's store calls (each a round trip to sqlite: one statement, or two for a queued
 *   enqueue) per queued job, and in all.
 *
 * Writes bench/results/queue.json and queue.md.
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { parseArgs } from "node:util";
import type { QueueStore } from "../../src/store/index.js";
import { actor, Harness } from "../../test/core/bot/harness.js";
import type { Emulator } from "../../test/fakes/media-api/index.js";
import { percentile } from "../stats.js";
import type { EmulatorMessage, EmulatorReply } from "./emulator-process.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    people: { type: "string", default: "50" },
    each: { type: "string", default: "20" },
    duration: { type: "string", default: "1000" },
    "same-process": { type: "boolean", default: false },
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

/** The media service the bot calls: the emulator in a process of its own, or in this one (`--same-process`). */
interface Service {
  url?: string;
  plan(count: number, durationMs: number): Promise<void>;
  /** Each image creation call's prompt, and when the service received it, in that order. */
  creations(): Promise<{ prompt: string; at: number }[]>;
  close(): void;
}

/** The harness, whose own emulator `--same-process` uses. */
let sameProcess: Harness | undefined;
const service: Service = values["same-process"] ? inProcess() : await ownProcess();
// A harness that does not own its emulator reads only its url.
const h = await Harness.start(
  { jobLimit: PERSON_LIMIT },
  service.url === undefined ? undefined : ({ url: service.url } as Emulator),
);
if (values["same-process"]) sameProcess = h;
await h.stores.tenants.update(
  { platform: "discord", tenantId: actor().tenantId },
  { tenantRunningLimit: TENANT_LIMIT, queueLimit: each },
);

// Every call of the queue's store, by step: each is one round trip to the store.
const calls = new Map<string, number>();
/** How long each call took, by step, as the bot waited for it (the store's own time and the wait for the event loop). */
const callMs = new Map<string, number[]>();
const queue = h.stores.queue as unknown as Record<string, (...args: unknown[]) => unknown>;
/** Each person's prompts in the order the bot took them (its queue's order), as the store saw them. */
const arrived = new Map<string, string[]>();
/** Each job's moments on the queue's side, by its prompt: where a first job's wait goes. */
/** The prompts whose command started at once (not queued). */
const atOnce = new Set<string>();
const promptOf = new Map<string, string>();
const moments = {
  ready: new Map<string, number>(),
  picked: new Map<string, number>(),
  calling: new Map<string, number>(),
  released: new Map<string, number>(),
};
const note = (moment: keyof typeof moments, id: unknown) => {
  const asked = promptOf.get(String(id));
  if (asked !== undefined && !moments[moment].has(asked)) moments[moment].set(asked, Date.now());
};
for (const name of Object.keys(queue) as (keyof QueueStore)[]) {
  const step = queue[name]!;
  queue[name] = (...args: unknown[]) => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    if (name === "enqueue") {
      const entry = args[0] as { id: string; userId: string; payload: string };
      const asked = (JSON.parse(entry.payload) as { options: { prompt: string } }).options.prompt;
      arrived.set(entry.userId, [...(arrived.get(entry.userId) ?? []), asked]);
      promptOf.set(entry.id, asked);
    }
    if (name === "ready") note("ready", args[0]);
    if (name === "calling") note("calling", args[0]);
    if (name === "release") for (const id of args[1] as string[]) note("released", id);
    const began = performance.now();
    const result = step(...args);
    void Promise.resolve(result).then(
      () => callMs.set(name, [...(callMs.get(name) ?? []), performance.now() - began]),
      () => undefined,
    );
    if (name === "pick")
      void (result as Promise<{ id: string } | undefined>).then((entry) => note("picked", entry?.id));
    if (name === "enqueue") {
      const asked = promptOf.get((args[0] as { id: string }).id)!;
      void (result as Promise<{ outcome: string }>).then((entered) => {
        if (entered.outcome === "start") atOnce.add(asked);
      });
    }
    return result;
  };
}

await service.plan(total, durationMs);
const prompt = (person: number, n: number) => `p${person}-${n}`;
const asked: { person: number; n: number }[] = [];
for (let person = 0; person < people; person++) for (let n = 0; n < each; n++) asked.push({ person, n });

const prompts = async () => (await service.creations()).map((call) => call.prompt);

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
// Every job ended once its person was told it is ready (the delivery's last step). A run where
// nothing moves for STILL_MS (a start refused under load: a creation call that timed out is never
// made again) ends there, with the jobs not ended counted, rather than waiting for ever.
const STILL_MS = 60_000;
const ended = async (): Promise<number> => {
  let last = { told: -1, made: -1, at: Date.now() };
  for (;;) {
    const told = h.chat.posts.filter((p) => p.options.idempotencyKey?.endsWith(":ready")).length;
    const made = (await prompts()).length;
    if (told >= total && made >= total) return 0;
    if (told !== last.told || made !== last.made) {
      if (Math.floor(last.at / 10_000) !== Math.floor(Date.now() / 10_000))
        console.log(`${Math.round((Date.now() - sent) / 1000)} s: ${made} created, ${told} ended`);
      last = { told, made, at: Date.now() };
    } else if (Date.now() - last.at > STILL_MS) {
      console.log(`nothing moved for ${STILL_MS / 1000} s: ${made} created, ${told} ended of ${total}`);
      return total - told;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};
const unfinished = await ended();
const wallMs = Date.now() - sent;
const seen = new Map<string, number>();
const received = await service.creations();
for (const call of received) if (!seen.has(call.prompt)) seen.set(call.prompt, call.at);

const made = received.map((call) => call.prompt);
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
// Each person's first job: the first command they sent (at `sent`, all people at once), until
// the service received its creation call.
const firstWaits = Array.from({ length: people }, (_, person) => seen.get(prompt(person, 0))! - sent).sort(
  (a, b) => a - b,
);
// Where the wait of the first jobs that waited for a place goes: until their entry was picked (a
// place freed: a job done at the service, its outcome read, its place given back), then until its
// start was decided (`calling`: its person's turn here, the command checked again, the person's
// start claim), then the budget, the start's record and the creation call until the service has it.
const spans = (
  from: (p: string) => number | undefined,
  to: (p: string) => number | undefined,
  of: string[],
) =>
  of
    .flatMap((p) => {
      const a = from(p);
      const b = to(p);
      return a === undefined || b === undefined ? [] : [b - a];
    })
    .sort((x, y) => x - y);
const summary3 = (values: number[]) => ({
  n: values.length,
  p50: percentile(values, 50),
  p95: percentile(values, 95),
  max: values.at(-1) ?? 0,
});
const firstPrompts = Array.from({ length: people }, (_, person) => prompt(person, 0));
const waitedFirst = firstPrompts.filter((p) => moments.picked.has(p));
const createdAt = (p: string) => seen.get(p);
const whereFirstWaitGoes = {
  untilWaiting: summary3(
    spans(
      () => sent,
      (p) => moments.ready.get(p),
      waitedFirst,
    ),
  ),
  untilPicked: summary3(
    spans(
      () => sent,
      (p) => moments.picked.get(p),
      waitedFirst,
    ),
  ),
  pickedToCalling: summary3(
    spans(
      (p) => moments.picked.get(p),
      (p) => moments.calling.get(p),
      waitedFirst,
    ),
  ),
  callingToService: summary3(spans((p) => moments.calling.get(p), createdAt, waitedFirst)),
};
// From a job's end at the service (its creation call plus its duration) to its place given back.
const outcomeToRelease = summary3(
  spans(
    (p) => (createdAt(p) === undefined ? undefined : createdAt(p)! + durationMs),
    (p) => moments.released.get(p),
    [...seen.keys()],
  ),
);
// When places were given back, from the sending: the first, the 20th, the 30th, the 50th.
const releases = [...moments.released.values()].map((t) => t - sent).sort((a, b) => a - b);
const placesFreed = Object.fromEntries([1, 20, 30, 50].map((n) => [`#${n}`, releases[n - 1] ?? null]));
// How long a picked job holds its place (picked to given back), and how busy the places were
// between the first pick and the last place given back: the rest is places free with nobody
// picked into them.
const held = spans(
  (p) => moments.picked.get(p),
  (p) => moments.released.get(p),
  [...moments.picked.keys()],
);
const picks = [...moments.picked.values()];
const placesBusy =
  held.reduce((a, b) => a + b, 0) / (TENANT_LIMIT * ((releases.at(-1) ?? 0) + sent - Math.min(...picks)));
// From a place given back to the pick that took it: the n-th pick of a waiting job takes the n-th
// place given back (the queue is never empty meanwhile), so this is how long places stood free.
const pickTimes = [...moments.picked.values()].map((t) => t - sent).sort((a, b) => a - b);
const freeToPick = (count: number) =>
  summary3(
    pickTimes
      .slice(0, Math.min(count, releases.length))
      .map((t, i) => t - releases[i]!)
      .sort((a, b) => a - b),
  );
const releaseToPick = { first50: freeToPick(50), all: freeToPick(pickTimes.length) };
const laterJobsAtOnce = [...atOnce].filter((p) => !firstPrompts.includes(p)).length;
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
  unfinished,
  firstWait: {
    p50: percentile(firstWaits, 50),
    p95: percentile(firstWaits, 95),
    max: firstWaits.at(-1)!,
    targetP95: TARGET_FIRST_WAIT_MS,
  },
  whereFirstWaitGoes,
  outcomeToRelease,
  releaseToPick,
  placesFreed,
  laterJobsAtOnce,
  placeHeld: summary3(held),
  firstPicks: [...moments.picked.entries()]
    .sort((a, b) => a[1] - b[1])
    .slice(0, 60)
    .map(([p, t]) => `${p}@${t - sent}`),
  placesBusyShare: Math.round(placesBusy * 100) / 100,
  storeCallMs: Object.fromEntries(
    [...callMs.entries()].sort().map(([step, ms]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return [step, { p50: Math.round(percentile(sorted, 50)), p95: Math.round(percentile(sorted, 95)) }];
    }),
  ),
  storeCalls: Object.fromEntries([...calls.entries()].sort()),
  storeCallsPerQueuedJob: queuedJobs > 0 ? Math.round((allCalls / queuedJobs) * 100) / 100 : null,
  storeCallsPerCommand: Math.round((allCalls / total) * 100) / 100,
};
const pass =
  missing === 0 &&
  twice === 0 &&
  unfinished === 0 &&
  outOfOrder === 0 &&
  made.length === total &&
  figures.firstWait.p95 <= TARGET_FIRST_WAIT_MS;
await h.close();
service.close();
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
  const w = f.whereFirstWaitGoes;
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
    `${total} \`image generate\` commands at once from ${people} people (${each} each) of one tenant: running limit ${PERSON_LIMIT} per person and ${TENANT_LIMIT} for the tenant, queue length ${each}. The whole bot in one process (createBot, sqlite stores, the engine), against the media API emulator ${values["same-process"] ? "in the same process (`--same-process`)" : "in a process of its own"}; every job takes ${durationMs} ms at the service.`,
    "",
    "| figure | value | target | verdict |",
    "|---|---|---|---|",
    `| creation calls | ${f.created} for ${f.commands} commands | one each | ${f.created === f.commands && f.missing === 0 && f.twice === 0 ? "PASS" : "FAIL"} |`,
    `| commands never started / started twice | ${f.missing} / ${f.twice} | 0 / 0 | ${f.missing + f.twice === 0 ? "PASS" : "FAIL"} |`,
    `| jobs not ended (their person never told it is ready) | ${f.unfinished} | 0 | ${f.unfinished === 0 ? "PASS" : "FAIL"} |`,
    `| people whose jobs started out of order | ${f.outOfOrderPeople} | 0 | ${f.outOfOrderPeople === 0 ? "PASS" : "FAIL"} |`,
    `| wait of each person's first job, p50 / p95 / max (ms) | ${f.firstWait.p50} / ${f.firstWait.p95} / ${f.firstWait.max} | p95 ≤ ${TARGET_FIRST_WAIT_MS} | ${f.firstWait.p95 <= TARGET_FIRST_WAIT_MS ? "PASS" : "FAIL"} |`,
    `| first jobs that waited for a place | ${w.untilPicked.n} of ${people} | | |`,
    `| of their wait: until their waiting message was posted (waiting, pickable), p50 / p95 (ms) | ${w.untilWaiting.p50} / ${w.untilWaiting.p95} | | |`,
    `| places started at once by a person's later job (not their first) | ${f.laterJobsAtOnce} of ${f.commands - f.queued} | | |`,
    `| places given back, from the sending: 1st / 20th / 30th / 50th (ms) | ${Object.values(f.placesFreed).join(" / ")} | | |`,
    `| of their wait: until picked (a place given back), p50 / p95 (ms) | ${w.untilPicked.p50} / ${w.untilPicked.p95} | | |`,
    `| a place given back until a waiting job is picked into it, the first 50 / all, p50 / p95 (ms) | ${f.releaseToPick.first50.p50} / ${f.releaseToPick.first50.p95}; ${f.releaseToPick.all.p50} / ${f.releaseToPick.all.p95} | | |`,
    `| then until its start is decided (its person's turn here, the command checked again, the person's start claim), p50 / p95 (ms) | ${w.pickedToCalling.p50} / ${w.pickedToCalling.p95} | | |`,
    `| then the budget, the start's record and the creation call until the service has it, p50 / p95 (ms) | ${w.callingToService.p50} / ${w.callingToService.p95} | | |`,
    `| a job's end at the service until its place is given back, p50 / p95 / max (ms) | ${f.outcomeToRelease.p50} / ${f.outcomeToRelease.p95} / ${f.outcomeToRelease.max} | | |`,
    `| a queued job's place held, picked to given back, p50 / p95 (ms) | ${f.placeHeld.p50} / ${f.placeHeld.p95} | | |`,
    `| share of the tenant's places busy from the first pick to the last place given back | ${f.placesBusyShare} | | |`,
    `| jobs that waited in the queue | ${f.queued} | | |`,
    `| queue store calls per queued job | ${f.storeCallsPerQueuedJob} (${f.storeCallsPerCommand} per command) | | |`,
    `| all commands answered (ms) | ${f.answeredMs} | | |`,
    `| all jobs ended (ms) | ${f.wallMs} | | |`,
    "",
    `Queue store calls by step: ${perStep}. Each is one round trip to sqlite (one statement; a queued \`enqueue\` is two: the insert that decides, then its place).`,
    "",
    `Their time as the bot waited for each, p50 / p95 (ms): ${Object.entries(f.storeCallMs)
      .map(([step, ms]) => `${step} ${ms.p50} / ${ms.p95}`)
      .join(", ")}.`,
    "",
  ].join("\n");
}

/** The harness's emulator, in this process: its pictures are rendered on the bot's event loop. */
function inProcess(): Service {
  const emu = () => sameProcess!.emu;
  return {
    async plan(count, duration) {
      for (let n = 0; n < count; n++) emu().planNextJob("image", { durationMs: duration });
    },
    async creations() {
      return emu()
        .callsTo("POST", "/api/image/generate")
        .map((call) => ({ prompt: (call.json as { prompt: string }).prompt, at: call.at }));
    },
    close() {},
  };
}

async function ownProcess(): Promise<Service> {
  const child = fork(new URL("./emulator-process.ts", import.meta.url).pathname, [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { url } = await reply(child, "ready");
  return {
    url,
    async plan(count, duration) {
      const planning = reply(child, "planned");
      send(child, { type: "plan", count, durationMs: duration });
      await planning;
    },
    async creations() {
      const answer = reply(child, "creations");
      send(child, { type: "creations" });
      return (await answer).calls;
    },
    close: () => child.disconnect(),
  };
}

function send(child: ChildProcess, message: EmulatorMessage): void {
  child.send(message);
}

/** The emulator's next reply of `type`; an emulator that exits first is an error. */
function reply<T extends EmulatorReply["type"]>(
  child: ChildProcess,
  type: T,
): Promise<Extract<EmulatorReply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: EmulatorReply) => {
      if (message.type !== type) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(message as Extract<EmulatorReply, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`the emulator exited (${code})`));
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}
