import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/base/log.js";
import { Intake } from "../../../src/core/intake/intake.js";
import type { JobEngine } from "../../../src/core/jobs/engine.js";
import { fixedPolicy, scaledPolicy } from "../../../src/core/jobs/policy.js";
import type { JobRecord } from "../../../src/store/index.js";
import { type Call, RecordingHooks, SCALE, startWorld, until, type World } from "./world.js";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterEach(() => world.nextTest());
afterAll(() => world.close());

async function delivered(engine: JobEngine, hooks: RecordingHooks, job: JobRecord): Promise<JobRecord> {
  await until(`job ${job.id} is delivered`, async () => (await engine.get(job.id))?.delivery === "delivered");
  expect(hooks.for(hooks.delivered, job.id)).toHaveLength(1);
  return (await engine.get(job.id))!;
}

const gaps = (calls: Call[]) => calls.slice(1).map((c, i) => c.at - calls[i]!.at);

describe("polling", () => {
  it("polls a long video far less often than fixed fast polling, and still delivers promptly", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks);
    await engine.start();
    const lag = world.loopLag();

    // A "5-minute" video (3 s here).
    const job = await engine.track(await world.serviceJob("video", { durationMs: 3_000 }));
    const completeAt = job.createdAt + 3_000;
    await delivered(engine, hooks, job);
    lag.stop();

    // The naive baseline reads every "2 s" (20 ms at this scale) whatever the kind and age: as
    // many reads as the job's life holds such intervals. (Counted from its policy, not from an
    // engine run beside this one: a loaded machine makes that one read less often than it asks.)
    const baselineEveryMs = fixedPolicy(2_000 * SCALE, scaledPolicy(SCALE)).kinds.video.steps[0]!.everyMs;
    const baselineReads = Math.floor((completeAt - job.createdAt) / baselineEveryMs);
    expect(hooks.for(hooks.reads, job.id).length).toBeLessThan(baselineReads / 3);
    // Sparse in the middle, dense near the end: the result arrives within a "few seconds", once
    // the timers of a busy machine's event loop are allowed the lateness they had meanwhile.
    expect(hooks.delivered[0]!.at - completeAt).toBeLessThan(100 + lag.worstMs());
  });

  it("spreads the polls of jobs created together, so they do not poll the service in lockstep", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks);
    await engine.start();
    const together = await Promise.all(
      [0, 1, 2, 3].map(async () => engine.track(await world.serviceJob("video", { durationMs: 3_000 }))),
    );
    for (const job of together) await delivered(engine, hooks, job);

    // Waits at the same step of two jobs' schedules. Timers alone keep them within a millisecond
    // or two; the ±20 % jitter moves most pairs further apart. Not all: near the end a schedule
    // can sit at the shortest interval, where the jitter is clipped.
    const waits = together.map((job) => gaps(hooks.for(hooks.reads, job.id)));
    let pairs = 0;
    let apart = 0;
    for (const [i, a] of waits.entries()) {
      for (const b of waits.slice(i + 1)) {
        const steps = Math.min(a.length, b.length);
        pairs += steps;
        apart += a.slice(0, steps).filter((wait, k) => Math.abs(wait - b[k]!) > 3).length;
      }
    }
    expect(pairs).toBeGreaterThan(6 * 5);
    expect(apart).toBeGreaterThan(pairs / 2);
  });

  it("never runs more status reads at once, or per second, than the caps allow", async () => {
    const hooks = new RecordingHooks(world.api);
    // Slow answers, so the concurrency cap is what limits.
    world.emulator.inject({ method: "GET", path: /^\/api\/image\//, delayMs: 30, times: 10_000 });
    const { engine } = await world.engine(hooks, {
      policy: { ...fixedPolicy(10, scaledPolicy(SCALE)), maxConcurrentRequests: 2, maxRequestsPerSecond: 25 },
    });
    await engine.start();
    const jobs = await Promise.all(
      Array.from({ length: 8 }, async () =>
        engine.track(await world.serviceJob("image", { durationMs: 1_200 })),
      ),
    );
    await until("all delivered", () => hooks.delivered.length === jobs.length, 10_000);

    expect(hooks.maxActive).toBeLessThanOrEqual(2);
    const starts = hooks.reads.map((r) => r.at);
    // The hook notes its start in the same turn the queue counts it: allow the clock's ms ticks.
    const busiestSecond = Math.max(...starts.map((t) => starts.filter((s) => s >= t && s < t + 998).length));
    expect(busiestSecond).toBeLessThanOrEqual(25);
    expect(busiestSecond).toBeGreaterThanOrEqual(20); // the cap, not the policy, was the limit
  });

  it("rides out a 500, malformed JSON and inference_retrying, then delivers once", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks);
    await engine.start();
    const imageRequest = await world.serviceJob("image", { durationMs: 800 });
    const path = `/api/image/${imageRequest.serviceJobId}`;
    // The client retries a GET once here: three 500s in a row reach the engine as one failed read.
    world.emulator.inject({ method: "GET", path, status: 500, times: 3, skip: 1 });
    world.emulator.inject({ method: "GET", path, raw: '{"result": "succ', times: 2, skip: 3 });
    const image = await engine.track(imageRequest);
    const video = await engine.track(
      await world.serviceJob("cinematic", { durationMs: 1_200, retrying: true }),
    );

    const imageDone = await delivered(engine, hooks, image);
    const videoDone = await delivered(engine, hooks, video);
    expect(hooks.failedReads).toBeGreaterThanOrEqual(2);
    expect(imageDone.state).toBe("done");
    expect(videoDone.state).toBe("done");
    const videoStates = hooks.for(hooks.reads, video.id).map((r) => r.status?.state);
    expect(videoStates).toContain("retrying");
    expect(hooks.for(hooks.delivered, video.id)[0]!.status).toMatchObject({
      state: "done",
      result: { kind: "video" },
    });
  });

  it("logs a status read failing again and again once, and its count when the job is read again", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    });
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks, { logger });
    await engine.start();
    const request = await world.serviceJob("image", { durationMs: 800 });
    // The client tries a GET twice here: ten 500s are five failed reads in a row.
    world.emulator.inject({
      method: "GET",
      path: `/api/image/${request.serviceJobId}`,
      status: 500,
      times: 10,
      skip: 1,
    });
    const job = await engine.track(request);
    await delivered(engine, hooks, job);

    const about = (msg: string) => lines.filter((l) => l.msg === msg && l.jobId === job.id);
    expect(about("job status read failed; will retry")).toEqual([
      expect.objectContaining({
        failures: 1,
        err: expect.objectContaining({ code: "service.unavailable", status: 500 }),
      }),
    ]);
    expect(about("job status read again after failures")).toEqual([expect.objectContaining({ failures: 5 })]);
  });

  it("delivers inference_failed as a failure with the service's reason", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks);
    await engine.start();
    const reason = "The avatar could not be animated";
    const job = await engine.track(await world.serviceJob("video", { durationMs: 400, fail: reason }));
    const done = await delivered(engine, hooks, job);
    expect(done).toMatchObject({ state: "failed", error: { code: "job.failed", message: reason } });
    expect(hooks.delivered[0]?.status).toMatchObject({ state: "failed", message: reason, terminal: true });
  });

  it("ends a job that stops moving as failed with job.stuck", async () => {
    const hooks = new RecordingHooks(world.api);
    const base = scaledPolicy(SCALE);
    const { engine } = await world.engine(hooks, {
      policy: { kinds: { image: { ...base.kinds.image, stuckAfterMs: 400 } } },
    });
    await engine.start();
    const job = await engine.track(await world.serviceJob("image", { durationMs: 300, stallAt: 40 }));
    const done = await delivered(engine, hooks, job);
    expect(done.state).toBe("failed");
    expect(done.error?.code).toBe("job.stuck");
    expect(done.error?.message).toMatch(/no progress for .*stuck at 40%/);
    expect(hooks.delivered[0]?.status).toMatchObject({ state: "failed", message: done.error?.message });
  });

  it("throttles progress edits: none when nothing changed, at most one per interval", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks, {
      policy: { ...fixedPolicy(10, scaledPolicy(SCALE)), minEditIntervalMs: 250 },
    });
    await engine.start();
    // Moves a percent every 300 ms, and runs until the test has seen what it is about (then it is
    // finished), however slowly a loaded machine polls.
    const moving = await engine.track(await world.serviceJob("image", { durationMs: 30_000 }));
    const stalled = await engine.track(await world.serviceJob("image", { durationMs: 300, stallAt: 30 }));
    await until("three progress edits", () => hooks.for(hooks.shown, moving.id).length >= 3);
    // Polled all along, well past the moment it stood still.
    await until("the stalled job read 50 times", () => hooks.for(hooks.reads, stalled.id).length > 50);
    world.finishServiceJobs();
    await delivered(engine, hooks, moving);

    const edits = hooks.for(hooks.shown, moving.id);
    expect(edits.length).toBeGreaterThanOrEqual(3);
    expect(Math.min(...gaps(edits))).toBeGreaterThanOrEqual(250);
    for (const [i, edit] of edits.slice(1).entries()) {
      expect([edit.status?.state, edit.status?.progress]).not.toEqual([
        edits[i]!.status?.state,
        edits[i]!.status?.progress,
      ]);
    }
    // Polled all along, shown once it stood still.
    const stalledReads = hooks.for(hooks.reads, stalled.id);
    const stalledEdits = hooks.for(hooks.shown, stalled.id);
    expect(stalledReads.length).toBeGreaterThan(50);
    expect(stalledEdits.filter((e) => e.status?.progress === 30)).toHaveLength(1);
    expect(stalledEdits.at(-1)?.status?.progress).toBe(30);
  });

  it("stops polling at needs_choice until resume(), then delivers the confirmed avatar", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks);
    await engine.start();
    const request = await world.serviceJob("design", { durationMs: 300 });
    const job = await engine.track(request);
    await until("the choice is shown", () => hooks.shown.some((s) => s.status?.state === "needs_choice"));
    const readsAtChoice = hooks.for(hooks.reads, job.id).length;
    await sleep(300);
    expect(hooks.for(hooks.reads, job.id)).toHaveLength(readsAtChoice);
    const choices = hooks.shown.filter((s) => s.status?.state === "needs_choice");
    expect(choices).toHaveLength(1);
    expect(choices[0]!.status?.result).toMatchObject({ kind: "photo_avatar_variants" });
    expect((await engine.get(job.id))?.state).toBe("needs_choice");

    await world.api.photoAvatars.confirm({ jobId: request.serviceJobId, variant: 1 });
    await engine.resume(job.id);
    const done = await delivered(engine, hooks, job);
    expect(done.state).toBe("done");
    expect(hooks.for(hooks.delivered, job.id)[0]?.status?.result).toMatchObject({
      kind: "photo_avatar",
      avatarIds: [expect.any(String)],
    });
  });

  it("reads no status and delivers nothing while a burst of requests is being acknowledged, then delivers", async () => {
    const hooks = new RecordingHooks(world.api);
    // Generous windows: a slow machine's pauses between this test's arrivals must not end the burst.
    const intake = new Intake({ quietMs: 300, maxHoldMs: 10_000 });
    const { engine } = await world.engine(hooks, { intake });
    await engine.start();
    intake.arrived();
    const job = await engine.track(await world.serviceJob("image", { durationMs: 50 }));
    let lastArrival = 0;
    for (const end = Date.now() + 800; Date.now() < end; ) {
      intake.arrived();
      lastArrival = Date.now();
      await sleep(10);
    }
    await delivered(engine, hooks, job);
    const reads = hooks.for(hooks.reads, job.id);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads[0]!.at).toBeGreaterThanOrEqual(lastArrival);
    expect(hooks.delivered[0]!.at).toBeGreaterThanOrEqual(lastArrival);
  });
});
