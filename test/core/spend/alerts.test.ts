import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { crossings, SpendAlerts } from "../../../src/core/spend/alerts.js";
import { openStores, type Stores } from "../../../src/store/index.js";
import { FakeAdapter } from "../fake-adapter.js";

const usage = (used: number, quotas: Record<string, { used: number; limit: number | string }> = {}) => ({
  credits_used: used,
  credits_limit: 1000,
  credits_remaining: 1000 - used,
  usage: quotas,
  usage_reset_date: "2099-01-01",
});

describe("which thresholds a reading crossed", () => {
  it("groups the credits' and each limited quota's, lowest first; unlimited quotas never alert", () => {
    const groups = crossings(
      usage(960, { ai_images: { used: 24, limit: 25 }, cinematic_videos: { used: 500, limit: "unlimited" } }),
      [0.2, 0.05],
    );
    expect(groups.map((group) => group.map((c) => c.key))).toEqual([
      ["credits:0.05:2099-01-01", "credits:0.2:2099-01-01"],
      ["quota:ai_images:0.05:2099-01-01", "quota:ai_images:0.2:2099-01-01"],
    ]);
    expect(groups[0]![0]!.line).toBe("Credits are running low: 40 of 1000 left (4 %), under the 5 % alert.");
    expect(crossings(usage(700), [0.2, 0.05])).toEqual([]);
  });
});

describe("alerts", () => {
  let stores: Stores | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await stores?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("an alert whose post failed is posted at the next reading, once", async () => {
    dir = mkdtempSync(join(tmpdir(), "alerts-"));
    stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`);
    const chat = new FakeAdapter("discord");
    const tenant = { platform: "discord" as const, tenantId: "g1" };
    const alerts = new SpendAlerts({
      claims: stores.claims,
      settings: async () => ({ ...(await stores!.tenants.get(tenant)), alertChannelId: "ops" }),
      adapter: () => chat,
      logger: pino({ level: "silent" }),
      owner: "test",
    });
    chat.failNext("post");
    await alerts.afterReading(tenant, usage(810));
    expect(chat.posts).toHaveLength(0);
    await alerts.afterReading(tenant, usage(811));
    await alerts.afterReading(tenant, usage(812));
    expect(
      chat.posts.map((post) => [post.target.channelId, (post.message as { title: string }).title]),
    ).toEqual([["ops", "Spending alert"]]);
  });

  it("an alert shows the jobs running apart from those waiting their turn, and goes without them when the store cannot say", async () => {
    dir = mkdtempSync(join(tmpdir(), "alerts-"));
    stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`);
    const chat = new FakeAdapter("discord");
    const base = {
      claims: stores.claims,
      settings: async (tenant: { platform: "discord"; tenantId: string }) => ({
        ...(await stores!.tenants.get(tenant)),
        alertChannelId: "ops",
      }),
      adapter: () => chat,
      logger: pino({ level: "silent" }),
      owner: "test",
    };
    const counted = new SpendAlerts({ ...base, jobsNow: async () => ({ running: 3, waiting: 4 }) });
    await counted.afterReading({ platform: "discord", tenantId: "g1" }, usage(810));
    const unknown = new SpendAlerts({
      ...base,
      jobsNow: async () => {
        throw new Error("the store is away");
      },
    });
    await unknown.afterReading({ platform: "discord", tenantId: "g2" }, usage(810));
    const lines = chat.posts.map((post) => (post.message as { lines: string[] }).lines.join("\n"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(
      "Now: 3 jobs running; 4 jobs waiting their turn (they are charged only once they start)",
    );
    expect(lines[1]).toContain("Credits are running low");
    expect(lines[1]).not.toContain("Now:");
  });
});
