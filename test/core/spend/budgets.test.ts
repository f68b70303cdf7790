import { describe, expect, it } from "vitest";
import {
  applicable,
  HOLD_TTL_MS,
  pruneHolds,
  release,
  reserve,
  settle,
} from "../../../src/core/spend/budgets.js";
import type { Budget, BudgetBook } from "../../../src/store/spend.js";

const empty = (): BudgetBook => ({ used: {}, held: {}, lastCost: {}, recent: [] });
const ann = { userId: "ann", roleIds: ["designers"], channelId: "general" };
const bob = { userId: "bob", roleIds: [], channelId: "general" };
const start = (subject = ann, holdId = "h1", command = "image.generate", kind = "image") => ({
  subject,
  kind,
  command,
  holdId,
  now: 1_000,
});
const reading = (creditsUsed: number, at = creditsUsed) => ({ creditsUsed, counters: {}, at });

function reserved(book: BudgetBook, rules: Budget[], s = start()): BudgetBook {
  const outcome = reserve(book, rules, s);
  if ("refusal" in outcome) throw new Error(`refused by ${JSON.stringify(outcome.refusal)}`);
  return outcome.book;
}

describe("which budgets bind a start", () => {
  const rules: Budget[] = [
    { scope: "user", id: "*", unit: "credits", limit: 50 },
    { scope: "user", id: "ann", unit: "credits", limit: 200 },
    { scope: "role", id: "designers", unit: "jobs", limit: 10 },
    { scope: "channel", id: "general", unit: "cinematic", limit: 1 },
    { scope: "everyone", id: "", unit: "credits", limit: 1000 },
  ];

  it("a person's own budget replaces the each-person one; kind budgets bind only their kind", () => {
    expect(applicable(rules, ann, "image").map((r) => `${r.scope}:${r.id}:${r.unit}`)).toEqual([
      "user:ann:credits",
      "role:designers:jobs",
      "everyone::credits",
    ]);
    expect(applicable(rules, bob, "cinematic").map((r) => `${r.scope}:${r.id}:${r.unit}`)).toEqual([
      "user:*:credits",
      "channel:general:cinematic",
      "everyone::credits",
    ]);
  });
});

describe("reserve, settle, release", () => {
  const twoJobs: Budget[] = [{ scope: "user", id: "*", unit: "jobs", limit: 2 }];

  it("counts reservations of starts under way, so the third concurrent start is refused", () => {
    let book = reserved(empty(), twoJobs, start(ann, "a"));
    book = reserved(book, twoJobs, start(ann, "b"));
    const third = reserve(book, twoJobs, start(ann, "c"));
    expect(third).toEqual({ refusal: { rule: twoJobs[0], used: 2, limit: 2 } });
    // Each person has their own two.
    expect("book" in reserve(book, twoJobs, start(bob, "d"))).toBe(true);
  });

  it("a start refused or failed gives its reservation back", () => {
    let book = reserved(empty(), twoJobs, start(ann, "a"));
    book = reserved(book, twoJobs, start(ann, "b"));
    book = release(book, "a");
    expect("book" in reserve(book, twoJobs, start(ann, "c"))).toBe(true);
  });

  it("the real cost replaces the reserved estimate, and becomes the next estimate", () => {
    const credits: Budget[] = [{ scope: "everyone", id: "", unit: "credits", limit: 30 }];
    let book = reserved(empty(), credits, start(ann, "a", "video.cinematic", "cinematic"));
    expect(book.held.a?.amounts).toEqual({ everyone: { credits: 1 } });
    const settled = settle(book, {
      holdId: "a",
      jobId: "job-a",
      subject: ann,
      kind: "cinematic",
      command: "video.cinematic",
      before: reading(100),
      after: reading(120, 101),
    });
    expect(settled.credits).toBe(20);
    book = settled.book;
    expect(book.held).toEqual({});
    expect(book.used.everyone).toEqual({ credits: 20, jobs: 1, cinematic: 1 });
    expect(book.used["user:ann"]).toEqual({ credits: 20, jobs: 1, cinematic: 1 });
    expect(book.used["role:designers"]?.credits).toBe(20);
    // 20 used of 30: a second cinematic video (estimated at 20 now) would go over.
    expect(reserve(book, credits, start(ann, "b", "video.cinematic", "cinematic"))).toEqual({
      refusal: { rule: credits[0], used: 20, limit: 30 },
    });
  });

  it("concurrent starts settled in any order are each charged their own cost", () => {
    // Both probes read 100; the service charged a (5) then b (7); b's answer is settled first.
    let book = empty();
    const common = { subject: ann, kind: "image", command: "image.generate" };
    book = settle(book, {
      ...common,
      holdId: "b",
      jobId: "b",
      before: reading(100, 1),
      after: reading(112, 4),
    }).book;
    expect(book.used["user:ann"]?.credits).toBe(12);
    book = settle(book, {
      ...common,
      holdId: "a",
      jobId: "a",
      before: reading(100, 2),
      after: reading(105, 3),
    }).book;
    expect(book.used["user:ann"]?.credits).toBe(12);
    expect(book.recent.filter((r) => r.jobId).map((r) => [r.jobId, r.charged])).toEqual([
      ["a", 5],
      ["b", 7],
    ]);
  });

  it("a job whose charge was not read counts its estimate", () => {
    const book = settle(empty(), {
      holdId: "a",
      jobId: "a",
      subject: bob,
      kind: "asset",
      command: "mockup.asset",
    });
    expect(book.book.used["user:bob"]).toEqual({ credits: 1, jobs: 1, asset: 1 });
    expect(book.credits).toBeUndefined();
  });

  it("reservations of starts whose process died stop holding anyone back", () => {
    let book = reserved(empty(), twoJobs, start(ann, "a"));
    book = reserved(book, twoJobs, start(ann, "b"));
    expect(pruneHolds(book, 1_000 + HOLD_TTL_MS - 1).held).toHaveProperty("a");
    expect(pruneHolds(book, 1_000 + HOLD_TTL_MS).held).toEqual({});
  });

  it("a used-up budget refuses even at the estimate", () => {
    const zero: Budget[] = [{ scope: "user", id: "ann", unit: "credits", limit: 0 }];
    expect("refusal" in reserve(empty(), zero, start())).toBe(true);
  });

  it("a command whose last cost read as nothing still reserves a credit, so a credit budget holds", () => {
    const credits: Budget[] = [{ scope: "everyone", id: "", unit: "credits", limit: 3 }];
    let book: BudgetBook = { ...empty(), lastCost: { "image.generate": 0 } };
    for (const holdId of ["a", "b", "c"]) book = reserved(book, credits, start(ann, holdId));
    expect("refusal" in reserve(book, credits, start(ann, "d"))).toBe(true);
  });

  it("counts what a settlement moved, corrections included, so a counter of it adds up", () => {
    const common = { subject: ann, kind: "image", command: "image.generate" };
    const b = settle(empty(), {
      ...common,
      holdId: "b",
      jobId: "b",
      before: reading(100, 1),
      after: reading(112, 4),
    });
    const a = settle(b.book, {
      ...common,
      holdId: "a",
      jobId: "a",
      before: reading(100, 2),
      after: reading(105, 3),
    });
    expect([b.spent, a.spent]).toEqual([12, 0]);
    expect([b.credits, a.credits]).toEqual([12, 5]);
  });

  it("a job settled after its reading fell out of the kept window counts its estimate, not nothing", () => {
    const common = { subject: bob, kind: "image", command: "image.generate" };
    let book = empty();
    // 60 later jobs (2 credits each, from 200 up) settle first; the late one was charged at 101.
    for (let i = 0; i < 60; i++) {
      const base = 200 + i * 2;
      book = settle(book, {
        ...common,
        holdId: `h${i}`,
        jobId: `j${i}`,
        before: reading(base, base),
        after: reading(base + 2, base + 1),
      }).book;
    }
    const before = book.used["user:bob"]?.credits ?? 0;
    const late = settle(book, {
      ...common,
      holdId: "late",
      jobId: "late",
      before: reading(100, 1),
      after: reading(101, 2),
    });
    expect(late.credits).toBeUndefined();
    expect((late.book.used["user:bob"]?.credits ?? 0) - before).toBe(2);
  });
});
