/**
 * The bookkeeping of a paid start, beyond its creation call: `Spending.around` (src/core/spend/
 * spending.ts) with the real SpendStore on sqlite and on redis, the real media client and the
 * emulator in a process of its own. Each start is timed whole, and its creation call (the
 * `start` that `around` runs) on its own; the difference is spending's own work: the key lookup,
 * the probe GET /api/usage, the period, the budgets read, the check and reservation under the
 * tenant's budget lock, then the job's spend record and its settlement under the lock again.
 * The same starts with spending bypassed (the creation call alone) are timed too.
 *
 * Sequential: one start after the other. Concurrent: all at once in one tenant, as a burst of
 * commands on one server makes them: they queue on the tenant's budget lock, and that wait is
 * part of each one's cost. Each case runs in a tenant of its own whose budgets (an `everyone`
 * credit budget and an `each` jobs budget) never refuse; every start is by a person of its own.
 *
 * Timing is done here only (performance.now() around the calls, and wrappers on this process's
 * store object for the per-step figures): nothing in src/ measures.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createMediaClient, type MediaApi } from "../../src/core/api/client.js";
import type { Actor, ChatAdapter } from "../../src/core/ports.js";
import { SpendAlerts } from "../../src/core/spend/alerts.js";
import { keyIdOf } from "../../src/core/spend/readings.js";
import { Spending } from "../../src/core/spend/spending.js";
import { currentTap } from "../../src/core/spend/tap.js";
import { Tenancy, type TenantRef } from "../../src/core/tenancy.js";
import { openStores, type Stores } from "../../src/store/index.js";
import { startProcess, stopProcess } from "../ack.js";
import { BenchRedis } from "../scale/redis.js";
import { percentile } from "../stats.js";

const EMULATOR = fileURLToPath(new URL("../discord-ack/emulator-process.ts", import.meta.url));
const KEY = "test-key";

export type Backend = "sqlite" | "redis";
export type Mode = "sequential" | "concurrent";

export interface Spread {
  p50: number;
  p95: number;
  max: number;
}

export interface CostCase {
  backend: Backend;
  mode: Mode;
  starts: number;
  /** Spending's own work per start (whole start minus its creation call), ms. */
  overhead: Spread;
  /** The creation call inside a start with spending, ms. */
  creation: Spread;
  /** The same start with spending bypassed (the creation call alone), ms. */
  bypassed: Spread;
  /** Wall time of all the starts with spending, and with it bypassed, ms. */
  wallMs: number;
  bypassedWallMs: number;
  /** Per step, ms per call: p50 / p95 (with the wait for the lock in `withBook`). */
  steps: Record<string, { calls: number; p50: number; p95: number }>;
  /** Starts that failed (a lock that stayed busy, a store error): must be 0. */
  failed: number;
  /** What the tenant's book counted afterwards: jobs settled, reservations still held. */
  booked: { jobs: number; held: number };
}

const ms = (value: number) => Math.round(value * 100) / 100;
function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: ms(percentile(sorted, 50)), p95: ms(percentile(sorted, 95)), max: ms(sorted.at(-1) ?? 0) };
}

/** Durations of each wrapped step, by name. */
class Steps {
  readonly times = new Map<string, number[]>();
  wrap<O extends object, K extends keyof O & string>(object: O, method: K, name: string = method): void {
    const original = object[method] as unknown as (...args: unknown[]) => Promise<unknown>;
    const times = this.times;
    (object as Record<string, unknown>)[method] = async function timed(this: unknown, ...args: unknown[]) {
      const started = performance.now();
      try {
        return await original.apply(this, args);
      } finally {
        const list = times.get(name) ?? [];
        list.push(performance.now() - started);
        times.set(name, list);
      }
    };
  }
  figures(): CostCase["steps"] {
    return Object.fromEntries(
      [...this.times].map(([name, list]) => {
        const s = spread(list);
        return [name, { calls: list.length, p50: s.p50, p95: s.p95 }];
      }),
    );
  }
  reset(): void {
    this.times.clear();
  }
}

interface World {
  stores: Stores;
  spending: Spending;
  api: MediaApi;
  steps: Steps;
  close(): Promise<void>;
}

async function openWorld(storeUrl: string, mediaUrl: string): Promise<World> {
  const logger = pino({ level: "silent" });
  const stores = await openStores(storeUrl, undefined, logger);
  const client = createMediaClient({ baseUrl: mediaUrl, timeoutMs: 20_000, logger });
  client.onUsage((usage) => currentTap()?.heard(usage));
  const tenancy = new Tenancy(stores.tenants, { key: KEY, tenants: ["*"] });
  const steps = new Steps();
  const api = client.as(KEY);
  // The probe (and the read after a call without usage figures), timed.
  const spendingApi = { ...api, usage: { ...api.usage } };
  steps.wrap(spendingApi.usage, "get", "probe GET /api/usage");
  for (const method of ["budgets", "reserve", "settle", "putJob", "period", "setPeriod"] as const) {
    steps.wrap(stores.spend, method, `store.${method}`);
  }
  const noAdapter = (): ChatAdapter => {
    throw new Error("no alerts channel is set: nothing is posted");
  };
  const spending = new Spending({
    store: stores.spend,
    apiKey: (tenant) => tenancy.apiKey(tenant),
    mediaWith: () => spendingApi,
    alerts: new SpendAlerts({
      claims: stores.claims,
      settings: (tenant) => tenancy.settings(tenant),
      adapter: noAdapter,
      logger,
      owner: `alerts:${process.pid}`,
    }),
    logger,
  });
  return {
    stores,
    spending,
    api,
    steps,
    async close() {
      await client.close();
      await stores.close();
    },
  };
}

/** A tenant of its own for a case, with budgets that bind every start and never refuse. */
async function budgetedTenant(stores: Stores, name: string): Promise<TenantRef> {
  const tenant: TenantRef = { platform: "slack", tenantId: `TSPEND${name}` };
  await stores.spend.changeBudgets(tenant, () => [
    { scope: "everyone", id: "", unit: "credits", limit: 10_000_000 },
    { scope: "user", id: "*", unit: "jobs", limit: 1_000 },
  ]);
  return tenant;
}

async function runCase(world: World, backend: Backend, mode: Mode, starts: number): Promise<CostCase> {
  const tenant = await budgetedTenant(world.stores, `${backend}${mode}${Date.now()}`.toUpperCase());
  const actor = (i: number): Actor => ({
    platform: tenant.platform,
    tenantId: tenant.tenantId,
    userId: `U${mode.slice(0, 3).toUpperCase()}${i}`,
    isAdmin: false,
    roleIds: [],
  });
  const create = async (i: number) => {
    const created = await world.api.images.generate({ prompt: `a fox ${i}`, name: `fox ${i}` });
    // What launch() does once the job is tracked: the start's job, for its spend record.
    currentTap()?.tracked({ id: randomUUID(), serviceJobId: created.jobId });
  };
  const withSpending = async (i: number) => {
    let creation = 0;
    const started = performance.now();
    await world.spending.around(
      {
        command: "image.generate",
        actor: actor(i),
        conversation: { platform: tenant.platform, channelId: "CBENCH" },
      },
      async () => {
        const called = performance.now();
        await create(i);
        creation = performance.now() - called;
      },
    );
    const total = performance.now() - started;
    return { total, creation, overhead: total - creation };
  };
  const bypassed = async (i: number) => {
    const started = performance.now();
    await create(i);
    return performance.now() - started;
  };
  const all = async <T>(one: (i: number) => Promise<T>) => {
    const started = performance.now();
    const settled: PromiseSettledResult<T>[] = [];
    if (mode === "sequential") {
      for (let i = 0; i < starts; i += 1) settled.push(...(await Promise.allSettled([one(i)])));
    } else {
      settled.push(...(await Promise.allSettled(Array.from({ length: starts }, (_, i) => one(i)))));
    }
    const values = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const errors = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []));
    return { values, errors, wallMs: performance.now() - started };
  };

  const plain = await all(bypassed);
  world.steps.reset();
  const spent = await all(withSpending);
  const steps = world.steps.figures();
  if (spent.errors.length > 0)
    console.error(`  ${backend} ${mode}: ${spent.errors.length} failed, e.g. ${spent.errors[0]}`);
  const period = (await world.stores.spend.period(keyIdOf(KEY))) ?? "open";
  const book = { tenant, period };
  const tallies = await world.stores.spend.tallies(book);
  return {
    backend,
    mode,
    starts,
    overhead: spread(spent.values.map((v) => v.overhead)),
    creation: spread(spent.values.map((v) => v.creation)),
    bypassed: spread(plain.values),
    wallMs: Math.round(spent.wallMs),
    bypassedWallMs: Math.round(plain.wallMs),
    steps,
    failed: spent.errors.length + plain.errors.length,
    booked: { jobs: tallies["everyone|jobs"] ?? 0, held: await world.stores.spend.holds(book) },
  };
}

/** Every case on both stores: sqlite in a temporary file, redis in a redis-server of its own. */
export async function measureCost(starts: number): Promise<CostCase[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-spend-"));
  const emulator = await startProcess<{ url: string }>(EMULATOR, []);
  const redis = await BenchRedis.start(dir);
  const results: CostCase[] = [];
  try {
    for (const backend of ["sqlite", "redis"] as const) {
      const url = backend === "sqlite" ? `sqlite://${join(dir, "spend.sqlite")}` : redis.url;
      const world = await openWorld(url, emulator.info.url);
      try {
        // Warm-up: modules, connections, JIT; not measured.
        await runCase(world, backend, "sequential", 20);
        for (const mode of ["sequential", "concurrent"] as const) {
          const result = await runCase(world, backend, mode, starts);
          results.push(result);
          console.log(
            `cost ${backend} ${mode} ${starts}: spending's own work per start p50 ${result.overhead.p50} ms, p95 ${result.overhead.p95} ms ` +
              `(creation call p50 ${result.creation.p50} ms; bypassed start p50 ${result.bypassed.p50} ms); ` +
              `wall ${result.wallMs} ms vs ${result.bypassedWallMs} ms bypassed; failed ${result.failed}; ` +
              `book: ${result.booked.jobs} jobs, ${result.booked.held} held`,
          );
        }
      } finally {
        await world.close();
      }
    }
  } finally {
    await redis.stop();
    await stopProcess(emulator.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
