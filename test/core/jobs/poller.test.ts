import { setImmediate as tick } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NormalizedStatus } from "../../../src/core/api/job-status.js";
import { Incidents } from "../../../src/core/base/incidents.js";
import { scaledPolicy } from "../../../src/core/jobs/policy.js";
import { type Leaving, Poller } from "../../../src/core/jobs/poller.js";
import type { JobRecord } from "../../../src/store/index.js";
import { deferred, openStore, type Store, silent } from "./parts.js";
import { until } from "./world.js";

/**
 * The poller alone: the service's answers are the test's, the store is a real sqlite file, and
 * what the poller says to the engine around it (`left`) is written down. Polling against the
 * media service emulator, through the whole engine, is polling.test.ts.
 */

const working = (progress: number): NormalizedStatus => ({ state: "working", progress, terminal: false });
const done: NormalizedStatus = {
  state: "done",
  progress: 100,
  terminal: true,
  result: { kind: "mockup", imageUrl: "/api/media/m1/view", mediaId: "m1" },
};
const variants: NormalizedStatus = {
  state: "needs_choice",
  progress: 100,
  terminal: false,
  result: { kind: "photo_avatar_variants", previewUrls: ["/a.png", "/b.png"] },
};

let store: Store;
beforeEach(async () => {
  store = await openStore();
});
const pollers: Poller[] = [];
afterEach(async () => {
  for (const poller of pollers.splice(0)) poller.stop();
  await store.close();
});

/** A poller whose status reads answer from `answers` (the last one again and again). */
function poller(answers: Record<string, NormalizedStatus[]>, opts: { owns?: () => boolean } = {}) {
  const reads: string[] = [];
  const shown: { jobId: string; status: NormalizedStatus; stored: JobRecord | undefined }[] = [];
  const left: { job: JobRecord; next: Leaving }[] = [];
  const ended: string[] = [];
  const hooks = {
    showing: undefined as Promise<void> | undefined,
    async fetchStatus(job: JobRecord) {
      reads.push(job.id);
      const queue = answers[job.id]!;
      return queue.length > 1 ? queue.shift()! : queue[0]!;
    },
    async showProgress(job: JobRecord, status: NormalizedStatus) {
      shown.push({ jobId: job.id, status, stored: await store.stores.jobs.get(job.id) });
      await hooks.showing;
    },
  };
  const part = new Poller(
    {
      hooks,
      store: store.stores.jobs,
      owns: opts.owns ?? (() => true),
      left: async (job, next) => {
        left.push({ job, next });
      },
      ended: (job) => ended.push(job.id),
    },
    { policy: scaledPolicy(0.01), now: Date.now, log: silent, incidents: new Incidents(silent) },
  );
  pollers.push(part);
  part.start();
  part.resume();
  return { part, hooks, reads, shown, left, ended };
}

describe("the poller", () => {
  it("reads a job until its outcome, then lets it go once, on to its delivery, and reads it no more", async () => {
    const job = await store.job();
    const { part, reads, left } = poller({ [job.id]: [working(10), working(60), done] });
    part.take(job, "soon");
    await until("the job is let go", () => left.length > 0);
    expect(left).toEqual([
      {
        job: expect.objectContaining({ id: job.id }),
        next: { to: "delivery", outcome: { status: done, error: null } },
      },
    ]);
    expect(reads).toHaveLength(3);
    expect(part.polls(job.id)).toBe(false);
    expect(part.ids()).toEqual([]);
  });

  it("tells of a job's outcome as soon as it is read, and lets it go on to its delivery only once its last progress edit landed", async () => {
    const job = await store.job();
    // Enough reads of progress for one to be shown (edits are spaced), then the outcome.
    const progress = Array.from({ length: 20 }, (_, i) => working(i * 4));
    const { part, hooks, shown, left, ended } = poller({ [job.id]: [...progress, done] });
    const edit = deferred();
    hooks.showing = edit.promise;
    part.take(job, "soon");
    await until("a progress edit is under way", () => shown.length > 0);
    await until("its outcome is told", () => ended.length > 0);
    // The progress edit is still under way: the result must not be posted before it lands.
    expect(shown).toHaveLength(1);
    expect(left).toEqual([]);
    edit.resolve();
    await until("the job is let go", () => left.length > 0);
    expect(ended).toEqual([job.id]);
    expect(left.map((l) => l.next)).toEqual([{ to: "delivery", outcome: { status: done, error: null } }]);
  });

  it("reads nothing while this instance may not count on its jobs, and reads once it may again", async () => {
    const job = await store.job();
    let asked = 0;
    let owns = false;
    const { part, reads, left } = poller(
      { [job.id]: [working(10), done] },
      {
        owns: () => {
          asked += 1;
          return owns;
        },
      },
    );
    part.take(job, "soon");
    await until("the poller asked twice", () => asked >= 2);
    expect(reads).toEqual([]);
    owns = true;
    await until("the job is let go", () => left.length > 0);
    expect(reads.length).toBeGreaterThan(0);
  });

  it("stores a choice to make before it shows it, then hands the job on to wait for it", async () => {
    const job = await store.job("photo_avatar");
    const { part, shown, left } = poller({ [job.id]: [working(50), variants] });
    part.take(job, "soon");
    await until("the job is handed on", () => left.length > 0);
    expect(left).toEqual([
      { job: expect.objectContaining({ id: job.id, state: "needs_choice" }), next: { to: "choice" } },
    ]);
    const choices = shown.filter((s) => s.status.state === "needs_choice");
    expect(choices).toHaveLength(1);
    expect(choices[0]!.stored).toMatchObject({ state: "needs_choice", result: variants.result });
    expect(part.ids()).toEqual([]);
  });

  it("lets a job go when asked, once its progress edit in flight is over, and reads it no more", async () => {
    const job = await store.job();
    const other = await store.job();
    const { part, hooks, reads, shown } = poller({
      [job.id]: [working(10), working(20), working(30)],
      [other.id]: [working(10)],
    });
    const edit = deferred();
    hooks.showing = edit.promise;
    part.take(job, "soon");
    await until("a progress edit is under way", () => shown.length > 0);
    let released: JobRecord | undefined;
    const releasing = part.release(job.id).then((record) => {
      released = record;
    });
    await tick();
    expect(released).toBeUndefined();
    edit.resolve();
    await releasing;
    expect(released).toMatchObject({ id: job.id });
    expect(await part.release(job.id)).toBeUndefined();
    const readsThen = reads.filter((id) => id === job.id).length;
    part.take(other, "soon");
    await until("another job was read three times", () => reads.filter((id) => id === other.id).length >= 3);
    expect(reads.filter((id) => id === job.id)).toHaveLength(readsThen);
  });

  it("hands on a job whose outcome another engine recorded, to deliver what is stored", async () => {
    const job = await store.job();
    const { part, left } = poller({ [job.id]: [working(10)] });
    // A flow's finish() on another engine records the outcome after this one took the job up.
    const result = await store.stores.jobs.update(job.id, job.version, {
      state: "done",
      progress: 100,
      result: done.result,
    });
    expect(result.ok).toBe(true);
    part.take(job, "soon");
    await until("the job is let go", () => left.length > 0);
    expect(left).toEqual([
      {
        job: expect.objectContaining({ id: job.id, state: "done" }),
        next: { to: "delivery", outcome: undefined },
      },
    ]);
  });
});
