import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterEach, expect, it } from "vitest";
import { heartbeatKey, InstanceInUseError, Liveness } from "../../../src/core/jobs/liveness.js";
import { Ownership } from "../../../src/core/jobs/ownership.js";
import type { Stores } from "../../../src/store/index.js";
import { describeEachBackend } from "../../store/backends.js";
import { until } from "./world.js";

const silent = pino({ level: "silent" });
/**
 * The shortest the engine ever uses (scaledPolicy's floor): a heartbeat outlasts the event-loop
 * stalls of a loaded machine, so a live process in these tests never lapses by accident.
 */
const TIMING = { heartbeatMs: 200, lapseMs: 1_000 };

/** The pid of a process that has exited: what a SIGKILLed predecessor leaves in its token. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describeEachBackend("instance liveness", (ctx) => {
  const started: Liveness[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((l) => l.stop({ handBack: true })));
  });

  function liveness(stores: Stores, instanceId: string, explicit = true, timing = TIMING): Liveness {
    const l = new Liveness({ ...stores, instanceId, explicit, ...timing, logger: silent });
    started.push(l);
    return l;
  }

  it("a process restarted under its id takes the heartbeat at once from its dead predecessor", async () => {
    const stores = await ctx.open();
    const dead = `${deadPid()}@${hostname()}/0dead0|pod-0`;
    expect(await stores.claims.acquire(heartbeatKey("pod-0"), dead, 60_000)).toBe(true);

    // A beat long enough that "at once" cannot be mistaken for waiting one out (to see whether the
    // predecessor renews), however slowly a loaded machine answers.
    const slow = { heartbeatMs: 10_000, lapseMs: 30_000 };
    const before = Date.now();
    const restarted = liveness(stores, "pod-0", true, slow);
    await restarted.start();
    expect(Date.now() - before).toBeLessThan(slow.heartbeatMs);
    expect(restarted.id).toBe("pod-0");
    expect(await restarted.isAlive(restarted.token)).toBe(true);
    expect(await restarted.isAlive(dead)).toBe(false);
  });

  it("refuses a second live process under an id the operator chose; a default id gets a suffix", async () => {
    const stores = await ctx.open();
    const first = liveness(stores, "pod-0");
    await first.start();
    await expect(liveness(stores, "pod-0").start()).rejects.toThrow(InstanceInUseError);

    const defaulted = liveness(stores, "pod-0", false);
    await defaulted.start();
    expect(defaulted.id).toBe("pod-0#2");
    expect(await first.instanceAlive("pod-0")).toBe(true);
    expect((await first.instances()).sort()).toEqual(["pod-0", "pod-0#2"]);
  });

  it("frees what a process held as soon as it is gone, and never while it lives", async () => {
    const stores = await ctx.open();
    const a = liveness(stores, "a");
    const b = liveness(stores, "b");
    await Promise.all([a.start(), b.start()]);
    expect(await a.claim("deliver:job-1", 60_000)).toBe(true);
    expect(await b.claim("deliver:job-1", 60_000)).toBe(false);
    // Well past the heartbeat: a live holder keeps it however long it works.
    await sleep(TIMING.lapseMs * 2);
    expect(await b.claim("deliver:job-1", 60_000)).toBe(false);

    await a.stop({ handBack: true });
    expect(await b.claim("deliver:job-1", 60_000)).toBe(true);
  });

  it("lapses when its process stops beating, and tells the process when it holds it again", async () => {
    const stores = await ctx.open();
    const a = liveness(stores, "a");
    await a.start();
    const watcher = liveness(stores, "w");
    await watcher.start();
    const taken: number[] = [];
    const regained: number[] = [];
    a.onTaken(() => taken.push(Date.now()));
    a.onRegained(() => regained.push(Date.now()));

    // A stall longer than the lapse (the event loop blocked, the store away): simulated by
    // dropping the heartbeat as an expiry would.
    await stores.claims.release(heartbeatKey("a"), a.token);
    expect(await watcher.instanceAlive("a")).toBe(false);
    await until("the next beat holds it again", () => regained.length > 0);
    await sleep(TIMING.heartbeatMs * 2);
    expect(regained).toHaveLength(1);
    expect(taken).toHaveLength(0);
    expect(await watcher.instanceAlive("a")).toBe(true);
  });

  it("does not count on its jobs after a stall longer than its lapse, until it renews", async () => {
    const stores = await ctx.open();
    const a = liveness(stores, "a");
    await a.start();
    expect(a.fresh).toBe(true);
    // The event loop blocked past the lapse: another instance may be taking the jobs over already,
    // before this process's next beat could notice.
    const stalledUntil = Date.now() + TIMING.lapseMs;
    while (Date.now() < stalledUntil);
    expect(a.fresh).toBe(false);
    await until("renewed", () => a.fresh);
  });

  it("lets a process that finds its name held by another leave that one its work", async () => {
    const stores = await ctx.open();
    const a = liveness(stores, "a");
    await a.start();
    const taken: number[] = [];
    a.onTaken(() => taken.push(Date.now()));
    // Stalled past the lapse, meanwhile another process took the name.
    await stores.claims.release(heartbeatKey("a"), a.token);
    expect(await stores.claims.acquire(heartbeatKey("a"), "999@elsewhere/beef|a", 60_000)).toBe(true);
    await until("the next beat finds it taken", () => taken.length > 0);
    expect(await a.isAlive(a.token)).toBe(false);
  });
});

describeEachBackend("job ownership", (ctx) => {
  it("gives a job to one instance, moves it only from the named holder, and finds it per instance", async () => {
    const stores = await ctx.open();
    const own = new Ownership(stores.claims, stores.indexes);
    const results = await Promise.all(["a", "b", "c"].map((i) => own.take("job-1", i)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = ["a", "b", "c"][results.indexOf(true)]!;
    expect(await own.ownerOf("job-1")).toBe(winner);
    expect(await own.take("job-1", winner)).toBe(true); // already its own

    const other = winner === "a" ? "b" : "a";
    expect(await own.take("job-1", other, "nobody")).toBe(false);
    expect(await own.take("job-1", other, winner)).toBe(true);
    expect(await own.listed(winner)).toEqual([]);
    expect(await own.listed(other)).toEqual(["job-1"]);

    await own.seize("job-1", "c");
    expect(await own.ownerOf("job-1")).toBe("c");
    await own.release("job-1");
    expect(await own.ownerOf("job-1")).toBeUndefined();
    expect(await own.listed("c")).toEqual([]);
  });
});
