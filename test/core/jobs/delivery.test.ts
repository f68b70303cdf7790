import { fork } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedStatus } from "../../../src/core/api/job-status.js";
import { NotPostedError } from "../../../src/core/base/errors.js";
import { Intake } from "../../../src/core/intake/intake.js";
import { RecordingHooks, startWorld, until, type World } from "./world.js";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterEach(() => world.nextTest());
afterAll(() => world.close());

const done: NormalizedStatus = {
  state: "done",
  progress: 100,
  terminal: true,
  result: { kind: "mockup", imageUrl: "/api/media/m1/view", mediaId: "m1" },
};

describe("delivery", () => {
  it("waits while a burst of requests is being acknowledged, then delivers once", async () => {
    const hooks = new RecordingHooks(world.api);
    // Generous windows: a slow machine's pauses between this test's arrivals must not end the burst.
    const intake = new Intake({ quietMs: 300, maxHoldMs: 10_000 });
    const { engine } = await world.engine(hooks, { intake });
    await engine.start();
    const job = await engine.track(await world.serviceJob("mockup", { durationMs: 5_000 }));
    intake.arrived();
    const finished = engine.finish(job.id, done);
    let lastArrival = 0;
    for (const end = Date.now() + 600; Date.now() < end; ) {
      intake.arrived();
      lastArrival = Date.now();
      await sleep(10);
    }
    await finished;

    expect(hooks.delivered).toHaveLength(1);
    expect(hooks.delivered[0]!.at).toBeGreaterThanOrEqual(lastArrival);
  });

  it("delivers once when a flow calls finish() twice at the same time", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks);
    await engine.start();
    const job = await engine.track(await world.serviceJob("mockup", { durationMs: 5_000 }));
    await Promise.all([engine.finish(job.id, done), engine.finish(job.id, done)]);
    await engine.finish(job.id, done);

    expect(hooks.delivered).toHaveLength(1);
    expect(hooks.delivered[0]?.status).toEqual(done);
    expect(await engine.get(job.id)).toMatchObject({
      state: "done",
      delivery: "delivered",
      result: { posted: job.id },
    });
    const reads = hooks.reads.length;
    await sleep(200);
    expect(hooks.reads.length).toBe(reads); // polling ended with the outcome
  });

  it("retries a delivery that threw and delivers it once", async () => {
    const hooks = new RecordingHooks(world.api);
    let tries = 0;
    hooks.beforeDeliver = () => {
      tries += 1;
      if (tries === 1) throw new Error("chat platform down");
    };
    const { engine } = await world.engine(hooks);
    await engine.start();
    const job = await engine.track(await world.serviceJob("image", { durationMs: 300 }));
    await until("delivered", async () => (await engine.get(job.id))?.delivery === "delivered");
    await sleep(100);
    expect(tries).toBe(2);
    expect(hooks.delivered).toHaveLength(1);
    expect((await engine.get(job.id))?.attempts).toBe(0);
  });

  it("closes a job whose person nothing can reach at once, never trying again, and says why in the job", async () => {
    const hooks = new RecordingHooks(world.api);
    let tries = 0;
    hooks.beforeDeliver = () => {
      tries += 1;
      throw new NotPostedError("This channel no longer exists.", { url: "https://files.invalid/fox.png" });
    };
    const { engine } = await world.engine(hooks);
    await engine.start();
    const job = await engine.track(await world.serviceJob("image", { durationMs: 200 }));
    await until("closed", async () => (await engine.get(job.id))?.delivery === "delivered");
    // Backoff waits of the policy would allow several more tries in this time.
    await sleep(500);
    expect(tries).toBe(1);
    expect(hooks.delivered).toHaveLength(0);
    const closed = await engine.get(job.id);
    expect(closed).toMatchObject({
      state: "done",
      error: { code: "chat.undeliverable", message: "This channel no longer exists." },
      // What the job made stays on it: the jobs list links it.
      result: { url: "https://files.invalid/fox.png" },
    });
    // A restarted engine leaves it alone too.
    await engine.stop();
    const again = (await world.engine(hooks)).engine;
    await again.start();
    await sleep(200);
    expect(tries).toBe(1);
  });

  it("keeps retrying through an outage: only a refusal for good ends the tries", async () => {
    const hooks = new RecordingHooks(world.api);
    let tries = 0;
    hooks.beforeDeliver = () => {
      tries += 1;
      if (tries <= 5) throw new Error("chat platform down");
    };
    const { engine } = await world.engine(hooks);
    await engine.start();
    const job = await engine.track(await world.serviceJob("image", { durationMs: 200 }));
    await until("delivered", () => hooks.delivered.length > 0, 10_000);
    expect(tries).toBe(6);
    expect((await engine.get(job.id))?.error).toBeNull();
  });

  it("delivers exactly once across a restart in the middle of a job", async () => {
    const first = new RecordingHooks(world.api);
    const a = (await world.engine(first, { instanceId: "a" })).engine;
    await a.start();
    const job = await a.track(await world.serviceJob("video", { durationMs: 1_500 }));
    await until("some progress shown", () => first.shown.length > 0);
    await a.stop();
    expect(first.delivered).toHaveLength(0);

    // A new core over the same sqlite file.
    const second = new RecordingHooks(world.api);
    const b = (await world.engine(second, { instanceId: "b" })).engine;
    await b.start();
    await until("delivered", async () => (await b.get(job.id))?.delivery === "delivered");
    await sleep(100);
    expect(first.delivered).toHaveLength(0);
    expect(second.delivered).toHaveLength(1);
    expect(second.for(second.reads, job.id).length).toBeGreaterThan(0);
  });

  it("delivers again after a crash between delivering and delivered", async () => {
    // The record of the job, left for the doomed process to take up (track() before start() only persists).
    const seed = (await world.engine(new RecordingHooks(world.api))).engine;
    const job = await seed.track(await world.serviceJob("image", { durationMs: 200 }));

    const child = fork(
      fileURLToPath(new URL("./crash-child.ts", import.meta.url)),
      [JSON.stringify({ storeUrl: world.storeUrl, mediaUrl: world.emulator.url })],
      { execArgv: ["--import", "tsx"], stdio: "ignore" },
    );
    const [message] = (await once(child, "message")) as [{ delivering: string }];
    expect(message.delivering).toBe(job.id);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect((await seed.get(job.id))?.delivery).toBe("delivering");

    // The restart: the dead process's claim expires, and the result is posted again (the deliver
    // hook's contract - idempotent edits, keyed posts - makes the second post harmless).
    const hooks = new RecordingHooks(world.api);
    const { engine } = await world.engine(hooks);
    await engine.start();
    await until("delivered", async () => (await engine.get(job.id))?.delivery === "delivered");
    expect(hooks.delivered).toHaveLength(1);
    expect(hooks.delivered[0]?.status?.state).toBe("done");
  });

  it("tells of each job's outcome before its delivery, a slow delivery still pending and one that cannot be posted alike", async () => {
    const hooks = [new RecordingHooks(world.api), new RecordingHooks(world.api)];
    const a = (await world.engine(hooks[0]!, { instanceId: "pod-0" })).engine;
    const b = (await world.engine(hooks[1]!, { instanceId: "pod-1" })).engine;
    const heard: { engine: string; jobId: string }[] = [];
    for (const [name, engine] of [
      ["a", a],
      ["b", b],
    ] as const)
      engine.onOutcome((job) => heard.push({ engine: name, jobId: job.id }));
    await Promise.all([a.start(), b.start()]);
    // Every delivery on `a` waits (a slow upload) until the test lets them through.
    let letThrough!: () => void;
    const uploads = new Promise<void>((resolve) => {
      letThrough = resolve;
    });
    let refused = "";
    hooks[0]!.beforeDeliver = async (job) => {
      await uploads;
      if (job.id === refused) throw new NotPostedError("This channel no longer exists.", null);
    };
    const polled = await a.track(await world.serviceJob("image", { durationMs: 200 }));
    const nobodyReached = await a.track(await world.serviceJob("image", { durationMs: 200 }));
    refused = nobodyReached.id;
    const finished = await b.track(await world.serviceJob("mockup", { durationMs: 5_000 }));
    const finishing = Promise.all([a.finish(finished.id, done), b.finish(finished.id, done)]);

    const told = (id: string) => heard.some((h) => h.jobId === id);
    await until("the outcomes told", () => [polled.id, nobodyReached.id, finished.id].every(told));
    // Told while their deliveries wait: nothing of theirs is posted yet.
    expect(hooks[0]!.for(hooks[0]!.delivered, polled.id)).toHaveLength(0);
    expect((await a.get(polled.id))?.delivery).not.toBe("delivered");
    expect((await a.get(nobodyReached.id))?.delivery).not.toBe("delivered");
    expect(heard.find((h) => h.jobId === polled.id)?.engine).toBe("a");

    letThrough();
    await finishing;
    await until("delivered", async () =>
      (await Promise.all([polled, nobodyReached, finished].map((j) => a.get(j.id)))).every(
        (j) => j?.delivery === "delivered",
      ),
    );
    await Promise.all([a.stop(), b.stop()]);
    // Delivered once each all the same, the one nobody could reach closed as not posted.
    const delivered = [...hooks[0]!.delivered, ...hooks[1]!.delivered].map((d) => d.jobId).sort();
    expect(delivered).toEqual([polled.id, finished.id].sort());
    expect((await a.get(nobodyReached.id))?.error?.code).toBeDefined();
    expect(new Set(heard.map((h) => h.jobId))).toEqual(new Set([polled.id, nobodyReached.id, finished.id]));
  });

  it("shares a store between two engines: each job polled by one, delivered once", async () => {
    const seed = (await world.engine(new RecordingHooks(world.api))).engine;
    const jobs = await Promise.all(
      Array.from({ length: 10 }, async (_, i) =>
        seed.track(await world.serviceJob(i % 2 ? "image" : "thumbnail", { durationMs: 400 + 40 * i })),
      ),
    );
    const hooksA = new RecordingHooks(world.api);
    const hooksB = new RecordingHooks(world.api);
    const a = (await world.engine(hooksA, { instanceId: "a" })).engine;
    const b = (await world.engine(hooksB, { instanceId: "b" })).engine;
    await Promise.all([a.start(), b.start()]);
    // A job tracked by each engine, and a flow finishing one on both at once.
    const extraA = await a.track(await world.serviceJob("image", { durationMs: 300 }));
    const extraB = await b.track(await world.serviceJob("image", { durationMs: 300 }));
    const finished = await b.track(await world.serviceJob("image", { durationMs: 5_000 }));
    await Promise.all([a.finish(finished.id, done), b.finish(finished.id, done)]);

    const all = [...jobs, extraA, extraB, finished];
    await until("all delivered", async () =>
      (await Promise.all(all.map((j) => a.get(j.id)))).every((j) => j?.delivery === "delivered"),
    );
    await sleep(200);
    const delivered = [...hooksA.delivered, ...hooksB.delivered].map((d) => d.jobId).sort();
    expect(delivered).toEqual(all.map((j) => j.id).sort());
    const polledByA = new Set(hooksA.reads.map((r) => r.jobId));
    const polledByB = new Set(hooksB.reads.map((r) => r.jobId));
    expect([...polledByA].filter((id) => polledByB.has(id))).toEqual([]);
    expect(polledByA.size).toBeGreaterThan(0);
    expect(polledByB.size).toBeGreaterThan(0);
  });
});
