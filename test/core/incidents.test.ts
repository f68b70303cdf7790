import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { INCIDENT_REMINDER_MS, Incidents } from "../../src/core/base/incidents.js";
import { createLogger } from "../../src/core/base/log.js";
import { StoreError } from "../../src/store/errors.js";

function world() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const clock = { ms: 0 };
  const incidents = new Incidents(createLogger({ destination }), { now: () => clock.ms });
  return { lines, clock, incidents };
}

const refused = () => Object.assign(new Error("Request entity too large"), { code: 40005, status: 413 });
const outage = () => Object.assign(new Error("503: Service Unavailable"), { code: 0, status: 503 });

describe("a failure retried again and again", () => {
  it("is logged once, then with its count every hour while it lasts, and its end says how many", () => {
    const { lines, clock, incidents } = world();
    for (let i = 0; i < 150; i += 1) {
      incidents.failed(
        "delivery:j1",
        { err: refused(), jobId: "j1", attempts: i + 1 },
        "delivery failed; will retry",
      );
      clock.ms += 60_000;
    }
    incidents.ended("delivery:j1", { fields: { jobId: "j1" }, msg: "delivery retries over" });

    // A try a minute for 150 minutes: the first, two reminders, and the end.
    expect(lines.map((l) => [l.msg, l.failures, l.attempts])).toEqual([
      ["delivery failed; will retry", 1, 1],
      ["delivery failed; will retry", 61, 61],
      ["delivery failed; will retry", 121, 121],
      ["delivery retries over", 150, undefined],
    ]);
    expect(INCIDENT_REMINDER_MS).toBe(60 * 60_000);
  });

  it("tells a different failure at once, with the count of the one before", () => {
    const { lines, incidents } = world();
    incidents.failed("delivery:j1", { err: outage() }, "delivery failed; will retry");
    incidents.failed("delivery:j1", { err: outage() }, "delivery failed; will retry");
    incidents.failed("delivery:j1", { err: refused() }, "delivery failed; will retry");
    expect(lines.map((l) => [l.failures, l.previousFailures, (l.err as { code: number }).code])).toEqual([
      [1, undefined, 0],
      [1, 2, 40005],
    ]);
  });

  it("keeps jobs apart, and says nothing more at the end of a failure that was told whole", () => {
    const { lines, incidents } = world();
    incidents.failed("status:j1", { err: outage(), jobId: "j1" }, "job status read failed; will retry");
    incidents.failed("status:j2", { err: outage(), jobId: "j2" }, "job status read failed; will retry");
    incidents.ended("status:j1", { fields: { jobId: "j1" }, msg: "job status read again after failures" });
    incidents.failed("status:j1", { err: outage(), jobId: "j1" }, "job status read failed; will retry");
    expect(lines.map((l) => [l.jobId, l.msg, l.failures])).toEqual([
      ["j1", "job status read failed; will retry", 1],
      ["j2", "job status read failed; will retry", 1],
      ["j1", "job status read failed; will retry", 1],
    ]);
  });

  it("ends an incident without a line when its owner has said it all (a give-up)", () => {
    const { lines, incidents } = world();
    incidents.failed("status:j1", { err: outage() }, "job status read failed; will retry");
    incidents.failed("status:j1", { err: outage() }, "job status read failed; will retry");
    incidents.ended("status:j1");
    incidents.ended("status:j1", { fields: {}, msg: "never said: nothing is open" });
    expect(lines).toHaveLength(1);
  });

  it("leaves the store's outage to the store: its failures are neither told nor counted", () => {
    const { lines, incidents } = world();
    const away = new StoreError("store.unavailable", "get in jobs: The client is offline");
    for (let i = 0; i < 5; i += 1)
      incidents.failed("delivery:j1", { err: away, jobId: "j1" }, "delivery failed; will retry");
    incidents.ended("delivery:j1", { fields: { jobId: "j1" }, msg: "delivery retries over" });
    expect(lines).toEqual([]);
  });

  it("keeps at most `max` incidents: the oldest is forgotten and its next failure told anew", () => {
    const lines: unknown[] = [];
    const incidents = new Incidents(
      createLogger({
        destination: new Writable({ write: (c, _e, done) => done(void lines.push(String(c))) }),
      }),
      { max: 2 },
    );
    for (const key of ["a", "b", "c", "a"]) incidents.failed(key, { err: outage() }, "failed");
    expect(lines).toHaveLength(4);
    incidents.failed("c", { err: outage() }, "failed");
    expect(lines).toHaveLength(4);
  });
});
