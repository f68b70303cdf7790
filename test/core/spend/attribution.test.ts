import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attribute } from "../../../src/core/spend/attribution.js";
import type { Reading } from "../../../src/core/spend/data/model.js";

const TYPES = ["ai_images", "ai_actor_videos", "cinematic_videos"] as const;
type Type = (typeof TYPES)[number];

function probe(creditsUsed: number, at: number, counters: Record<string, number> = {}): Reading {
  return { creditsUsed, counters, at };
}
function answer(
  jobId: string,
  creditsUsed: number,
  at: number,
  counters: Record<string, number> = {},
): Reading {
  return { creditsUsed, counters, at, jobId };
}

describe("attribute, by example", () => {
  it("gives each of two concurrent jobs its own charge, whatever order their answers arrive in", () => {
    // Both probes see 100; A is charged 10 first, then B 5; B's answer reaches the bot first.
    const readings = [probe(100, 1), probe(100, 2), answer("B", 115, 30), answer("A", 110, 40)];
    const result = attribute(readings);
    expect(result.jobs).toEqual(
      new Map([
        ["A", { credits: 10, counters: {} }],
        ["B", { credits: 5, counters: {} }],
      ]),
    );
    expect(result.outside.credits).toBe(0);
    expect([result.from, result.to]).toEqual([100, 115]);
  });

  it("shows spending between two jobs as outside, since B's probe fences it off", () => {
    const readings = [
      probe(100, 1, { ai_images: 3 }),
      answer("A", 110, 2, { ai_images: 4 }),
      probe(130, 3, { ai_images: 5 }), // someone made an image in the web app meanwhile
      answer("B", 135, 4, { ai_images: 6 }),
    ];
    const result = attribute(readings);
    expect(result.jobs.get("A")).toEqual({ credits: 10, counters: { ai_images: 1 } });
    expect(result.jobs.get("B")).toEqual({ credits: 5, counters: { ai_images: 1 } });
    expect(result.outside).toEqual({ credits: 20, counters: { ai_images: 1 } });
  });

  it("counts outside spending inside a job's own call window to that job: nothing separates them", () => {
    // Probe at 100, the web app spends 7, then A's charge of 10: A's step is 17.
    const result = attribute([probe(100, 1), answer("A", 117, 2)]);
    expect(result.jobs.get("A")?.credits).toBe(17);
    expect(result.outside.credits).toBe(0);
  });

  it("shows a lost answer's charge in the next step up", () => {
    // A (cost 10) was charged but its answer never came; B (cost 5) came after it.
    const result = attribute([probe(100, 1), probe(100, 2), answer("B", 115, 3)]);
    expect(result.jobs.get("B")?.credits).toBe(15);
    expect(result.jobs.has("A")).toBe(false);
  });

  it("returns nothing, from 0 to 0, without readings", () => {
    expect(attribute([])).toEqual({ jobs: new Map(), outside: { credits: 0, counters: {} }, from: 0, to: 0 });
  });

  it("gives 0 to a job whose reading is the lowest: its charge came before anything we saw", () => {
    const result = attribute([probe(150, 2), answer("A", 110, 1), answer("B", 160, 3)]);
    expect(result.jobs.get("A")).toEqual({ credits: 0, counters: {} });
    expect(result.jobs.get("B")?.credits).toBe(10);
    expect(result.outside.credits).toBe(40);
    expect([result.from, result.to]).toEqual([110, 160]);
  });

  it("keeps a job's first reading when it was filed twice, and gives the step to the job, not to an equal probe", () => {
    const result = attribute([
      probe(100, 1),
      answer("A", 140, 9), // filed again later, after 30 more were spent elsewhere
      probe(110, 3), // taken after A's charge, equal to its after-reading
      answer("A", 110, 2),
    ]);
    expect(result.jobs).toEqual(new Map([["A", { credits: 10, counters: {} }]]));
    expect(result.outside.credits).toBe(0);
    expect(result.to).toBe(110);
  });
});

/*
 * The properties simulate the real protocol: one account at the service, charges applied one at
 * a time in time order, and readings of it taken by the bot. Each job reads a probe at `probeAt`,
 * is charged `callTakes` later, and its answer (the account right after its own charge) reaches
 * the bot `answerTakes` after that, stamped with its arrival time, so answers overlap and arrive
 * out of order. Outside spends and extra probes fall anywhere. The oracle is computed from the
 * positions of charges in the simulated sequence, never from the readings' values.
 */

interface JobSpec {
  cost: number;
  type: Type;
  probeAt: number;
  callTakes: number;
  answerTakes: number;
  /** The job filed a second time this long after its answer (a retried write): must be ignored. */
  filedAgainAfter: number | null;
}
interface OutsideSpec {
  cost: number;
  type: Type | null;
  at: number;
}
interface Scenario {
  start: { credits: number; counters: number[] };
  jobs: JobSpec[];
  outside: OutsideSpec[];
  probes: number[];
  /** Sort keys that shuffle the readings: arrival order must not matter. */
  shuffle: number[];
}

const jobSpec: fc.Arbitrary<JobSpec> = fc.record({
  cost: fc.integer({ min: 1, max: 30 }),
  type: fc.constantFrom(...TYPES),
  probeAt: fc.integer({ min: 0, max: 1000 }),
  callTakes: fc.integer({ min: 1, max: 300 }),
  answerTakes: fc.integer({ min: 0, max: 300 }),
  filedAgainAfter: fc.option(fc.integer({ min: 1, max: 300 }), { freq: 3 }),
});
const outsideSpec: fc.Arbitrary<OutsideSpec> = fc.record({
  cost: fc.integer({ min: 1, max: 50 }),
  type: fc.option(fc.constantFrom(...TYPES)),
  at: fc.integer({ min: 0, max: 1400 }),
});
function scenario(outside: fc.Arbitrary<OutsideSpec[]>): fc.Arbitrary<Scenario> {
  return fc.record({
    start: fc.record({
      credits: fc.integer({ min: 0, max: 5000 }),
      counters: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 3, maxLength: 3 }),
    }),
    jobs: fc.array(jobSpec, { minLength: 1, maxLength: 20 }),
    outside,
    probes: fc.array(fc.integer({ min: 0, max: 1600 }), { maxLength: 4 }),
    shuffle: fc.array(fc.integer(), { minLength: 64, maxLength: 64 }),
  });
}
const withOutside = scenario(fc.array(outsideSpec, { maxLength: 10 }));
const withoutOutside = scenario(fc.constant([]));

/** A reading together with how many charges the account had taken when it was read. */
interface Seen {
  reading: Reading;
  charges: number;
  /** A second filing of a job, which attribution must drop. */
  duplicate: boolean;
}
/** A charge at the service, by its position (1-based) in the account's sequence. */
interface Charge {
  position: number;
  cost: number;
  type: Type | null;
  jobId: string | null;
}
interface Simulation {
  seen: Seen[];
  charges: Charge[];
  /** Each job's charge position. */
  chargeOf: Map<string, number>;
}

function simulate(s: Scenario): Simulation {
  type Event =
    | { at: number; kind: "probe" }
    | { at: number; kind: "charge"; cost: number; type: Type | null; jobId: string | null; answerAt: number }
    | { at: number; kind: "filedAgain"; jobId: string };
  const events: Event[] = [];
  s.jobs.forEach((j, i) => {
    const jobId = `job${i}`;
    const chargeAt = j.probeAt + j.callTakes;
    const answerAt = chargeAt + j.answerTakes;
    events.push({ at: j.probeAt, kind: "probe" });
    events.push({ at: chargeAt, kind: "charge", cost: j.cost, type: j.type, jobId, answerAt });
    if (j.filedAgainAfter !== null) {
      events.push({ at: answerAt + j.filedAgainAfter, kind: "filedAgain", jobId });
    }
  });
  for (const o of s.outside) events.push({ kind: "charge", ...o, jobId: null, answerAt: o.at });
  for (const at of s.probes) events.push({ at, kind: "probe" });
  // Stable: equal times keep their generated order, which is as good a reality as any other.
  events.sort((a, b) => a.at - b.at);

  let credits = s.start.credits;
  const counters: Record<string, number> = Object.fromEntries(TYPES.map((t, i) => [t, s.start.counters[i]!]));
  const seen: Seen[] = [];
  const charges: Charge[] = [];
  const chargeOf = new Map<string, number>();
  const read = (at: number, jobId?: string): Reading => ({
    creditsUsed: credits,
    counters: { ...counters },
    at,
    ...(jobId === undefined ? {} : { jobId }),
  });
  for (const e of events) {
    if (e.kind === "probe") {
      seen.push({ reading: read(e.at), charges: charges.length, duplicate: false });
    } else if (e.kind === "filedAgain") {
      seen.push({ reading: read(e.at, e.jobId), charges: charges.length, duplicate: true });
    } else {
      credits += e.cost;
      if (e.type !== null) counters[e.type]! += 1;
      charges.push({ position: charges.length + 1, cost: e.cost, type: e.type, jobId: e.jobId });
      if (e.jobId !== null) {
        chargeOf.set(e.jobId, charges.length);
        seen.push({ reading: read(e.answerAt, e.jobId), charges: charges.length, duplicate: false });
      }
    }
  }
  return { seen, charges, chargeOf };
}

function shuffled(s: Scenario, readings: Reading[]): Reading[] {
  return readings
    .map((r, i) => ({ r, key: s.shuffle[i % s.shuffle.length]!, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map(({ r }) => r);
}

interface Expected {
  credits: number;
  counters: Record<string, number>;
}
function addCharge(into: Expected, c: Charge): void {
  into.credits += c.cost;
  if (c.type !== null) into.counters[c.type] = (into.counters[c.type] ?? 0) + 1;
}

/** What a job should get: `total`, of which `outside` is the outside spending in its call window. */
interface Share {
  total: Expected;
  outside: Expected;
}

/**
 * Each job's share: its own charge plus the outside charges after the last kept reading below its
 * after-reading (by position in the account's sequence) and before its own charge.
 */
function oracle(sim: Simulation): Map<string, Share> {
  const kept = sim.seen.filter((x) => !x.duplicate);
  const shares = new Map<string, Share>();
  for (const [jobId, position] of sim.chargeOf) {
    const below = Math.max(...kept.filter((x) => x.charges < position).map((x) => x.charges));
    // Every job's probe is read before its charge, so something is always below.
    expect(Number.isFinite(below)).toBe(true);
    const share: Share = { total: { credits: 0, counters: {} }, outside: { credits: 0, counters: {} } };
    for (const c of sim.charges.slice(below, position)) {
      // No other job's charge can lie in the window: its after-reading would lie there too.
      expect(c.jobId === null || c.jobId === jobId).toBe(true);
      addCharge(share.total, c);
      if (c.jobId === null) addCharge(share.outside, c);
    }
    shares.set(jobId, share);
  }
  return shares;
}

function attributeShuffled(s: Scenario) {
  const sim = simulate(s);
  const readings = sim.seen.map((x) => x.reading);
  const result = attribute(shuffled(s, readings));
  const kept = sim.seen.filter((x) => !x.duplicate);
  const lowest = kept.reduce((a, b) => (b.charges < a.charges ? b : a));
  const highest = kept.reduce((a, b) => (b.charges > a.charges ? b : a));
  return { sim, result, lowest, highest };
}

const RUNS = { numRuns: 400 };

describe("attribute, on simulated timelines", () => {
  it("conserves credits and every counter: jobs plus outside is exactly last minus first", () => {
    fc.assert(
      fc.property(withOutside, (s) => {
        const { sim, result, lowest, highest } = attributeShuffled(s);
        expect([...result.jobs.keys()].sort()).toEqual([...sim.chargeOf.keys()].sort());
        expect(result.from).toBe(lowest.reading.creditsUsed);
        expect(result.to).toBe(highest.reading.creditsUsed);
        const jobs = [...result.jobs.values()];
        const credits = jobs.reduce((sum, j) => sum + j.credits, 0) + result.outside.credits;
        expect(credits).toBe(result.to - result.from);
        for (const type of TYPES) {
          const moved = jobs.reduce((sum, j) => sum + (j.counters[type] ?? 0), 0);
          expect(moved + (result.outside.counters[type] ?? 0)).toBe(
            highest.reading.counters[type]! - lowest.reading.counters[type]!,
          );
        }
      }),
      RUNS,
    );
  });

  it("without outside spending, gives every job exactly its own cost and counter", () => {
    fc.assert(
      fc.property(withoutOutside, (s) => {
        // No exception for a job whose after-reading is lowest: its own probe, read before its
        // charge, is strictly below it (costs are >= 1), and a probe equal to an after-reading
        // was read after that charge and sorts above it. So no job reading is ever first.
        const { result } = attributeShuffled(s);
        s.jobs.forEach((j, i) => {
          expect(result.jobs.get(`job${i}`)).toEqual({ credits: j.cost, counters: { [j.type]: 1 } });
        });
        expect(result.outside).toEqual({ credits: 0, counters: {} });
      }),
      RUNS,
    );
  });

  it("with outside spending, gives a job its cost plus only the outside spending in its call window", () => {
    fc.assert(
      fc.property(withOutside, (s) => {
        const { sim, result } = attributeShuffled(s);
        for (const [jobId, share] of oracle(sim)) expect(result.jobs.get(jobId)).toEqual(share.total);
      }),
      RUNS,
    );
  });

  it("counts as outside all outside spending it saw, less what went to jobs' call windows", () => {
    fc.assert(
      fc.property(withOutside, (s) => {
        const { sim, result, lowest, highest } = attributeShuffled(s);
        // Only what falls between the lowest and the highest reading is visible at all.
        const expected: Expected = { credits: 0, counters: {} };
        for (const c of sim.charges.slice(lowest.charges, highest.charges)) {
          if (c.jobId === null) addCharge(expected, c);
        }
        for (const { outside } of oracle(sim).values()) {
          expected.credits -= outside.credits;
          for (const [type, n] of Object.entries(outside.counters)) {
            expected.counters[type]! -= n;
            if (expected.counters[type] === 0) delete expected.counters[type];
          }
        }
        expect(result.outside).toEqual(expected);
      }),
      RUNS,
    );
  });
});
