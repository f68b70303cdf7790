import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { NormalizedStatus } from "../../../src/core/api/job-status.js";
import { DueReads } from "../../../src/core/jobs/due-reads.js";
import { MinHeap } from "../../../src/core/jobs/heap.js";
import { Lane } from "../../../src/core/jobs/lane.js";
import { Pace } from "../../../src/core/jobs/pace.js";
import {
  DEFAULT_POLICY,
  fixedPolicy,
  pollDelay,
  resumeDelay,
  scaledPolicy,
} from "../../../src/core/jobs/policy.js";
import { polled } from "../../../src/core/jobs/polled.js";
import { Scheduler } from "../../../src/core/jobs/scheduler.js";
import { EditThrottle } from "../../../src/core/jobs/throttle.js";
import type { JobRecord } from "../../../src/store/index.js";

const mid = () => 0.5; // no jitter
const s = 1_000;

describe("pollDelay", () => {
  it("slows down with age, per kind, without a progress rate", () => {
    const at = (kind: "image" | "video", ageMs: number) =>
      pollDelay(DEFAULT_POLICY, { kind, ageMs, remainingMs: undefined }, mid);
    expect([at("image", 0), at("image", 2 * 60 * s), at("image", 20 * 60 * s)]).toEqual([
      3 * s,
      4 * s,
      10 * s,
    ]);
    expect([at("video", 0), at("video", 60 * s), at("video", 5 * 60 * s), at("video", 20 * 60 * s)]).toEqual([
      3 * s,
      6 * s,
      15 * s,
      30 * s,
    ]);
  });

  it("waits half the remaining time, capped per kind, and backs off once overdue", () => {
    const video = (remainingMs: number, ageMs = 5 * 60 * s) =>
      pollDelay(DEFAULT_POLICY, { kind: "video", ageMs, remainingMs }, mid);
    expect(video(4 * 60 * s)).toBe(30 * s); // far: the kind's longest wait
    expect(video(20 * s)).toBe(10 * s);
    expect(video(500)).toBe(1 * s); // near: the shortest
    expect(video(-4 * s)).toBe(2 * s); // overdue: half of how late
    expect(video(-120 * s)).toBe(15 * s); // ...up to the age step
  });

  it("spreads waits by the jitter and never below the minimum", () => {
    const ctx = { kind: "image" as const, ageMs: 0, remainingMs: undefined };
    expect(pollDelay(DEFAULT_POLICY, ctx, () => 0)).toBeCloseTo(2.4 * s);
    expect(pollDelay(DEFAULT_POLICY, ctx, () => 1)).toBeCloseTo(3.6 * s);
    expect(pollDelay(DEFAULT_POLICY, { ...ctx, remainingMs: 10 }, () => 0)).toBe(
      DEFAULT_POLICY.minIntervalMs,
    );
  });

  it("spreads the first polls of resumed jobs over one interval of their kind and age", () => {
    expect(resumeDelay(DEFAULT_POLICY, "video", 20 * 60 * s, () => 0.5)).toBe(15 * s);
    expect(resumeDelay(DEFAULT_POLICY, "image", 0, () => 0)).toBe(0);
  });

  it("scales durations only, and the fixed baseline ignores age and progress", () => {
    const scaled = scaledPolicy(0.01);
    expect(scaled.kinds.video.stuckAfterMs).toBe(18 * s);
    expect(scaled.kinds.video.steps[0]).toEqual({ untilAgeMs: 300, everyMs: 30 });
    expect(scaled.maxRequestsPerSecond).toBe(DEFAULT_POLICY.maxRequestsPerSecond);
    expect(scaled.progressStep).toBe(DEFAULT_POLICY.progressStep);
    const naive = fixedPolicy(2 * s);
    expect(
      pollDelay(naive, { kind: "video", ageMs: 60 * 60 * s, remainingMs: 5 * 60 * s }, Math.random),
    ).toBe(2 * s);
  });
});

describe("Pace", () => {
  it("projects the end from the working rate, and keeps it while progress stands still", () => {
    const pace = new Pace();
    pace.observe("queued", null, 0);
    pace.observe("working", 10, 10 * s);
    expect(pace.remainingMs(10 * s)).toBeUndefined();
    pace.observe("working", 20, 20 * s); // 1 point per second
    expect(pace.remainingMs(20 * s)).toBe(80 * s);
    pace.observe("working", 20, 50 * s);
    expect(pace.remainingMs(50 * s)).toBe(50 * s);
    pace.observe("retrying", 20, 60 * s);
    expect(pace.remainingMs(60 * s)).toBeUndefined();
  });

  it("guesses from one figure as if the job worked since it was created, until a second one moves", () => {
    const pace = new Pace(100 * s);
    expect(pace.likelyRemainingMs(100 * s)).toBeUndefined();
    pace.observe("working", 25, 110 * s); // 25 points in 10 s: done at 140 s
    expect(pace.likelyRemainingMs(110 * s)).toBe(30 * s);
    expect(pace.remainingMs(110 * s)).toBeUndefined(); // a guess: the poll policy does not use it
    pace.observe("working", 25, 112 * s);
    expect(pace.likelyRemainingMs(112 * s)).toBe(28 * s);
    pace.observe("working", 35, 115 * s); // 2 points a second between the reads: done at 147.5 s
    expect(pace.likelyRemainingMs(115 * s)).toBe(32.5 * s);
    expect(pace.remainingMs(115 * s)).toBe(32.5 * s);
  });

  it("does not take the creation for the start once the job is seen not working, or starting over", () => {
    const queued = new Pace(0);
    queued.observe("queued", null, 5 * s);
    queued.observe("working", 50, 10 * s);
    expect(queued.likelyRemainingMs(10 * s)).toBeUndefined();
    const restarted = new Pace(0);
    restarted.observe("working", 50, 10 * s);
    restarted.observe("working", 10, 20 * s);
    expect(restarted.likelyRemainingMs(20 * s)).toBeUndefined();
    const idle = new Pace(0);
    idle.observe("working", 0, 10 * s);
    expect(idle.likelyRemainingMs(10 * s)).toBeUndefined();
  });
});

describe("MinHeap", () => {
  it("gives the values back smallest key first, however they went in", () => {
    const heap = new MinHeap<number>();
    const keys = Array.from({ length: 500 }, (_, i) => (i * 7919) % 503);
    for (const key of keys) heap.push(key, key);
    const out: number[] = [];
    for (let value = heap.pop(); value !== undefined; value = heap.pop()) out.push(value);
    expect(out).toEqual([...keys].sort((a, b) => a - b));
    expect(heap.peekKey()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("DueReads", () => {
  const job = (id: string) =>
    polled({ id, state: "working", progress: null, lastProgressAt: 0 } as JobRecord);
  /** A job that moves 1 point a second and was last seen at `progress` percent at `at`. */
  const paced = (id: string, progress: number, at: number) => {
    const tracked = job(id);
    tracked.pace.observe("working", progress - 10, at - 10 * s);
    tracked.pace.observe("working", progress, at);
    return tracked;
  };

  it("takes the jobs predicted to have ended first, then those without a pace by when they fell due, then the rest", () => {
    const due = new DueReads();
    const now = 1_000 * s;
    due.add(paced("ends in 30 s", 70, now), now);
    due.add(job("no pace, due now"), now);
    due.add(paced("ended 5 s ago", 100, now - 5 * s), now);
    due.add(job("no pace, due earlier"), now - 2 * s);
    due.add(paced("ended 20 s ago", 100, now - 20 * s), now);
    const order: string[] = [];
    for (let tracked = due.take(now); tracked; tracked = due.take(now)) order.push(tracked.job.id);
    expect(order).toEqual([
      "ended 20 s ago",
      "ended 5 s ago",
      "no pace, due earlier",
      "no pace, due now",
      "ends in 30 s",
    ]);
  });

  it("puts a predicted end that passed while the reads waited before the jobs without a pace", () => {
    const due = new DueReads();
    due.add(job("no pace, due at 0 s"), 0);
    due.add(paced("ends at 12 s", 88, 0), 0);
    due.add(job("no pace, due at 1 s"), 1 * s);
    const order = (now: number) => due.take(now)?.job.id;
    expect(order(5 * s)).toBe("no pace, due at 0 s");
    expect(order(13 * s)).toBe("ends at 12 s");
    expect(order(13 * s)).toBe("no pace, due at 1 s");
  });

  it("keeps one place per job", () => {
    const due = new DueReads();
    const tracked = job("a");
    due.add(tracked, 1);
    due.add(tracked, 0);
    expect(due.size).toBe(1);
    expect(due.take(1)).toBe(tracked);
    expect(due.take(1)).toBeUndefined();
  });
});

describe("Lane", () => {
  it("runs items in order, a few at a time, and drops what waits when cleared", async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const held: Promise<void>[] = [];
    const lane = new Lane<number>(
      2,
      async (item) => {
        started.push(item);
        running += 1;
        most = Math.max(most, running);
        await sleep(5);
        running -= 1;
      },
      (work) => held.push(work),
    );
    for (let i = 0; i < 3_000; i++) lane.add(i);
    await sleep(20);
    lane.clear();
    await Promise.all(held);
    expect(most).toBe(2);
    expect(started.length).toBeGreaterThan(2);
    expect(started.length).toBeLessThan(3_000);
    expect(started).toEqual(started.map((_, i) => i));
    lane.add(-1);
    await Promise.all(held);
    expect(started.at(-1)).toBe(-1);
  });
});

describe("Scheduler", () => {
  it("fires due jobs in order behind one timer; rescheduling and cancelling void the old entry", async () => {
    const fired: string[] = [];
    const scheduler = new Scheduler(Date.now, (id) => fired.push(id));
    const now = Date.now();
    scheduler.schedule("c", now + 30);
    scheduler.schedule("a", now + 10);
    scheduler.schedule("b", now + 20);
    scheduler.schedule("x", now + 5);
    scheduler.cancel("x");
    scheduler.schedule("c", now + 1);
    await sleep(60);
    expect(fired).toEqual(["c", "a", "b"]);
    expect(scheduler.size).toBe(0);
    scheduler.stop();
  });

  it("fires nothing while paused (an engine taking up its jobs), then what fell due, earliest first", async () => {
    const fired: string[] = [];
    const scheduler = new Scheduler(Date.now, (id) => fired.push(id));
    const now = Date.now();
    scheduler.pause();
    scheduler.schedule("b", now + 20);
    scheduler.schedule("a", now + 10);
    scheduler.schedule("later", now + 200);
    await sleep(60);
    expect(fired).toEqual([]);
    scheduler.resume();
    await sleep(10);
    expect(fired).toEqual(["a", "b"]);
    await sleep(250);
    expect(fired).toEqual(["a", "b", "later"]);
    scheduler.stop();
  });
});

describe("EditThrottle", () => {
  it("shows changes only, at most once per interval, one at a time", async () => {
    let t = 0;
    const throttle = new EditThrottle(100, () => t);
    const status = (progress: number): NormalizedStatus => ({ state: "working", progress, terminal: false });
    const shown: number[] = [];
    const show = (p: number) => async () => {
      shown.push(p);
    };
    throttle.seed("j", "queued", null, 0);
    expect(throttle.offer("j", status(10), show(10))).toBe(false); // within the interval of the first card
    t = 100;
    expect(throttle.offer("j", status(10), show(10))).toBe(true);
    expect(throttle.offer("j", status(15), show(15))).toBe(false); // one edit in flight at a time
    await sleep(0);
    t = 250;
    expect(throttle.offer("j", status(10), show(10))).toBe(false); // unchanged
    expect(throttle.offer("j", status(20), show(20))).toBe(true);
    t = 300;
    expect(throttle.offer("j", status(30), show(30))).toBe(false);
    await throttle.force("j", { state: "needs_choice", progress: 30, terminal: false }, show(99));
    await throttle.settle("j");
    expect(shown).toEqual([10, 20, 99]);
  });
});
