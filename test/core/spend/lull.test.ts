import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Lull } from "../../../src/core/spend/lull.js";

/** A made job's bookkeeping yields to the starts under way in its process, for a bounded time. */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A start under way until `end` is called. */
function underWay(lull: Lull): { end: () => void; done: Promise<void> } {
  let end!: () => void;
  const done = lull.during(() => new Promise<void>((resolve) => (end = resolve)));
  return { end, done };
}

/** Whether `promise` has settled once the microtasks so far have run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(0);
  return settled;
}

describe("the bookkeeping's wait for the starts under way", () => {
  it("does not wait when no start is under way", async () => {
    expect(await settledYet(new Lull(500).whenQuiet())).toBe(true);
  });

  it("waits until the last start of a burst has ended, however the starts end", async () => {
    const lull = new Lull(500);
    const starts = Array.from({ length: 3 }, () => underWay(lull));
    const failing = lull.during(() => Promise.reject(new Error("refused by a budget")));
    await expect(failing).rejects.toThrow("refused by a budget");
    const quiet = lull.whenQuiet();
    starts[0]!.end();
    starts[1]!.end();
    expect(await settledYet(quiet)).toBe(false);
    starts[2]!.end();
    expect(await settledYet(quiet)).toBe(true);
  });

  it("lets the caller of the last start go on before the bookkeeping begins", async () => {
    const lull = new Lull(500);
    const order: string[] = [];
    const start = underWay(lull);
    void lull.whenQuiet().then(() => order.push("bookkeeping"));
    void start.done.then(() => order.push("the start's caller"));
    start.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(["the start's caller", "bookkeeping"]);
  });

  it("waits no longer than its bound under a stream of starts that never pauses", async () => {
    const lull = new Lull(500);
    let current = underWay(lull);
    const quiet = lull.whenQuiet();
    for (let ms = 0; ms < 450; ms += 50) {
      // The next start begins before the one before it ends.
      const next = underWay(lull);
      current.end();
      current = next;
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(await settledYet(quiet)).toBe(false);
    await vi.advanceTimersByTimeAsync(50);
    expect(await settledYet(quiet)).toBe(true);
    current.end();
  });
});
