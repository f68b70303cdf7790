import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Usage } from "../../../src/core/api/schemas.js";
import { type Card, plainText } from "../../../src/core/base/cards.js";
import type { OutgoingFile } from "../../../src/core/base/ports.js";
import { kindName, spendingCard, spendingExportCard } from "../../../src/core/render/spending.js";
import type { SpendReport } from "../../../src/core/spend/data/model.js";

const usage: Usage = { credits_used: 300, credits_limit: 1000, credits_remaining: 700, plan: "Pro" };

const chart: OutgoingFile = {
  name: "usage.png",
  contentType: "image/png",
  size: 3,
  open: async () => Readable.from([Buffer.from("png")]),
};

function report(overrides: Partial<SpendReport> = {}): SpendReport {
  return {
    since: "2026-03-01",
    scope: "everyone",
    viewerId: "U1",
    totals: { credits: 180, jobs: 20, outside: 0 },
    people: ["U1", "U2", "U3", "U4", "U5", "U6"].map((key, i) => ({
      key,
      credits: 60 - i * 10,
      jobs: 6 - i,
    })),
    kinds: [
      { key: "avatar_video", credits: 120, jobs: 4 },
      { key: "image", credits: 60, jobs: 16 },
    ],
    days: [
      { key: "2026-03-01", credits: 100, jobs: 10 },
      { key: "2026-03-02", credits: 80, jobs: 10 },
    ],
    daysByKind: [{ day: "2026-03-01", kind: "image", credits: 100 }],
    budgets: [],
    ...overrides,
  };
}

const field = (c: Card, name: string) => c.fields.find((f) => f.name === name)?.value;
const names = (c: Card) => c.fields.map((f) => f.name);

describe("spending card", () => {
  it("shows admins the account, the bot's spending, the top five people as mentions, kinds and the chart", () => {
    const c = spendingCard(usage, report(), chart);
    expect(c.title).toBe("Media service usage");
    expect(names(c)).toEqual([
      "Credits used",
      "Credits left",
      "Plan",
      "Spent through the bot this period",
      "By kind",
    ]);
    expect(field(c, "Spent through the bot this period")).toBe("180 credits, 20 jobs");
    expect(field(c, "By kind")).toBe("Avatar videos: 120 credits, 4 jobs\nImages: 60 credits, 16 jobs");
    expect(c.lines).toEqual([
      [
        "Top people:",
        ...[
          ["U1", 60, 6],
          ["U2", 50, 5],
          ["U3", 40, 4],
          ["U4", 30, 3],
          ["U5", 20, 2],
        ].flatMap(([id, credits, jobs]) => ["\n", { userId: id }, ` ${credits} credits, ${jobs} jobs`]),
      ],
    ]);
    expect(c.media).toEqual([
      {
        kind: "image",
        name: "usage.png",
        file: chart,
        alt: "Bar chart of credits spent per day by job kind, 2026-03-01 to 2026-03-02",
        drawn: true,
      },
    ]);
  });

  it("tells a member it is their own spending, without a people list", () => {
    const c = spendingCard(
      usage,
      report({
        scope: "own",
        people: [{ key: "U1", credits: 10, jobs: 1 }],
        totals: { credits: 10, jobs: 1, outside: 0 },
      }),
      chart,
    );
    expect(c.title).toBe("Media service usage");
    expect(c.lines).toEqual(["Your own spending through the bot this period."]);
    expect(c.lines.flat().some((piece) => typeof piece !== "string")).toBe(false);
    expect(field(c, "Spent through the bot this period")).toBe("10 credits, 1 job");
    expect(c.media[0]!.alt).toMatch(/^Bar chart of your credits/);
  });

  it("says in one line when nothing was spent, with no chart", () => {
    const nothing = report({ totals: { credits: 0, jobs: 0, outside: 0 }, people: [], kinds: [], days: [] });
    const admin = spendingCard(usage, nothing, undefined);
    expect(admin.lines.map(plainText)).toEqual(["Nothing was spent through the bot this period."]);
    expect(names(admin)).toEqual(["Credits used", "Credits left", "Plan"]);
    expect(admin.media).toEqual([]);
    const member = spendingCard(undefined, { ...nothing, scope: "own" }, chart);
    expect(member.lines).toEqual(["You have spent nothing through the bot this period."]);
    expect(member.fields).toEqual([]);
    expect(member.media).toEqual([]);
  });

  it("shows spending outside the bot only when there is some", () => {
    expect(names(spendingCard(usage, report(), chart))).not.toContain("Outside the bot");
    const c = spendingCard(usage, report({ totals: { credits: 180, jobs: 20, outside: 35 } }), chart);
    expect(field(c, "Outside the bot")).toBe("35 credits");
  });

  it("lists budgets with what is left, in credits or jobs of a kind", () => {
    const c = spendingCard(
      usage,
      report({
        budgets: [
          { label: "Your budget", unit: "credits", used: 120, limit: 500 },
          { label: "Role @Designers", unit: { jobs: "cinematic" }, used: 12, limit: 10 },
        ],
      }),
      undefined,
    );
    expect(field(c, "Budgets")).toBe(
      "Your budget: 120 of 500 credits (380 left)\nRole @Designers: 12 of 10 cinematic jobs (0 left)",
    );
    expect(c.media).toEqual([]);
  });

  it("keeps the account's warning when no credits are left", () => {
    const c = spendingCard({ ...usage, credits_used: 1000, credits_remaining: 0 }, report(), undefined);
    expect(c.tone).toBe("warning");
    expect(plainText(c.lines[0]!)).toMatch(/^No credits left in this period/);
  });

  it("names kinds as people do, and a new kind still as words", () => {
    expect(kindName("asset")).toBe("Mockup assets");
    expect(kindName("photo_avatar")).toBe("Photo avatars");
    expect(kindName("voice_clone")).toBe("Voice clone");
  });

  it("replies to an export with the CSV attached as a document", () => {
    const csv = { ...chart, name: "spending.csv", contentType: "text/csv" };
    const c = spendingExportCard(42, csv);
    expect(c.title).toBe("Spending export: 42 jobs this period");
    expect(c.media).toEqual([{ kind: "file", name: "spending.csv", file: csv }]);
  });
});
