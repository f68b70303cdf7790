import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { attribute } from "../../src/core/spend/attribution.js";
import { applicable, HOLD_TTL_MS, holdItems, jobFields } from "../../src/core/spend/budgets.js";
import type { Reading } from "../../src/core/spend/data/model.js";
import {
  type Budget,
  type Hold,
  type JobSettlement,
  openStores,
  type SpendStore,
  type Stores,
} from "../../src/store/index.js";
import { describeEachBackend, sqlite } from "./backends.js";
import { describeRedis } from "./redis-server.js";

/**
 * The budgets' sums on the store, on sqlite and on Redis alike: the check and the reservation are
 * one atomic step (no lock), replicas (connections) check as one, and the sums a job adds to are
 * what attributing every reading of the period at once gives, in whatever order they arrive.
 */

const tenant = { platform: "slack" as const, tenantId: "T1" };
const period = "2026-12-01";
const book = { tenant, period };

interface Person {
  userId: string;
  roleIds: string[];
  channelId: string;
}
const person = (userId: string): Person => ({ userId, roleIds: [], channelId: "C1" });

/** The hold a start of `command` makes against `rules`, as Spending.around makes it. */
function holdOf(
  rules: Budget[],
  who: Person,
  at = 1_000_000,
  command = "image.generate",
  kind = "image",
): Hold {
  return {
    id: randomUUID(),
    command,
    at,
    lapsedUpTo: at - HOLD_TTL_MS,
    items: holdItems(applicable(rules, who, kind), who),
  };
}

/** What a made job settles: counted for `who`, priced by its readings, its hold given back. */
function settlement(
  who: Person,
  job: { id: string; before?: number; after?: number; at?: number; probeId?: string; holdId?: string },
  command = "image.generate",
  kind = "image",
): JobSettlement {
  const at = job.at ?? 1_000_000;
  return {
    book,
    userId: who.userId,
    jobId: job.id,
    command,
    keyId: "key1",
    ...jobFields(who, kind, "2026-11-02"),
    ...(job.before !== undefined && {
      before: { id: job.probeId ?? `probe:${job.id}`, creditsUsed: job.before, counters: {}, at: at - 1 },
    }),
    ...(job.after !== undefined && { after: { creditsUsed: job.after, counters: {}, at } }),
    ...(job.holdId && { hold: { book, holdId: job.holdId } }),
  };
}

async function reserveOrRefuse(spend: SpendStore, hold: Hold): Promise<boolean> {
  return (await spend.reserve(book, hold)) === undefined;
}

describeEachBackend("budgets' sums", (ctx) => {
  it("checks and reserves as one: 200 starts at once through three connections against 50 jobs reserve exactly 50", async () => {
    const replicas: Stores[] = [await ctx.open(), await ctx.open(), await ctx.open()];
    const rules: Budget[] = [{ scope: "everyone", id: "", unit: "jobs", limit: 50 }];
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        reserveOrRefuse(replicas[i % 3]!.spend, holdOf(rules, person(`U${i}`))),
      ),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(50);
    expect(await replicas[0]!.spend.holds(book)).toBe(50);
  });

  it("lets exactly the budget's starts through while others settle at the same time: a made job is never counted twice, even for a moment", async () => {
    const replicas: Stores[] = [await ctx.open(), await ctx.open(), await ctx.open()];
    const rules: Budget[] = [{ scope: "everyone", id: "", unit: "jobs", limit: 225 }];
    const made = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const { spend } = replicas[i % 3]!;
        const who = person(`U${i}`);
        // Starts arrive over a few tens of milliseconds: early ones settle while later ones check.
        await sleep(i % 40);
        const hold = holdOf(rules, who);
        if (!(await reserveOrRefuse(spend, hold))) return false;
        await spend.settle(settlement(who, { id: `job-${i}`, holdId: hold.id }));
        return true;
      }),
    );
    expect(made.filter(Boolean)).toHaveLength(225);
    expect((await replicas[0]!.spend.tallies(book))["everyone|jobs"]).toBe(225);
    expect(await replicas[0]!.spend.holds(book)).toBe(0);
  });

  it("names the budget a start would break and what is used and held of it; a refused or failed start gives its hold back", async () => {
    const { spend } = await ctx.open();
    const rules: Budget[] = [
      { scope: "everyone", id: "", unit: "credits", limit: 1000 },
      { scope: "user", id: "*", unit: "jobs", limit: 2 },
    ];
    const ann = person("ann");
    const first = holdOf(rules, ann);
    expect(await spend.reserve(book, first)).toBeUndefined();
    expect(await spend.reserve(book, holdOf(rules, ann))).toBeUndefined();
    expect(await spend.reserve(book, holdOf(rules, ann))).toEqual({ index: 1, taken: 2 });
    // Each person has their own two.
    expect(await spend.reserve(book, holdOf(rules, person("bob")))).toBeUndefined();
    await spend.release(book, first.id);
    expect(await spend.reserve(book, holdOf(rules, ann))).toBeUndefined();
  });

  it("checks reservations sent at once in the order they came: exactly those that fit are held, each refusal says what those before it took", async () => {
    const { spend } = await ctx.open();
    const rules: Budget[] = [
      { scope: "everyone", id: "", unit: "jobs", limit: 4 },
      { scope: "user", id: "*", unit: "jobs", limit: 1 },
    ];
    const other = { tenant: { platform: "slack" as const, tenantId: "T2" }, period };
    // Ann twice (her second over her own budget), then five others: everyone's budget takes four.
    const holds = ["ann", "ann", "bob", "cat", "dan", "eve", "fay"].map((name) =>
      holdOf(rules, person(name)),
    );
    // All in the same moment, so checked in one batch, with another tenant's start in its own book.
    const answers = await Promise.all([
      ...holds.map((hold) => spend.reserve(book, hold)),
      spend.reserve(other, holdOf(rules, person("ann"))),
    ]);
    expect(answers).toEqual([
      undefined,
      { index: 1, taken: 1 },
      undefined,
      undefined,
      undefined,
      { index: 0, taken: 4 },
      { index: 0, taken: 4 },
      undefined,
    ]);
    expect(await spend.holds(book)).toBe(4);
    expect(await spend.holds(other)).toBe(1);
    // The refused hold nothing: giving back one that fit lets exactly one more in.
    await spend.release(book, holds[0]!.id);
    const [gus, hal] = await Promise.all(
      ["gus", "hal"].map((name) => spend.reserve(book, holdOf(rules, person(name)))),
    );
    expect([gus, hal]).toEqual([undefined, { index: 0, taken: 4 }]);
  });

  it("counts a made job once its hold is given back, and its real cost is the next credit reservation", async () => {
    const { spend } = await ctx.open();
    const credits: Budget[] = [{ scope: "everyone", id: "", unit: "credits", limit: 30 }];
    const ann = person("ann");
    const hold = holdOf(credits, ann, 1_000_000, "video.cinematic", "cinematic");
    expect(await spend.reserve(book, hold)).toBeUndefined();
    const cost = await spend.settle(
      settlement(
        ann,
        { id: "job-a", before: 100, after: 120, holdId: hold.id },
        "video.cinematic",
        "cinematic",
      ),
    );
    expect(cost).toBe(20);
    expect(await spend.holds(book)).toBe(0);
    const sums = await spend.tallies(book);
    expect(sums).toMatchObject({
      "everyone|credits": 20,
      "everyone|jobs": 1,
      "everyone|cinematic": 1,
      "user:ann|credits": 20,
      "channel:C1|credits": 20,
    });
    // 20 used of 30: a second cinematic video (reserved at 20 now) would go over; an image (1) would not.
    expect(
      await spend.reserve(book, holdOf(credits, ann, 1_000_000, "video.cinematic", "cinematic")),
    ).toEqual({
      index: 0,
      taken: 20,
    });
    expect(await spend.reserve(book, holdOf(credits, ann))).toBeUndefined();
    expect(await spend.personTallies(book, "ann")).toMatchObject({
      "kind:cinematic|credits": 20,
      "day:2026-11-02|jobs": 1,
    });
  });

  it("prices concurrent jobs settled in any order each at their own cost, and moves a neighbour's price as readings arrive", async () => {
    const { spend } = await ctx.open();
    const [ann, bob] = [person("ann"), person("bob")];
    // Both probes read 100; the service charged a (5) then b (7); b's answer is settled first.
    expect(await spend.settle(settlement(bob, { id: "b", before: 100, after: 112, probeId: "p" }))).toBe(12);
    expect(await spend.settle(settlement(ann, { id: "a", before: 100, after: 105, probeId: "p" }))).toBe(5);
    const sums = await spend.tallies(book);
    expect([sums["user:ann|credits"], sums["user:bob|credits"], sums["everyone|credits"]]).toEqual([
      5, 7, 12,
    ]);
    expect(await spend.outside("key1", period)).toBe(0);
  });

  it("lets reservations of a process that died lapse after their time, and refuses a used-up budget even at the estimate", async () => {
    const { spend } = await ctx.open();
    const twoJobs: Budget[] = [{ scope: "user", id: "*", unit: "jobs", limit: 2 }];
    const ann = person("ann");
    expect(await reserveOrRefuse(spend, holdOf(twoJobs, ann, 1_000))).toBe(true);
    expect(await reserveOrRefuse(spend, holdOf(twoJobs, ann, 1_000))).toBe(true);
    expect(await reserveOrRefuse(spend, holdOf(twoJobs, ann, 1_000 + HOLD_TTL_MS - 1))).toBe(false);
    expect(await reserveOrRefuse(spend, holdOf(twoJobs, ann, 1_000 + HOLD_TTL_MS))).toBe(true);
    const zero: Budget[] = [{ scope: "user", id: "ann", unit: "credits", limit: 0 }];
    expect(await spend.reserve(book, holdOf(zero, ann))).toEqual({ index: 0, taken: 0 });
  });

  it("reserves at least a credit for a command whose last cost read as nothing, so a credit budget holds", async () => {
    const { spend } = await ctx.open();
    const ann = person("ann");
    // A job whose charge cost nothing: its command's last cost is 0.
    await spend.settle(settlement(ann, { id: "free", before: 50, after: 50 }));
    const three: Budget[] = [{ scope: "everyone", id: "", unit: "credits", limit: 3 }];
    for (let i = 0; i < 3; i++) expect(await reserveOrRefuse(spend, holdOf(three, ann))).toBe(true);
    expect(await reserveOrRefuse(spend, holdOf(three, ann))).toBe(false);
  });

  it("keeps the sums equal to attributing every reading of the period at once, whatever order and concurrency they arrive in", async () => {
    const connections = [await ctx.open(), await ctx.open()];
    const people = ["ann", "bob", "cat"].map(person);
    // Each step up the account's credits_used is a job of one of the people, or spending outside
    // the bot (which the next start's probe fences off).
    const charge = fc.record({ cost: fc.integer({ min: 0, max: 20 }), who: fc.integer({ min: -1, max: 2 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(charge, { minLength: 1, maxLength: 30 }),
        fc.integer(),
        async (charges, seed) => {
          const ours = { tenant: { platform: "slack" as const, tenantId: `T${randomUUID()}` }, period };
          const keyId = `key-${randomUUID()}`;
          let credits = 1000;
          const settlements: JobSettlement[] = [];
          const readings: Reading[] = [];
          charges.forEach(({ cost, who }, n) => {
            const before = credits;
            credits += cost;
            if (who < 0) return;
            const at = 1_000_000 + n;
            readings.push(
              { creditsUsed: before, counters: {}, at },
              { creditsUsed: credits, counters: {}, at, jobId: `job-${n}` },
            );
            settlements.push({
              ...settlement(people[who]!, { id: `job-${n}`, before, after: credits, at }),
              book: ours,
              keyId,
            });
          });
          // A last look at the account (a probe with nothing after it) shows the spending outside at the end.
          const last = { id: "probe-last", creditsUsed: credits, counters: {}, at: 2_000_000 };
          readings.push(last);
          settlements.push({
            ...settlement(people[0]!, { id: "nothing" }),
            book: ours,
            keyId,
            counts: [],
            before: last,
          });
          // Shuffled by the seed, and sent at once through both connections.
          const order = settlements
            .map((s, i) => ({ s, key: Math.abs(Math.sin(seed + i)) }))
            .sort((a, b) => a.key - b.key)
            .map(({ s }) => s);
          await Promise.all(order.map((s, i) => connections[i % 2]!.spend.settle(s)));

          const expected = attribute(readings);
          const byPerson: Record<string, number> = {};
          charges.forEach(({ who }, n) => {
            if (who < 0) return;
            const id = `user:${people[who]!.userId}|credits`;
            byPerson[id] = (byPerson[id] ?? 0) + (expected.jobs.get(`job-${n}`)?.credits ?? 0);
          });
          const sums = await connections[0]!.spend.tallies(ours);
          const people_ = Object.fromEntries(
            Object.entries(sums).filter(([field]) => /^user:.*\|credits$/.test(field) && sums[field] !== 0),
          );
          expect(people_).toEqual(Object.fromEntries(Object.entries(byPerson).filter(([, v]) => v !== 0)));
          expect(sums["everyone|credits"] ?? 0).toBe(
            [...expected.jobs.values()].reduce((a, j) => a + j.credits, 0),
          );
          expect(await connections[0]!.spend.outside(keyId, period)).toBe(expected.outside.credits);
        },
      ),
      { numRuns: 12 },
    );
  });

  it("forgets a key's periods older than the one before: records and sums", async () => {
    const { spend } = await ctx.open();
    const ann = person("ann");
    const periods = ["2026-10-01", "2026-11-01", "2026-12-01"];
    for (const [n, p] of periods.entries()) {
      const at = { tenant, period: p };
      await spend.settle({
        ...settlement(ann, { id: `job-${n}`, before: 10 * n, after: 10 * n + 3 }),
        book: at,
        record: {
          jobId: `job-${n}`,
          serviceJobId: `svc-${n}`,
          tenant,
          userId: "ann",
          channelId: "C1",
          kind: "image",
          command: "image.generate",
          keyId: "key1",
          period: p,
          at: 1_000 + n,
        },
      });
      for (const gone of await spend.setPeriod("key1", p)) await spend.forgetPeriod("key1", gone);
    }
    const first = { tenant, period: periods[0]! };
    expect(await spend.ofTenant(tenant, periods[0]!)).toEqual([]);
    expect(await spend.ofKey("key1", periods[0]!)).toEqual({ jobs: [], probes: [] });
    expect(await spend.tallies(first)).toEqual({});
    expect(await spend.personTallies(first, "ann")).toEqual({});
    // The current period and the one before are kept.
    for (const p of periods.slice(1)) {
      expect((await spend.ofTenant(tenant, p)).map((job) => job.period)).toEqual([p]);
      expect((await spend.tallies({ tenant, period: p }))["everyone|jobs"]).toBe(1);
    }
  });
});

describeRedis("budgets' sums across a failover", (server) => {
  it("counts a reservation and a settlement sent again (their answers lost to a failover) once", async () => {
    await server().admin.flushAll();
    const stores = await openStores(server().url, undefined, pino({ level: "silent" }));
    try {
      const { spend } = stores;
      const rules: Budget[] = [{ scope: "everyone", id: "", unit: "jobs", limit: 2 }];
      const ann = person("ann");
      const first = holdOf(rules, ann);
      expect(await spend.reserve(book, first)).toBeUndefined();
      // The same reservation again holds nothing more: a second start still fits in the two.
      expect(await spend.reserve(book, first)).toBeUndefined();
      const second = holdOf(rules, person("bob"));
      expect(await spend.reserve(book, second)).toBeUndefined();
      expect(await spend.holds(book)).toBe(2);

      const made = settlement(ann, { id: "job-1", holdId: first.id });
      await spend.settle(made);
      await spend.settle(made);
      expect((await spend.tallies(book))["everyone|jobs"]).toBe(1);
      expect(await spend.holds(book)).toBe(1);
    } finally {
      await stores.close();
    }
  });
});

describe("held sums in a file of an earlier version (sqlite)", () => {
  it("count the holds already in the file once this version opens it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spend-held-"));
    const file = join(dir, "bot.sqlite");
    const open = () => openStores(`sqlite://${file}`, undefined, pino({ level: "silent" }));
    try {
      const rules: Budget[] = [{ scope: "everyone", id: "", unit: "jobs", limit: 3 }];
      const before = await open();
      const first = holdOf(rules, person("ann"));
      expect(await reserveOrRefuse(before.spend, first)).toBe(true);
      expect(await reserveOrRefuse(before.spend, holdOf(rules, person("bob")))).toBe(true);
      await before.close();
      // As an earlier version left the file: holds, and no sums of them.
      for (const sql of [
        "DROP TRIGGER spend_holds_held",
        "DROP TRIGGER spend_holds_freed",
        "DROP TABLE spend_held",
      ]) {
        await sqlite(file, sql);
      }
      const after = await open();
      try {
        expect(await reserveOrRefuse(after.spend, holdOf(rules, person("cat")))).toBe(true);
        expect(await after.spend.reserve(book, holdOf(rules, person("dan")))).toEqual({ index: 0, taken: 3 });
        await after.spend.release(book, first.id);
        expect(await reserveOrRefuse(after.spend, holdOf(rules, person("dan")))).toBe(true);
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeEachBackend("records of earlier versions", (ctx) => {
  it("are still read for the export, and forgotten with their period", async () => {
    const stores = await ctx.open();
    const { spend, indexes } = stores;
    const period = "2026-10-01";
    // As an earlier version kept a job and a probe: in the keyv namespace, under period indexes.
    const old = {
      jobId: "old-job",
      serviceJobId: "svc-old",
      tenant,
      userId: "ann",
      channelId: "C1",
      kind: "image",
      command: "image.generate",
      keyId: "key1",
      period,
      at: 1_000,
    };
    await stores.keyv("spend").set("job:old-job", old);
    await stores
      .keyv("spend")
      .set("probe:p1", { keyId: "key1", period, reading: { creditsUsed: 5, counters: {}, at: 999 } });
    for (const name of [`spend:key:key1:${period}`, `spend:tenant:slack:T1:${period}`]) {
      await indexes.add(name, { id: "job:old-job", at: 1_000 });
    }
    await indexes.add(`spend:key:key1:${period}`, { id: "probe:p1", at: 999 });

    expect((await spend.ofTenant(tenant, period)).map((job) => job.jobId)).toEqual(["old-job"]);
    expect(await spend.ofKey("key1", period)).toEqual({
      jobs: [old],
      probes: [{ creditsUsed: 5, counters: {}, at: 999 }],
    });
    await spend.forgetPeriod("key1", period);
    expect(await spend.ofTenant(tenant, period)).toEqual([]);
    expect(await stores.keyv("spend").get("job:old-job")).toBeUndefined();
    expect(await indexes.list(`spend:tenant:slack:T1:${period}`)).toEqual([]);
  });
});
