import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "../../../src/core/base/ports.js";
import { HomeRefresh } from "../../../src/core/home/refresh.js";
import { openSignals } from "../../../src/store/signals.js";

/**
 * The pacing of homes on a fake clock: coalesced, spaced, the last state always published; and a
 * home opened through one replica kept current by another.
 */

const actor = (userId = "U1"): Actor => ({
  platform: "slack",
  tenantId: "T1",
  userId,
  isAdmin: false,
  roleIds: [],
});

let published: { userId: string; at: number }[];
let release: (() => void) | undefined;
let slow: boolean;
let homes: HomeRefresh;

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  published = [];
  slow = false;
  homes = new HomeRefresh(
    async (who) => {
      published.push({ userId: who.userId, at: Date.now() });
      if (slow) await new Promise<void>((resolve) => (release = resolve));
    },
    {
      logger: pino({ level: "silent" }),
      gapMs: 3_000,
      settleMs: 500,
      watchMs: 60_000,
      clock: { now: () => Date.now(), setTimeout: (run, ms) => setTimeout(run, ms), clearTimeout },
    },
  );
});

afterEach(() => {
  homes.stop();
  vi.useRealTimers();
});

describe("home refresh", () => {
  it("publishes a home when opened, at once", async () => {
    homes.opened(actor());
    await vi.advanceTimersByTimeAsync(0);
    expect(published).toEqual([{ userId: "U1", at: 0 }]);
  });

  it("leaves alone the homes nobody opened", async () => {
    homes.changed(actor("U2"));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(published).toEqual([]);
  });

  it("turns a burst of changes into one publish, at least the gap after the last", async () => {
    homes.opened(actor());
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 20; i += 1) {
      homes.changed(actor());
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(5_000);
    expect(published.map((p) => p.at)).toEqual([0, 3_000]);
  });

  it("waits only the settling time after a quiet while", async () => {
    homes.opened(actor());
    await vi.advanceTimersByTimeAsync(10_000);
    homes.changed(actor());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(published.map((p) => p.at)).toEqual([0, 10_500]);
  });

  it("publishes once more after a change that came during a publish, so the last state shows", async () => {
    homes.opened(actor());
    await vi.advanceTimersByTimeAsync(10_000);
    slow = true;
    homes.changed(actor());
    await vi.advanceTimersByTimeAsync(500);
    expect(published).toHaveLength(2);
    homes.changed(actor());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(published).toHaveLength(2);
    slow = false;
    release?.();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(published.map((p) => p.at)).toEqual([0, 10_500, 20_500]);
  });

  it("stops following a home once it was opened longer ago than the watch", async () => {
    homes.opened(actor());
    await vi.advanceTimersByTimeAsync(61_000);
    homes.changed(actor());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(published).toHaveLength(1);
  });

  it("paces each person on their own", async () => {
    homes.opened(actor("U1"));
    homes.opened(actor("U2"));
    await vi.advanceTimersByTimeAsync(0);
    expect(published.map((p) => p.userId).sort()).toEqual(["U1", "U2"]);
  });
});

describe("home refresh across replicas", () => {
  /** Two replicas' refreshes on one store's messages (in-process here; Redis pub/sub in e2e). */
  function replicas() {
    const signals = openSignals({ kind: "sqlite", query: async () => [] });
    const byReplica = { a: [] as number[], b: [] as number[] };
    const make = (name: "a" | "b") =>
      new HomeRefresh(
        async () => {
          byReplica[name].push(Date.now());
        },
        {
          logger: pino({ level: "silent" }),
          gapMs: 3_000,
          settleMs: 500,
          watchMs: 60_000,
          clock: { now: () => Date.now(), setTimeout: (run, ms) => setTimeout(run, ms), clearTimeout },
          signals,
        },
      );
    return { a: make("a"), b: make("b"), byReplica, signals };
  }

  it("publishes a home opened on one replica when another moves the person's jobs", async () => {
    const { a, b, byReplica } = replicas();
    try {
      a.opened(actor());
      await vi.advanceTimersByTimeAsync(0);
      // The opener publishes it; the other only learns that it is watched.
      expect(byReplica).toEqual({ a: [0], b: [] });
      await vi.advanceTimersByTimeAsync(10_000);
      b.changed(actor());
      await vi.advanceTimersByTimeAsync(1_000);
      expect(byReplica).toEqual({ a: [0], b: [10_500] });
      // Somebody else's home is still nobody's business.
      b.changed(actor("U2"));
      await vi.advanceTimersByTimeAsync(5_000);
      expect(byReplica.b).toHaveLength(1);
    } finally {
      a.stop();
      b.stop();
    }
  });

  it("stops hearing other replicas once stopped, and shrugs off a message it cannot read", async () => {
    const { a, b, byReplica, signals } = replicas();
    b.stop();
    await signals.publish("homes:opened", "not json");
    a.opened(actor());
    await vi.advanceTimersByTimeAsync(10_000);
    b.changed(actor());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(byReplica).toEqual({ a: [0], b: [] });
    a.stop();
  });
});
