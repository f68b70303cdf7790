import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FairQueue } from "../../src/core/intake/fair-queue.js";
import { Intake } from "../../src/core/intake/intake.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** An intake on the fake clock: a burst ends after 20 ms without arrivals, and holds work 500 ms at most. */
const intake = () => new Intake({ quietMs: 20, maxHoldMs: 500, now: () => Date.now() });

/**
 * Whether `promise` has settled after the microtasks queued so far and one more turn of the loop
 * (the intake's last look is a setImmediate, which the fake clock runs a millisecond later).
 */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(1);
  return done;
}

/** Arrivals every `everyMs` for `forMs`. */
async function arrivals(gate: Intake, everyMs: number, forMs: number): Promise<void> {
  for (let t = 0; t < forMs; t += everyMs) {
    gate.arrived();
    await vi.advanceTimersByTimeAsync(everyMs);
  }
}

describe("Intake: the work behind the acks waits while requests arrive", () => {
  it("lets work run at once when nothing is arriving", async () => {
    const gate = intake();
    expect(await settledYet(gate.settled())).toBe(true);
    gate.arrived();
    await vi.advanceTimersByTimeAsync(20);
    expect(await settledYet(gate.settled())).toBe(true);
  });

  it("holds work until the arrivals pause, however long the burst is within the limit", async () => {
    const gate = intake();
    gate.arrived();
    const work = gate.settled();
    await arrivals(gate, 5, 200);
    expect(await settledYet(work)).toBe(false);
    await vi.advanceTimersByTimeAsync(15);
    expect(await settledYet(work)).toBe(true);
  });

  it("holds work at most maxHoldMs behind a stream that never pauses, then lets it run beside it", async () => {
    const gate = intake();
    gate.arrived();
    const first = gate.settled();
    await arrivals(gate, 10, 490);
    expect(await settledYet(first)).toBe(false);
    await arrivals(gate, 10, 30);
    expect(await settledYet(first)).toBe(true);
    // The stream goes on: work asked for now is not held again until the arrivals pause.
    gate.arrived();
    expect(await settledYet(gate.settled())).toBe(true);
  });

  it("holds work on when a connection is accepted in the turn after the quiet time (a loaded loop)", async () => {
    const gate = intake();
    gate.arrived();
    const work = gate.settled();
    await vi.advanceTimersByTimeAsync(20);
    // The quiet time has passed on the clock; this turn's poll phase accepts one more connection.
    gate.arrived();
    expect(await settledYet(work)).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(await settledYet(work)).toBe(true);
  });

  it("holds a new burst after a pause again", async () => {
    const gate = intake();
    await arrivals(gate, 10, 600);
    await vi.advanceTimersByTimeAsync(30);
    gate.arrived();
    const work = gate.settled();
    expect(await settledYet(work)).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(await settledYet(work)).toBe(true);
  });
});

describe("FairQueue behind an intake", () => {
  it("starts no task while a burst arrives, and all of them once it has passed", async () => {
    const gate = intake();
    const queue = new FairQueue(4, gate);
    const started: string[] = [];
    gate.arrived();
    const tasks = ["a", "b", "c"].map((name) =>
      queue.add(name, async () => {
        started.push(name);
      }),
    );
    await arrivals(gate, 5, 100);
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    await Promise.all(tasks);
    expect(started.sort()).toEqual(["a", "b", "c"]);
  });
});
