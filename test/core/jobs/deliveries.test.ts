import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Incidents } from "../../../src/core/base/incidents.js";
import { type Closed, Deliveries } from "../../../src/core/jobs/deliveries.js";
import type { DeliveryResult } from "../../../src/core/jobs/delivery.js";
import type { Outcome } from "../../../src/core/jobs/records.js";
import type { JobRecord } from "../../../src/store/index.js";

/**
 * The deliveries alone, on a fake clock: each try's answer is the test's (delivery.ts, the try
 * itself, runs against real stores in delivery.test.ts), so what is checked here is what follows
 * an answer: joining, waiting, backing off, and closing once.
 */

const silent = pino({ level: "silent" });
const POLICY = { deliveryBaseMs: 1_000, deliveryMaxMs: 4_000, lapseMs: 3_000 };

const job = { id: "job-1", version: 3, attempts: 0, state: "done" } as JobRecord;
const outcome: Outcome = { status: { state: "done", progress: 100, terminal: true }, error: null };
const delivered = (): DeliveryResult => ({ kind: "delivered", job });
const retry = (attempts: number): DeliveryResult => ({ kind: "retry", attempts, error: new Error("down") });

interface Try {
  job: JobRecord;
  outcome: Outcome | undefined;
  answer(result: DeliveryResult): void;
}

function deliveries() {
  const tries: Try[] = [];
  const closed: { id: string; result: Closed }[] = [];
  const part = new Deliveries(
    {
      delivery: {
        run: (job, outcome) =>
          new Promise<DeliveryResult>((answer) => {
            tries.push({ job, outcome, answer });
          }),
      },
      closed: async (id, result) => {
        closed.push({ id, result });
      },
    },
    { policy: POLICY, now: () => Date.now(), log: silent, incidents: new Incidents(silent) },
  );
  part.start();
  part.resume();
  return { part, tries, closed };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("deliveries", () => {
  it("run one delivery of a job at a time: a second call joins the first, which closes once", async () => {
    const { part, tries, closed } = deliveries();
    const first = part.deliver(job, outcome);
    const second = part.deliver(job, outcome);
    await vi.advanceTimersByTimeAsync(0);
    expect(tries).toHaveLength(1);
    expect(part.joining(job.id)).toBe(first);
    tries[0]!.answer(delivered());
    await Promise.all([first, second]);
    expect(closed).toEqual([{ id: job.id, result: { kind: "delivered", job } }]);
    expect(part.has(job.id)).toBe(false);
  });

  it("try a failed delivery again after its backoff, with its outcome, until it goes through", async () => {
    const { part, tries, closed } = deliveries();
    void part.deliver(job, outcome);
    await vi.advanceTimersByTimeAsync(0);
    tries[0]!.answer(retry(1));
    // Equal jitter: the first wait is between half the base and the base.
    await vi.advanceTimersByTimeAsync(POLICY.deliveryBaseMs / 2 - 1);
    expect(tries).toHaveLength(1);
    expect(part.has(job.id)).toBe(true);
    await vi.advanceTimersByTimeAsync(POLICY.deliveryBaseMs / 2 + 1);
    expect(tries).toHaveLength(2);
    expect(tries[1]).toMatchObject({ job: { id: job.id, attempts: 1 }, outcome });
    tries[1]!.answer(retry(2));
    await vi.advanceTimersByTimeAsync(2 * POLICY.deliveryBaseMs);
    expect(tries).toHaveLength(3);
    tries[2]!.answer(delivered());
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10 * POLICY.deliveryMaxMs);
    expect(tries).toHaveLength(3);
  });

  it("leave a delivery another engine holds the claim of for one lapse, then look again", async () => {
    const { part, tries } = deliveries();
    void part.deliver(job, outcome);
    await vi.advanceTimersByTimeAsync(0);
    tries[0]!.answer({ kind: "busy" });
    await vi.advanceTimersByTimeAsync(POLICY.lapseMs - 1);
    expect(tries).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(tries).toHaveLength(2);
  });

  it("deliver a finished job found in the store once they resume, not while the jobs are taken up", async () => {
    const { part, tries } = deliveries();
    part.start();
    part.take(job);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(tries).toHaveLength(0);
    part.resume();
    await vi.advanceTimersByTimeAsync(0);
    expect(tries).toEqual([expect.objectContaining({ job, outcome: undefined })]);
  });

  it("deliver at once, with the outcome it waited with, a job whose delivery waits for a retry", async () => {
    const { part, tries } = deliveries();
    void part.deliver(job, outcome);
    await vi.advanceTimersByTimeAsync(0);
    tries[0]!.answer(retry(1));
    await vi.advanceTimersByTimeAsync(0);
    void part.deliver(job);
    await vi.advanceTimersByTimeAsync(0);
    expect(tries).toHaveLength(2);
    expect(tries[1]!.outcome).toBe(outcome);
    tries[1]!.answer(delivered());
    await vi.advanceTimersByTimeAsync(10 * POLICY.deliveryMaxMs);
    expect(tries).toHaveLength(2);
  });

  it("drop what waits on stop, and let a delivery under way finish", async () => {
    const { part, tries, closed } = deliveries();
    const other = { ...job, id: "job-2" };
    void part.deliver(job, outcome);
    const underWay = part.deliver(other, outcome);
    await vi.advanceTimersByTimeAsync(0);
    tries[0]!.answer(retry(1));
    await vi.advanceTimersByTimeAsync(0);
    part.stop();
    tries[1]!.answer({ kind: "delivered", job: other });
    await underWay;
    await vi.advanceTimersByTimeAsync(10 * POLICY.deliveryMaxMs);
    expect(tries).toHaveLength(2);
    expect(closed.map((c) => c.id)).toEqual(["job-2"]);
    expect(part.has(job.id)).toBe(false);
  });
});
