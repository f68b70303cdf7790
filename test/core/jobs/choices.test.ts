import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NormalizedStatus } from "../../../src/core/api/job-status.js";
import { Choices, choiceKey } from "../../../src/core/jobs/choices.js";
import { Liveness } from "../../../src/core/jobs/liveness.js";
import type { Outcome } from "../../../src/core/jobs/records.js";
import type { JobRecord } from "../../../src/store/index.js";
import { openStore, type Store, silent } from "./parts.js";
import { until } from "./world.js";

/**
 * The jobs waiting for a choice, alone, on a real sqlite file and real claims: when a choice
 * expires, and how an expiry and a click (actions/choose.ts, which takes the same claim) exclude
 * each other. Choices made through the whole engine are in polling.test.ts and recovery.test.ts.
 */

const TIMING = { heartbeatMs: 100, lapseMs: 400 };

let store: Store;
const started: Liveness[] = [];
const parts: Choices[] = [];
beforeEach(async () => {
  store = await openStore();
});
afterEach(async () => {
  for (const part of parts.splice(0)) part.stop();
  await Promise.all(started.splice(0).map((l) => l.stop({ handBack: true })));
  await store.close();
});

async function liveness(instanceId: string): Promise<Liveness> {
  const l = new Liveness({ ...store.stores, instanceId, explicit: true, ...TIMING, logger: silent });
  started.push(l);
  await l.start();
  return l;
}

/** A photo-avatar job whose variants wait for a choice since `lastProgressAt`. */
async function waiting(): Promise<JobRecord> {
  const job = await store.job("photo_avatar");
  const result = await store.stores.jobs.update(job.id, job.version, {
    state: "needs_choice",
    progress: 100,
    result: { kind: "photo_avatar_variants", previewUrls: ["/a.png", "/b.png"] },
  });
  if (!result.ok) throw new Error("the job could not wait for a choice");
  return result.job;
}

async function choices(expiresAfterMs: number) {
  const holder = await liveness("a");
  const expired: { job: JobRecord; outcome: Outcome }[] = [];
  const shown: NormalizedStatus[] = [];
  const tries = { claim: 0, release: 0 };
  const part = new Choices(
    {
      store: store.stores.jobs,
      claims: {
        claim: (key, ttlMs) => {
          tries.claim += 1;
          return holder.claim(key, ttlMs);
        },
        release: (key) => {
          tries.release += 1;
          return holder.release(key);
        },
      },
      show: async (_job, status) => {
        shown.push(status);
      },
      expired: async (job, outcome) => {
        expired.push({ job, outcome });
      },
    },
    { policy: { choiceExpiresAfterMs: expiresAfterMs, ...TIMING }, now: Date.now, log: silent },
  );
  parts.push(part);
  part.start();
  part.resume();
  return { part, expired, shown, tries };
}

describe("a choice nobody makes", () => {
  it("expires once, after its time, and ends the job saying why", async () => {
    const job = await waiting();
    const { part, expired } = await choices(300);
    part.wait(job, { show: false });
    await until("the choice expired", () => expired.length > 0);
    expect(Date.now() - job.lastProgressAt).toBeGreaterThanOrEqual(300);
    expect(expired).toEqual([
      {
        job: expect.objectContaining({ id: job.id, state: "needs_choice" }),
        outcome: expect.objectContaining({
          status: expect.objectContaining({ state: "failed" }),
          error: expect.objectContaining({ code: "job.choice_expired" }),
        }),
      },
    ]);
    expect(part.has(job.id)).toBe(false);
  });

  it("waits while a click holds the choice, then expires once the click let go without choosing", async () => {
    const job = await waiting();
    const clicker = await liveness("b");
    expect(await clicker.claim(choiceKey(job.id), 60_000)).toBe(true);
    const { part, expired, tries } = await choices(0);
    part.wait(job, { show: false });
    await until("the expiry found the choice taken", () => tries.claim > 0);
    expect(expired).toEqual([]);
    expect(part.has(job.id)).toBe(true);
    await clicker.release(choiceKey(job.id));
    await until("the choice expired", () => expired.length > 0, 5_000);
    expect(expired).toHaveLength(1);
  });

  it("does not expire once a click took it: the job runs again", async () => {
    const job = await waiting();
    const { part, expired, tries } = await choices(0);
    // beginChoice on another instance, between this one's wait and the expiry.
    const chosen = await store.stores.jobs.update(job.id, job.version, { state: "working" });
    expect(chosen.ok).toBe(true);
    part.wait(job, { show: false });
    await until("the expiry looked and let go of the claim", () => tries.release > 0);
    expect(expired).toEqual([]);
    expect(part.has(job.id)).toBe(false);
  });

  it("is shown again when found in the store, from what the record holds", async () => {
    const job = await waiting();
    const { part, shown } = await choices(60_000);
    part.wait(job, { show: true });
    await until("the choice is shown", () => shown.length > 0);
    expect(shown).toEqual([
      expect.objectContaining({
        state: "needs_choice",
        result: { kind: "photo_avatar_variants", previewUrls: ["/a.png", "/b.png"] },
      }),
    ]);
  });
});
