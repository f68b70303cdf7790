import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scaledPolicy } from "../../../src/core/jobs/policy.js";
import type { JobRecord } from "../../../src/store/index.js";
import { describeRedis } from "../../store/redis-server.js";
import { LONG_JOB_MS, RecordingHooks, SCALE, startWorld, until, type World } from "./world.js";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterEach(() => world.nextTest());
afterAll(() => world.close());

const { lapseMs } = scaledPolicy(SCALE);

/** An engine process that takes up the store's jobs; resolves once it polls one of `jobIds`. */
async function doomedEngine(
  jobIds: string | string[],
  instanceId: string,
  storeUrl = world.storeUrl,
): Promise<ChildProcess> {
  const child = fork(
    fileURLToPath(new URL("./crash-child.ts", import.meta.url)),
    [JSON.stringify({ storeUrl, mediaUrl: world.emulator.url, mode: "poll", instanceId })],
    { execArgv: ["--import", "tsx"], stdio: "ignore" },
  );
  const [message] = (await once(child, "message")) as [{ polling: string }];
  expect([jobIds].flat()).toContain(message.polling);
  return child;
}

async function kill(child: ChildProcess): Promise<number> {
  child.kill("SIGKILL");
  await once(child, "exit");
  return Date.now();
}

/** A job recorded but taken up by nobody yet (track() before start() only persists). */
async function recorded(kind: "video" | "image", durationMs: number, storeUrl?: string): Promise<JobRecord> {
  const seed = (await world.engine(new RecordingHooks(world.api), storeUrl ? { storeUrl } : {})).engine;
  return seed.track(await world.serviceJob(kind, { durationMs }));
}

/**
 * More jobs than one batch (recovery.ts takes them 500 at a time), owned by nobody or by a
 * SIGKILLed instance (done by now, some of them hanging in its deliveries): the two live
 * instances started together take them, each job polled by one of them and delivered once.
 */
async function manyTakenUp(storeUrl: string, { orphans }: { orphans: boolean }): Promise<void> {
  const seed = (await world.engine(new RecordingHooks(world.api), { storeUrl })).engine;
  const jobs: JobRecord[] = [];
  // Fifty at a time: one after the other, the 600 creations and records took seconds of the test.
  while (jobs.length < 600) {
    const batch = Array.from({ length: 50 }, async () =>
      seed.track(await world.serviceJob("image", { durationMs: 1_000 })),
    );
    jobs.push(...(await Promise.all(batch)));
  }
  if (!orphans) {
    const child = await doomedEngine(
      jobs.map((job) => job.id),
      "pod-0",
      storeUrl,
    );
    await kill(child);
  }

  const hooks = [new RecordingHooks(world.api), new RecordingHooks(world.api)];
  const engines = await Promise.all(
    hooks.map(
      async (h, i) =>
        // The engine's own cap of status reads a second (50) would spread 600 first polls over 6 s:
        // what is taken by whom does not depend on it.
        (
          await world.engine(h, {
            instanceId: `pod-${i + 1}`,
            storeUrl,
            policy: { maxRequestsPerSecond: 1_000 },
          })
        ).engine,
    ),
  );
  await Promise.all(engines.map((engine) => engine.start()));
  const delivered = () => hooks.flatMap((h) => h.delivered.map((d) => d.jobId));
  await until("all delivered", () => new Set(delivered()).size === jobs.length, 60_000);
  // Both stopped, their work drained: every delivery either would make has been made.
  await Promise.all(engines.map((engine) => engine.stop()));
  expect(delivered().sort()).toEqual(jobs.map((job) => job.id).sort());
  const [readByOne, readByOther] = hooks.map((h) => new Set(h.reads.map((r) => r.jobId)));
  expect([...readByOne!].filter((id) => readByOther!.has(id))).toEqual([]);
  expect(await engines[0]!.get(jobs[0]!.id)).toMatchObject({ delivery: "delivered" });
}

describe("crash recovery", () => {
  it("a SIGKILLed instance restarted under its id polls its jobs at once, not after the lapse", async () => {
    const job = await recorded("video", LONG_JOB_MS);
    const child = await doomedEngine(job.id, "pod-0");
    const killedAt = await kill(child);

    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks, { instanceId: "pod-0" });
    await engine.start();
    await until("polled again", () => hooks.for(hooks.reads, job.id).length > 0);
    expect(hooks.reads[0]!.at - killedAt).toBeLessThan(lapseMs / 2);
    world.finishServiceJobs();
    await until("delivered", async () => (await engine.get(job.id))?.delivery === "delivered", 10_000);
    expect(hooks.for(hooks.delivered, job.id)).toHaveLength(1);
  });

  it("another live instance takes over a SIGKILLed instance's jobs once its heartbeat lapses", async () => {
    const job = await recorded("video", LONG_JOB_MS);
    const child = await doomedEngine(job.id, "pod-0");
    const hooks = new RecordingHooks(world.api);
    // What else the dead instance left (starts cut short) is answered for by whoever takes over.
    const answeredFor: string[] = [];
    const leftBehind = async (instanceId: string) => void answeredFor.push(instanceId);
    const { engine } = await world.engine(hooks, { instanceId: "pod-1", leftBehind });
    await engine.start();
    await sleep(lapseMs / 2);
    expect(hooks.for(hooks.reads, job.id)).toHaveLength(0); // its owner lives: not ours to poll
    expect(answeredFor).toEqual(["pod-1"]); // its own restart, nothing of pod-0's
    const killedAt = await kill(child);

    await until("taken over", () => hooks.for(hooks.reads, job.id).length > 0, 5_000);
    const after = hooks.reads[0]!.at - killedAt;
    expect(after).toBeLessThan(lapseMs * 2);
    world.finishServiceJobs();
    await until("delivered", async () => (await engine.get(job.id))?.delivery === "delivered", 10_000);
    expect(hooks.for(hooks.delivered, job.id)).toHaveLength(1);
    expect(answeredFor).toEqual(["pod-1", "pod-0"]);
  });

  it("more jobs than a batch: a SIGKILLed instance's are taken over, each polled by one instance and delivered once", async () => {
    await manyTakenUp(world.storeUrl, { orphans: false });
  }, 90_000);

  it("more orphans than a batch, found by two instances at once: each polled by one and delivered once", async () => {
    await manyTakenUp(world.storeUrl, { orphans: true });
  }, 90_000);
});

describeRedis("crash recovery on redis", (server) => {
  it("more jobs than a batch: a SIGKILLed instance's are taken over, each polled by one instance and delivered once", async () => {
    await server().admin.flushAll();
    await manyTakenUp(server().url, { orphans: false });
  }, 90_000);

  it("more orphans than a batch, found by two instances at once: each polled by one and delivered once", async () => {
    await server().admin.flushAll();
    await manyTakenUp(server().url, { orphans: true });
  }, 90_000);

  it("a SIGKILLed instance restarted under its id takes all its jobs back at once and delivers each once", async () => {
    await server().admin.flushAll();
    const storeUrl = server().url;
    const first = await recorded("video", LONG_JOB_MS, storeUrl);
    const second = await recorded("video", LONG_JOB_MS, storeUrl);
    const child = await doomedEngine([first.id, second.id], "pod-0", storeUrl);
    const killedAt = await kill(child);

    const restarted = new RecordingHooks(world.api);
    const own = (await world.engine(restarted, { instanceId: "pod-0", storeUrl })).engine;
    await own.start();
    await until("polled again", () => restarted.reads.length > 0);
    expect(restarted.reads[0]!.at - killedAt).toBeLessThan(lapseMs / 2);
    world.finishServiceJobs();
    await until(
      "both delivered",
      async () =>
        (await own.get(first.id))?.delivery === "delivered" &&
        (await own.get(second.id))?.delivery === "delivered",
      10_000,
    );
    expect(restarted.delivered.map((d) => d.jobId).sort()).toEqual([first.id, second.id].sort());
  });
});

describe("choices", () => {
  async function waitingForChoice(hooks: RecordingHooks, instanceId: string) {
    const { engine } = await world.engine(hooks, { instanceId });
    await engine.start();
    const job = await engine.track(await world.serviceJob("design", { durationMs: 200 }));
    await until("variants shown", async () => (await engine.get(job.id))?.state === "needs_choice");
    return { engine, job };
  }

  it("a choice sent by a process that died before recording it is delivered from the status, once", async () => {
    const { engine, job } = await waitingForChoice(new RecordingHooks(world.api), "pod-0");
    expect(await engine.beginChoice(job.id)).toMatchObject({ state: "working" });
    // The confirm reaches the service; its answer never gets recorded.
    const { avatarIds } = await world.api.photoAvatars.confirmBoth({ jobId: job.serviceJobId });
    await engine.stop();

    const hooks = new RecordingHooks(world.api);
    const next = (await world.engine(hooks, { instanceId: "pod-1" })).engine;
    await next.start();
    await until("delivered", async () => (await next.get(job.id))?.delivery === "delivered");
    expect(hooks.delivered).toHaveLength(1);
    expect(hooks.delivered[0]?.status?.result).toEqual({ kind: "photo_avatar", avatarIds });
    expect(world.emulator.callsTo("POST", "/api/avatar/design/confirm-both")).toHaveLength(1);
  });

  it("a choice begun on another instance that died before confirming brings the variants back where they were shown", async () => {
    // pod-1 showed the variants and waits for the choice; the click lands on pod-0, which dies
    // before its confirm leaves. pod-1 takes its jobs over, and must not take this one for the
    // choice it was waiting for.
    const hooks = new RecordingHooks(world.api);
    const { engine: shower, job } = await waitingForChoice(hooks, "pod-1");
    const clicked = (await world.engine(new RecordingHooks(world.api), { instanceId: "pod-0" })).engine;
    await clicked.start();
    expect(await clicked.beginChoice(job.id)).toMatchObject({ state: "working" });
    await clicked.stop();

    const shownBefore = hooks.shown.length;
    const readsBefore = hooks.for(hooks.reads, job.id).length;
    await until("read again", () => hooks.for(hooks.reads, job.id).length > readsBefore, 5_000);
    await until("waiting again", async () => (await shower.get(job.id))?.state === "needs_choice");
    await until("variants shown again", () =>
      hooks.shown.slice(shownBefore).some((s) => s.status?.state === "needs_choice"),
    );
    expect(hooks.delivered).toHaveLength(0);
    expect(world.emulator.callsTo("POST", "/api/avatar/design/confirm")).toHaveLength(0);
  });

  it("a choice that never reached the service brings the variants back", async () => {
    const { engine, job } = await waitingForChoice(new RecordingHooks(world.api), "pod-0");
    await engine.beginChoice(job.id);
    await engine.stop();

    const hooks = new RecordingHooks(world.api);
    const next = (await world.engine(hooks, { instanceId: "pod-1" })).engine;
    await next.start();
    await until("waiting again", async () => (await next.get(job.id))?.state === "needs_choice");
    await until("variants shown again", () => hooks.shown.some((s) => s.status?.state === "needs_choice"));
    expect(hooks.delivered).toHaveLength(0);
  });

  it("variants nobody chooses expire: the job ends and says why", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks, {
      instanceId: "pod-0",
      policy: { choiceExpiresAfterMs: 400 },
    });
    await engine.start();
    const job = await engine.track(await world.serviceJob("design", { durationMs: 100 }));
    await until("expired", async () => (await engine.get(job.id))?.delivery === "delivered", 5_000);
    const ended = await engine.get(job.id);
    expect(ended).toMatchObject({ state: "failed", error: { code: "job.choice_expired" } });
    expect(ended?.error?.message).toMatch(/Nobody chose a variant within .*buttons were removed/);
    expect(hooks.delivered).toHaveLength(1);
    expect(hooks.delivered[0]?.status?.state).toBe("failed");
  });
});
