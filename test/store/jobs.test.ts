import { setTimeout as sleep } from "node:timers/promises";
import { defaultSerialize } from "@keyv/serialize";
import { expect, it } from "vitest";
import type { JobRecord, NewJob, Requester, Stores } from "../../src/store/index.js";
import { capturingLogger, describeEachBackend } from "./backends.js";

const alice: Requester = {
  platform: "discord",
  tenantId: "111111111111111111",
  userId: "222222222222222222",
};
const bob: Requester = { platform: "slack", tenantId: "T0001", userId: "U0002" };

function newJob(requester: Requester, overrides: Partial<NewJob> = {}): NewJob {
  return {
    kind: "image",
    command: "image.generate",
    serviceJobId: `svc-${Math.random().toString(36).slice(2)}`,
    requester,
    conversation: { platform: requester.platform, channelId: "C1", threadId: undefined },
    message: { platform: requester.platform, channelId: "C1", messageId: "M1", data: { token: "t" } },
    inputs: { prompt: "a red fox in snow", aspect_ratio: "16:9", seed: 7 },
    ...overrides,
  };
}

/** Takes a job to the given state through the store, the way the engine would. */
async function advance(stores: Stores, job: JobRecord, patches: Parameters<Stores["jobs"]["update"]>[2][]) {
  let current = job;
  for (const patch of patches) {
    const result = await stores.jobs.update(current.id, current.version, patch);
    if (!result.ok) throw new Error(`update failed: ${result.reason}`);
    current = result.job;
  }
  return current;
}

describeEachBackend("jobs", (ctx) => {
  it("round-trips a job record", async () => {
    const stores = await ctx.open();
    const before = Date.now();
    const created = await stores.jobs.create(
      newJob({ ...alice, isAdmin: true, roleIds: ["1"] } as Requester, {
        kind: "video",
        command: "video.avatar",
      }),
    );

    expect(created.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(created).toMatchObject({
      version: 1,
      kind: "video",
      command: "video.avatar",
      requester: alice,
      tenant: { platform: alice.platform, tenantId: alice.tenantId },
      conversation: { platform: "discord", channelId: "C1" },
      state: "queued",
      delivery: "pending",
      progress: null,
      attempts: 0,
      result: null,
      error: null,
    });
    expect(created.requester).not.toHaveProperty("isAdmin");
    expect(created.conversation).not.toHaveProperty("threadId");
    expect(created.createdAt).toBeGreaterThanOrEqual(before);
    expect(created.nextPollAt).toBe(created.createdAt);

    expect(await stores.jobs.get(created.id)).toEqual(created);
    expect(await stores.jobs.get("no-such-job0")).toBeUndefined();
    expect(await stores.jobs.get("index:unfinished")).toBeUndefined();
  });

  it("updates only from the version it was given, and keeps the stale writer out", async () => {
    const [one, two] = [await ctx.open(), await ctx.open()];
    const job = await one.jobs.create(newJob(alice));

    const [a, b] = await Promise.all([
      one.jobs.update(job.id, job.version, { state: "working", progress: 10 }),
      two.jobs.update(job.id, job.version, { state: "failed", error: { code: "x", message: "late" } }),
    ]);
    const winners = [a, b].filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const loser = [a, b].find((r) => !r.ok)!;
    expect(loser).toMatchObject({ ok: false, reason: "stale", job: { version: 2 } });

    const stored = (await one.jobs.get(job.id))!;
    expect(stored.version).toBe(2);
    expect(stored).toEqual(winners[0]!.ok && winners[0]!.job);
    expect(await one.jobs.update("missingjob00", 1, { attempts: 1 })).toEqual({
      ok: false,
      reason: "missing",
    });
  });

  it("updates a record as keyv's own serializer wrote it, strings starting with a colon included", async () => {
    const stores = await ctx.open();
    const job = await stores.jobs.create(newJob(alice));
    const older = { ...job, inputs: { prompt: ":fox: in snow", tags: [":a", "b:"] } };
    await ctx.writeRaw("jobs", job.id, defaultSerialize({ value: older }));

    const updated = await advance(stores, job, [{ state: "working", progress: 30 }, { progress: 60 }]);
    expect(updated).toMatchObject({ version: 3, progress: 60, inputs: older.inputs });
    expect(await stores.jobs.get(job.id)).toEqual(updated);
  });

  it("writes from the record a writer holds without reading it, and still keeps the stale writer out", async () => {
    const [one, two] = [await ctx.open(), await ctx.open()];
    const job = await one.jobs.create(newJob(alice));
    const moved = await two.jobs.update(job.id, job.version, { state: "working", progress: 10 });
    expect(moved.ok).toBe(true);

    const late = await one.jobs.update(job.id, job.version, { progress: 50 }, job);
    expect(late).toMatchObject({ ok: false, reason: "stale", job: { version: 2, progress: 10 } });
    const next = await one.jobs.update(job.id, 2, { progress: 60 }, moved.ok ? moved.job : undefined);
    expect(next).toMatchObject({ ok: true, job: { version: 3, state: "working", progress: 60 } });
    expect(await two.jobs.get(job.id)).toEqual(next.ok && next.job);
  });

  it("moves lastProgressAt only when state or progress change", async () => {
    const stores = await ctx.open();
    const job = await stores.jobs.create(newJob(alice));
    await sleep(5);
    const polled = await advance(stores, job, [{ attempts: 1, nextPollAt: Date.now() + 1000 }]);
    expect(polled.lastProgressAt).toBe(job.lastProgressAt);
    expect(polled.updatedAt).toBeGreaterThan(job.updatedAt);
    await sleep(5);
    const moved = await advance(stores, polled, [{ progress: 40, state: "working" }]);
    expect(moved.lastProgressAt).toBeGreaterThan(polled.lastProgressAt);
    const same = await advance(stores, moved, [{ progress: 40 }]);
    expect(same.lastProgressAt).toBe(moved.lastProgressAt);
  });

  it("lists every unfinished job after a restart, including results not yet delivered", async () => {
    const first = await ctx.open();
    // Apart in time: "oldest first" orders by creation time, and ties have no order.
    const create = async (job: NewJob) => {
      await sleep(2);
      return first.jobs.create(job);
    };
    const running = await create(newJob(alice));
    const choosing = await create(newJob(alice, { kind: "photo_avatar", command: "photo_avatar.design" }));
    const undelivered = await create(newJob(bob));
    const delivering = await create(newJob(bob));
    const finished = await create(newJob(bob));
    await advance(first, running, [{ state: "working", progress: 50 }]);
    await advance(first, choosing, [{ state: "needs_choice", result: { previewUrls: ["a", "b"] } }]);
    await advance(first, undelivered, [{ state: "done", result: { imageId: "i" } }]);
    await advance(first, delivering, [{ state: "failed" }, { delivery: "delivering" }]);
    await advance(first, finished, [
      { state: "done" },
      { delivery: "delivering" },
      { delivery: "delivered" },
    ]);
    await first.close();

    const restarted = await ctx.open();
    const unfinished = await unfinishedOf(restarted);
    expect(unfinished.map((job) => job.id)).toEqual([running.id, choosing.id, undelivered.id, delivering.id]);
    expect(unfinished[0]).toMatchObject({ state: "working", progress: 50, version: 2 });
    expect((await restarted.jobs.get(finished.id))?.delivery).toBe("delivered");
  });

  it("lists a requester's jobs newest first and counts the ones occupying the service", async () => {
    const stores = await ctx.open();
    const jobs: JobRecord[] = [];
    for (let i = 0; i < 5; i++) {
      jobs.push(await stores.jobs.create(newJob(alice)));
      await sleep(2);
    }
    await stores.jobs.create(newJob(bob));
    await advance(stores, jobs[0]!, [{ state: "done" }, { delivery: "delivered" }]);
    await advance(stores, jobs[1]!, [{ state: "needs_choice" }]);
    await advance(stores, jobs[2]!, [{ state: "retrying" }]);

    const listed = await stores.jobs.listByRequester(alice, 3);
    expect(listed.map((job) => job.id)).toEqual([jobs[4]!.id, jobs[3]!.id, jobs[2]!.id]);
    expect(await stores.jobs.listByRequester(alice, 10)).toHaveLength(5);
    expect(await stores.jobs.countActiveByRequester(alice)).toBe(3);
    expect(await stores.jobs.countActiveByRequester(bob)).toBe(1);
    expect(await stores.jobs.countActiveByRequester({ ...bob, userId: "U9" })).toBe(0);

    // A choice made sends the avatar job back to the service: it counts again.
    const chosen = (await stores.jobs.get(jobs[1]!.id))!;
    await advance(stores, chosen, [{ state: "working" }]);
    expect(await stores.jobs.countActiveByRequester(alice)).toBe(4);
  });

  it("resumes the jobs an older version of the store listed as unfinished", async () => {
    const before = await ctx.open();
    const job = await before.jobs.create(newJob(alice));
    // As the previous layout left it: a record no new index names, listed in one keyv record.
    const legacy = { ...job, id: "legacyJob_01" };
    await before.keyv("jobs").set(legacy.id, legacy);
    await before.keyv("jobs").set("index:unfinished", [{ id: legacy.id, at: legacy.createdAt }]);
    await before.close();

    const upgraded = await ctx.open();
    expect((await unfinishedOf(upgraded)).map((j) => j.id).sort()).toEqual([job.id, legacy.id].sort());
    expect(await upgraded.keyv("jobs").get("index:unfinished")).toBeUndefined();
  });

  it("keeps a requester's hundred most recent jobs", async () => {
    const stores = await ctx.open();
    const jobs: JobRecord[] = [];
    for (let i = 0; i < 102; i++) {
      jobs.push(await stores.jobs.create(newJob(alice)));
      // Each in a millisecond of its own (a 1 ms timer may end within the same one), so "newest" is defined.
      const created = Date.now();
      while (Date.now() === created) await sleep(1);
    }
    const listed = await stores.jobs.listByRequester(alice, 500);
    expect(listed).toHaveLength(100);
    expect(listed.map((job) => job.id)).toEqual(
      jobs
        .slice(2)
        .reverse()
        .map((job) => job.id),
    );
    // Dropped from the list, not from the store or from the jobs to resume.
    expect(await stores.jobs.get(jobs[0]!.id)).toBeDefined();
    expect(await unfinishedOf(stores)).toHaveLength(102);
  });

  it("keeps finished jobs final and lets them expire after the retention time", async () => {
    const stores = await ctx.open({ retentionMs: 100 });
    const job = await stores.jobs.create(newJob(alice));
    const done = await advance(stores, job, [{ state: "done" }, { delivery: "delivered" }]);
    await expect(stores.jobs.update(job.id, done.version, { state: "working" })).rejects.toThrow(/finished/);
    expect(await unfinishedOf(stores)).toEqual([]);

    await sleep(150);
    expect(await stores.jobs.get(job.id)).toBeUndefined();
    expect(await stores.jobs.listByRequester(alice, 10)).toEqual([]);
  });

  it("never runs an ended job again: it leaves the running index without the job's lock", async () => {
    const stores = await ctx.open();
    const job = await stores.jobs.create(newJob(alice));
    const failed = await advance(stores, job, [{ state: "working" }, { state: "failed" }]);
    expect(await stores.jobs.countActiveByRequester(alice)).toBe(0);
    await expect(stores.jobs.update(job.id, failed.version, { state: "working" })).rejects.toThrow(
      /cannot run again/,
    );
    expect((await unfinishedOf(stores)).map((j) => j.id)).toEqual([job.id]);
  });

  it("reports a corrupt record and keeps serving the others", async () => {
    const { logger, lines } = capturingLogger();
    const stores = await ctx.open({ logger });
    const broken = await stores.jobs.create(newJob(alice));
    const misshapen = await stores.jobs.create(newJob(alice));
    const healthy = await stores.jobs.create(newJob(alice));
    await ctx.writeRaw("jobs", broken.id, "{not json");
    await stores.keyv("jobs").set(misshapen.id, { ...misshapen, state: "exploded" });

    await expect(stores.jobs.get(broken.id)).rejects.toMatchObject({
      code: "store.corrupt",
      details: { namespace: "jobs", key: broken.id },
    });
    await expect(stores.jobs.get(misshapen.id)).rejects.toMatchObject({
      code: "store.corrupt",
      details: { issues: expect.stringContaining("state") },
    });
    expect((await unfinishedOf(stores)).map((job) => job.id)).toEqual([healthy.id]);
    expect((await stores.jobs.listByRequester(alice, 10)).map((job) => job.id)).toEqual([healthy.id]);
    // Read many at once (an engine taking up its jobs): the same records, the same reports.
    const many = await stores.jobs.getMany([broken.id, healthy.id, misshapen.id, "no-such-job!"]);
    expect(many.map((job) => job.id)).toEqual([healthy.id]);
    expect(lines.map((line) => [line.msg, line.jobId])).toEqual(
      expect.arrayContaining([
        ["corrupt job record skipped", broken.id],
        ["corrupt job record skipped", misshapen.id],
      ]),
    );
    // Still listed as unfinished, so the report repeats until someone repairs or removes it.
    await unfinishedOf(stores);
    expect(lines.filter((line) => line.jobId === broken.id).length).toBeGreaterThan(2);
  });
});

async function unfinishedOf(stores: Stores): Promise<JobRecord[]> {
  const jobs: JobRecord[] = [];
  for await (const page of stores.jobs.listUnfinished(2)) jobs.push(...page);
  return jobs;
}
