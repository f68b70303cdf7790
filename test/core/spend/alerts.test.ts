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

describe("the alerts' language", () => {
  let stores: Stores | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await stores?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("is the one the admins set with setup language (an alert has no one reader), else English", async () => {
    dir = mkdtempSync(join(tmpdir(), "alerts-"));
    stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`);
    const chat = new FakeAdapter("discord");
    const german = { platform: "discord" as const, tenantId: "g-de" };
    const plain = { platform: "discord" as const, tenantId: "g-en" };
    const alerts = new SpendAlerts({
      claims: stores.claims,
      settings: async (tenant) => ({
        ...(await stores!.tenants.get(tenant)),
        alertChannelId: "ops",
        defaults: tenant.tenantId === german.tenantId ? { language: "de" } : ({} as Record<string, string>),
      }),
      adapter: () => chat,
      logger: pino({ level: "silent" }),
      owner: "test",
      jobsNow: async () => ({ running: 1, waiting: 2 }),
    });
    await alerts.afterReading(german, usage(810));
    await alerts.creationRefused(german, { userId: "u1", command: "image.generate" });
    await alerts.afterReading(plain, usage(810));
    const posted = chat.posts.map(
      (post) => post.message as { title: string; lines: unknown[]; locale?: string },
    );
    expect(posted.map((card) => [card.title, card.locale])).toEqual([
      ["Ausgabenwarnung", "de"],
      ["Keine Credits mehr", "de"],
      ["Spending alert", "en"],
    ]);
    expect(posted[0]!.lines).toEqual([
      "Die Credits werden knapp: 190 von 1000 übrig (19 %), unter der Warnschwelle von 20 %.",
      "Der Zeitraum wird am 01.01.2099 zurückgesetzt.",
      "Gerade läuft 1 Auftrag; 2 Aufträge warten, bis sie an der Reihe sind (berechnet wird erst, wenn einer startet). Ein Admin kann wartende Aufträge mit dem Befehl jobs und all abbrechen.",
      "Wer was ausgegeben hat, zeigt der Befehl usage; ein Admin kann mit dem Befehl budget Budgets festlegen.",
    ]);
    expect(posted[1]!.lines[0]).toEqual([
      "Eine Erstellung ist fehlgeschlagen, weil das Konto keine Credits mehr hat oder über dem Limit seines Tarifs ist (",
      { userId: "u1" },
      " hat image.generate ausgeführt). Bis zum Rücksetzdatum oder einem Tarif-Upgrade kann nichts mehr erstellt werden.",
    ]);
    expect(posted[2]!.lines[0]).toBe(
      "Credits are running low: 190 of 1000 left (19 %), under the 20 % alert.",
    );
  });
});
