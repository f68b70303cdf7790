import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Latest, Pacer } from "../../src/slack/pacing.js";

/**
 * The pacing of calls per workspace and method, on a fake clock: each lane keeps to its limit per
 * window, results go before passing states (which use only a share of the limit), a 429 holds
 * its lane alone, and passing states of one message coalesce to the latest.
 */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const lane = (key: string, limit = 3, windowMs = 60_000) => ({ key, limit, windowMs });

/** Slots granted so far, in order, by label. */
function recorder() {
  const granted: string[] = [];
  const take = (pacer: Pacer, l: ReturnType<typeof lane>, label: string, priority: "result" | "passing") =>
    pacer.slot(l, priority).then(() => granted.push(label));
  return { granted, take };
}

describe("Pacer", () => {
  it("grants a lane its limit per window, then the next slot when the window frees one", async () => {
    const pacer = new Pacer({ passingShare: 1 });
    const { granted, take } = recorder();
    const chat = lane("T1:chat.update");
    for (const label of ["a", "b", "c", "d"]) void take(pacer, chat, label, "result");

    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual(["a", "b", "c"]);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(granted).toEqual(["a", "b", "c"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual(["a", "b", "c", "d"]);
  });

  it("keeps part of the limit for results: passing states use their share, and wait behind results", async () => {
    const pacer = new Pacer({ passingShare: 0.5 });
    const { granted, take } = recorder();
    const chat = lane("T1:chat.update", 4);
    for (const label of ["p1", "p2", "p3"]) void take(pacer, chat, label, "passing");
    await vi.advanceTimersByTimeAsync(0);
    void take(pacer, chat, "r1", "result");
    void take(pacer, chat, "r2", "result");
    await vi.advanceTimersByTimeAsync(0);

    expect(granted).toEqual(["p1", "p2", "r1", "r2"]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(granted).toEqual(["p1", "p2", "r1", "r2", "p3"]);
  });

  it("holds one lane for Retry-After while the workspace's other methods go on", async () => {
    const pacer = new Pacer({ passingShare: 1 });
    const { granted, take } = recorder();
    pacer.hold("T1:chat.update", 2_000);
    void take(pacer, lane("T1:chat.update"), "update", "result");
    void take(pacer, lane("T1:functions.completeSuccess"), "step", "result");
    void take(pacer, lane("T2:chat.update"), "elsewhere", "result");

    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual(["step", "elsewhere"]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(granted).toEqual(["step", "elsewhere", "update"]);
  });

  it("lets a waiting call go when its signal aborts", async () => {
    const pacer = new Pacer({ passingShare: 1 });
    pacer.hold("T1:views.publish", 10_000);
    const controller = new AbortController();
    const waiting = pacer.slot(lane("T1:views.publish"), "passing", controller.signal);
    controller.abort(new Error("superseded"));
    await expect(waiting).rejects.toThrow("superseded");
  });
});

describe("Latest", () => {
  it("sends the newest state of a key once the one in flight is done, and none of the states between", async () => {
    const sent: string[] = [];
    let finish: (() => void) | undefined;
    const latest = new Latest<string>(() => undefined);
    const send = (state: string) =>
      new Promise<void>((resolve) => {
        sent.push(state);
        finish = resolve;
      });

    latest.offer("msg", "10%", send);
    latest.offer("msg", "20%", send);
    latest.offer("msg", "30%", send);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["10%"]);
    finish?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(["10%", "30%"]);
    finish?.();
  });

  it("drops what waits on settle, aborts a send still waiting for its slot, and waits for one under way", async () => {
    const pacer = new Pacer({ passingShare: 1 });
    pacer.hold("T1:chat.update", 60_000);
    const calls: string[] = [];
    const latest = new Latest<string>(() => undefined);
    latest.offer("msg", "50%", async (state, signal) => {
      await pacer.slot(lane("T1:chat.update"), "passing", signal);
      calls.push(state);
    });

    await latest.settle("msg");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([]);
  });
});
