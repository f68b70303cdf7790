import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Liveness } from "../../../src/core/jobs/liveness.js";
import { Ownership } from "../../../src/core/jobs/ownership.js";
import { type Finding, type Findings, Recovery } from "../../../src/core/jobs/recovery.js";
import { openStore, type Store, silent } from "./parts.js";

/**
 * Recovery alone, on a real sqlite file and real claims: what its scans find, and that they hold
 * their gate while the engine acts on it. Recovery through the whole engine, with processes
 * SIGKILLed, is recovery.test.ts.
 */

const TIMING = { heartbeatMs: 100, lapseMs: 400 };

let store: Store;
const started: Liveness[] = [];
beforeEach(async () => {
  store = await openStore();
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((l) => l.stop({ handBack: true })));
  await store.close();
});

async function instance(id: string) {
  const liveness = new Liveness({
    ...store.stores,
    instanceId: id,
    explicit: true,
    ...TIMING,
    logger: silent,
  });
  started.push(liveness);
  await liveness.start();
  const ownership = new Ownership(store.stores.claims, store.stores.indexes);
  const leftBehind: string[] = [];
  const recovery = new Recovery(
    { liveness, ownership, store: store.stores.jobs },
    {
      log: silent,
      leftBehind: async (instanceId) => void leftBehind.push(instanceId),
      gateMs: TIMING.lapseMs * 4,
      orphanScanMs: 60_000,
    },
  );
  return { liveness, ownership, recovery, leftBehind };
}

/** An instance that owned `count` jobs and whose process is gone. */
async function deadWithJobs(count: number): Promise<string[]> {
  const dead = await instance("z");
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await store.job()).id);
  expect(await dead.ownership.takeAll(ids, "z")).toEqual(ids);
  await dead.liveness.stop({ handBack: true });
  return ids;
}

async function all(findings: Findings): Promise<Finding[]> {
  const found: Finding[] = [];
  for await (const finding of findings) found.push(finding);
  return found;
}

const taken = (found: Finding[]) => found.flatMap((f) => ("take" in f ? f.take.map((job) => job.id) : []));

describe("recovery", () => {
  it("finds a dead instance's jobs once between two instances scanning together, and answers for it", async () => {
    const ids = await deadWithJobs(3);
    const [a, b] = await Promise.all([instance("a"), instance("b")]);
    const [byA, byB] = await Promise.all([all(a.recovery.deadInstances()), all(b.recovery.deadInstances())]);

    const found = [...taken(byA), ...taken(byB)];
    expect(found.sort()).toEqual([...ids].sort());
    const owners = await a.ownership.ownersOf(ids);
    expect(owners.every((owner) => owner === "a" || owner === "b")).toBe(true);
    expect([...a.leftBehind, ...b.leftBehind]).toContain("z");
    expect(await a.liveness.instances()).not.toContain("z");
  });

  it("after a lapse, finds the jobs another instance took meanwhile to drop, then its own not held to take up", async () => {
    const a = await instance("a");
    const [kept, lost, notHeld] = [await store.job(), await store.job(), await store.job()];
    await a.ownership.takeAll([kept.id, lost.id, notHeld.id], "a");
    // Another instance took one over while this one's heartbeat had lapsed.
    expect(await a.ownership.take(lost.id, "b", "a")).toBe(true);

    const found = await all(a.recovery.ownJobs({ restarted: false, held: [kept.id, lost.id] }));
    expect(found[0]).toEqual({ drop: [lost.id] });
    expect(taken(found).sort()).toEqual([kept.id, notHeld.id].sort());
    expect(a.leftBehind).toEqual([]);
  });

  it("lets go of its gate when the engine stops acting on what it finds midway", async () => {
    await deadWithJobs(2);
    const a = await instance("a");
    for await (const finding of a.recovery.deadInstances()) {
      expect(taken([finding])).toHaveLength(2);
      break;
    }
    expect(await store.stores.claims.holder("takeover:z")).toBeUndefined();
  });
});
