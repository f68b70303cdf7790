import { describe, expect, it } from "vitest";
import { applicable, holdItems, jobFields } from "../../../src/core/spend/budgets.js";
import type { Budget } from "../../../src/store/index.js";

const ann = { userId: "ann", roleIds: ["designers"], channelId: "general" };
const bob = { userId: "bob", roleIds: [], channelId: "general" };

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

  it("reserves in the sums each budget counts: the each-person budget in the person's own", () => {
    expect(holdItems(applicable(rules, bob, "cinematic"), bob)).toEqual([
      { field: "user:bob|credits", credits: true, limit: 50 },
      { field: "channel:general|cinematic", credits: false, limit: 1 },
      { field: "everyone|credits", credits: true, limit: 1000 },
    ]);
  });
});

describe("what a job adds to", () => {
  it("counts one job (and one of its kind) in every budget's scope, and its day and kind for the reports", () => {
    const { counts, charged } = jobFields(ann, "image", "2026-11-02");
    expect(counts.filter((f) => !f.person).map((f) => f.field)).toEqual([
      "user:ann|jobs",
      "user:ann|image",
      "role:designers|jobs",
      "role:designers|image",
      "channel:general|jobs",
      "channel:general|image",
      "everyone|jobs",
      "everyone|image",
      "kind:image|jobs",
      "day:2026-11-02|jobs",
      "day:2026-11-02/kind:image|jobs",
    ]);
    expect(charged.filter((f) => !f.person).map((f) => f.field)).toEqual([
      "user:ann|credits",
      "role:designers|credits",
      "channel:general|credits",
      "everyone|credits",
      "kind:image|credits",
      "day:2026-11-02|credits",
      "day:2026-11-02/kind:image|credits",
    ]);
  });

  it("keeps the person's own breakdown by kind and day apart, for their own view", () => {
    const { counts, charged } = jobFields(bob, "thumbnail", "2026-11-03");
    expect(counts.filter((f) => f.person).map((f) => f.field)).toEqual([
      "kind:thumbnail|jobs",
      "day:2026-11-03|jobs",
      "day:2026-11-03/kind:thumbnail|jobs",
    ]);
    expect(charged.filter((f) => f.person).map((f) => f.field)).toEqual([
      "kind:thumbnail|credits",
      "day:2026-11-03|credits",
      "day:2026-11-03/kind:thumbnail|credits",
    ]);
  });
});
