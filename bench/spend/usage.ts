/**
 * /usage at day 30 of a busy period against day 1: the usage command's report (flows/spend.ts
 * `spendServices(...).report`, the same code the command and the Home run, with the real stores
 * and the media API emulator) for an admin (everyone's spending) and a member (their own), with
 * a thirtieth of the period's jobs recorded (day 1), then all 100,000 (day 30). The jobs are recorded the way starts record
 * them (SpendStore.settle: the record, the ledger, the sums), 300 people, 12 channels, 5 kinds,
 * 30 days. Target: as fast at 100,000 as at 100. The export, which reads every job, is timed once
 * at each size for the record.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createMediaClient } from "../../src/core/api/client.js";
import type { Actor, ChatAdapter } from "../../src/core/base/ports.js";
import type { Core } from "../../src/core/flows/core.js";
import { spendServices } from "../../src/core/flows/spend.js";
import { SpendAlerts } from "../../src/core/spend/alerts.js";
import { dayOf, jobFields } from "../../src/core/spend/budgets.js";
import { Names } from "../../src/core/spend/names.js";
import { keyIdOf, periodOf } from "../../src/core/spend/readings.js";
import { Spending } from "../../src/core/spend/spending.js";
import { Tenancy } from "../../src/core/tenancy/tenancy.js";
import { openStores, type Stores } from "../../src/store/index.js";
import { type Emulator, startEmulator } from "../../test/fakes/media-api/index.js";
import { BenchRedis } from "../scale/redis.js";
import { median, percentile } from "../stats.js";

const KEY = "test-key";
const PEOPLE = 300;
const CHANNELS = 12;
const KINDS = [
  ["image", "image.generate"],
  ["thumbnail", "thumbnail.generate"],
  ["cinematic", "video.cinematic"],
  ["avatar_video", "video.generate"],
  ["mockup", "mockup.generate"],
] as const;
const DAY_MS = 86_400_000;
/** Jobs recorded at once while the period is filled. */
const WRITERS = 64;

export interface UsageFigures {
  backend: "sqlite" | "redis";
  records: number;
  /** ms per report, median and p95 of the calls. */
  admin: { p50: number; p95: number };
  member: { p50: number; p95: number };
  /** One export of every job, ms. */
  exportMs: number;
}

interface World {
  stores: Stores;
  core: Core;
  period: string;
  tenant: { platform: "slack"; tenantId: string };
  close(): Promise<void>;
}

async function openWorld(storeUrl: string, emulator: Emulator): Promise<World> {
  const logger = pino({ level: "silent" });
  const stores = await openStores(storeUrl, undefined, logger);
  const client = createMediaClient({ baseUrl: emulator.url, timeoutMs: 20_000, logger });
  const tenancy = new Tenancy(stores.tenants, { key: KEY, tenants: ["*"] });
  const api = client.as(KEY);
  const noAdapter = (): ChatAdapter => {
    throw new Error("the benchmark has no chat platform");
  };
  const spending = new Spending({
    store: stores.spend,
    apiKey: (t) => tenancy.apiKey(t),
    mediaWith: () => api,
    alerts: new SpendAlerts({
      claims: stores.claims,
      settings: (t) => tenancy.settings(t),
      adapter: noAdapter,
      logger,
      owner: `alerts:${process.pid}`,
    }),
    logger,
  });
  // What spendServices reads of the core: the stores, the key, the account's view, names.
  const core = {
    tenancy,
    spending,
    spend: stores.spend,
    jobs: stores.jobs,
    names: new Names(noAdapter, logger),
  } as unknown as Core;
  const period = periodOf(await api.usage.get()) ?? "open";
  const tenant = { platform: "slack" as const, tenantId: `TUSAGE${randomUUID().slice(0, 8)}` };
  return {
    stores,
    core,
    period,
    tenant,
    async close() {
      await client.close();
      await stores.close();
    },
  };
}

/** Records jobs `from`..`to` of the `total` of the period as starts do: one settlement each. */
async function fill(world: World, from: number, to: number, total: number): Promise<void> {
  const { stores, period, tenant } = world;
  const keyId = keyIdOf(KEY);
  const start = Date.now() - 29 * DAY_MS;
  let next = from;
  const writer = async () => {
    while (next < to) {
      const n = next;
      next += 1;
      const [kind, command] = KINDS[n % KINDS.length]!;
      const userId = `U${n % PEOPLE}`;
      const channelId = `C${n % CHANNELS}`;
      // Spread evenly over the period's 30 days: the first thirtieth on day 1.
      const at = start + Math.floor((n / total) * 30) * DAY_MS + (n % 1000);
      // Each job costs 1 to 3 credits, 1 or 2 are spent outside the bot between two jobs; its
      // probe is the account just before its own charge.
      const before = { id: `probe:${n}`, creditsUsed: 5 * n, counters: {}, at: at - 1 };
      const after = { creditsUsed: 5 * n + 1 + (n % 3), counters: {}, at };
      const jobId = `job-${n}`;
      const subject = { userId, roleIds: [], channelId };
      await stores.spend.settle({
        book: { tenant, period },
        userId,
        jobId,
        command,
        keyId,
        ...jobFields(subject, kind, dayOf(at)),
        before,
        after,
        record: {
          jobId,
          serviceJobId: `svc-${n}`,
          tenant,
          userId,
          channelId,
          kind,
          command,
          keyId,
          period,
          at,
          before: { creditsUsed: before.creditsUsed, counters: {}, at: before.at },
          after,
        },
      });
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
}

async function timeReports(
  world: World,
  records: number,
  backend: UsageFigures["backend"],
): Promise<UsageFigures> {
  const services = spendServices(world.core);
  const viewer = (userId: string, isAdmin: boolean): Actor => ({
    platform: "slack",
    tenantId: world.tenant.tenantId,
    userId,
    isAdmin,
    roleIds: [],
  });
  const conversation = { platform: "slack" as const, channelId: "C1" };
  const time = async (isAdmin: boolean) => {
    const times: number[] = [];
    // The first reads the account (then kept 30 s); not measured.
    await services.report(viewer("U7", isAdmin), conversation);
    for (let i = 0; i < 30; i += 1) {
      const started = performance.now();
      await services.report(viewer(`U${i}`, isAdmin), conversation);
      times.push(performance.now() - started);
    }
    const sorted = times.sort((a, b) => a - b);
    return {
      p50: Math.round(median(sorted) * 100) / 100,
      p95: Math.round(percentile(sorted, 95) * 100) / 100,
    };
  };
  const admin = await time(true);
  const member = await time(false);
  const started = performance.now();
  const { rows } = await services.rows(viewer("U0", true));
  const exportMs = Math.round(performance.now() - started);
  if (rows.length !== records) throw new Error(`the export has ${rows.length} rows, not ${records}`);
  return { backend, records, admin, member, exportMs };
}

export async function measureUsage(records: number): Promise<UsageFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-spend-usage-"));
  const emulator = await startEmulator();
  emulator.account(KEY).creditsLimit = 1e12;
  const redis = await BenchRedis.start(dir);
  const figures: UsageFigures[] = [];
  try {
    for (const backend of ["sqlite", "redis"] as const) {
      const url = backend === "sqlite" ? `sqlite://${join(dir, "usage.sqlite")}` : redis.url;
      const world = await openWorld(url, emulator);
      try {
        // Day 1 of a busy period: a thirtieth of its jobs.
        const early = Math.round(records / 30);
        await fill(world, 0, early, records);
        figures.push(await timeReports(world, early, backend));
        const filling = performance.now();
        await fill(world, early, records, records);
        console.log(
          `usage ${backend}: ${records} jobs recorded in ${Math.round((performance.now() - filling) / 1000)} s`,
        );
        figures.push(await timeReports(world, records, backend));
        for (const f of figures.slice(-2)) {
          console.log(
            `usage ${backend} at ${f.records} jobs: admin p50 ${f.admin.p50} ms (p95 ${f.admin.p95}), member p50 ${f.member.p50} ms (p95 ${f.member.p95}); export ${f.exportMs} ms`,
          );
        }
      } finally {
        await world.close();
      }
    }
  } finally {
    await redis.stop();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
