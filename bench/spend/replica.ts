/**
 * One replica of the burst benchmark (burst.ts), in a process of its own: the real SpendStore on
 * the store at argv[2], the real Spending and media client against the emulator at argv[3]. It
 * prints `{"ready":true}` once open, then runs each burst it reads on stdin (one JSON line) and
 * answers one JSON line; it stops when stdin ends.
 *
 * A burst: `starts` paid starts at once, all begun at the epoch ms `at` (the replicas of one
 * burst begin together), each by a person of its own in one tenant, each a real creation call
 * (POST /api/image/generate). With `spending`, each goes through `Spending.around` (probe,
 * budgets, the atomic check and reservation, then the record and the settlement once the starts
 * under way have made their calls); without, the creation call alone. The answer: when the last start ended, how many were made, refused by a budget, or
 * failed otherwise (a store that gave up: must be none).
 */
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { createMediaClient } from "../../src/core/api/client.js";
import type { ChatAdapter } from "../../src/core/base/ports.js";
import { SpendAlerts } from "../../src/core/spend/alerts.js";
import { BudgetError, Spending } from "../../src/core/spend/spending.js";
import { currentTap } from "../../src/core/spend/tap.js";
import { Tenancy } from "../../src/core/tenancy/tenancy.js";
import { openStores } from "../../src/store/index.js";

export interface BurstOrder {
  tenantId: string;
  /** This replica's share of the burst. */
  starts: number;
  /** Who starts: `U<prefix><n>`. */
  prefix: string;
  spending: boolean;
  /** Epoch ms at which every replica begins. */
  at: number;
}

export interface BurstAnswer {
  /** Epoch ms when the last of this replica's starts ended. */
  endedAt: number;
  /** Epoch ms when the last of its creation calls began (with spending: after its reservation). */
  calledAt: number;
  /** Epoch ms when the last start's bookkeeping (record, counts, price) had landed after it. */
  settledAt: number;
  made: number;
  refused: number;
  failed: number;
  error?: string;
}

const KEY = "test-key";
const [storeUrl, mediaUrl] = process.argv.slice(2) as [string, string];
const logger = pino({ level: "silent" });
const stores = await openStores(storeUrl, undefined, logger);
const client = createMediaClient({ baseUrl: mediaUrl, timeoutMs: 60_000, logger });
client.onUsage((usage) => currentTap()?.heard(usage));
const tenancy = new Tenancy(stores.tenants, { key: KEY, tenants: ["*"] });
const api = client.as(KEY);
const noAdapter = (): ChatAdapter => {
  throw new Error("no alerts channel is set: nothing is posted");
};
const spending = new Spending({
  store: stores.spend,
  apiKey: (tenant) => tenancy.apiKey(tenant),
  mediaWith: () => api,
  alerts: new SpendAlerts({
    claims: stores.claims,
    settings: (tenant) => tenancy.settings(tenant),
    adapter: noAdapter,
    logger,
    owner: `alerts:${process.pid}`,
  }),
  logger,
});

async function burst(order: BurstOrder): Promise<BurstAnswer> {
  let calledAt = 0;
  const create = async (n: number) => {
    calledAt = Date.now();
    const created = await api.images.generate({ prompt: `a fox ${n}`, name: `fox ${n}` });
    // What launch() does once the job is tracked: the start's job, for its spend record.
    currentTap()?.tracked({ id: randomUUID(), serviceJobId: created.jobId });
  };
  const one = async (n: number) => {
    if (!order.spending) return create(n);
    const actor = {
      platform: "slack" as const,
      tenantId: order.tenantId,
      userId: `U${order.prefix}${n}`,
      isAdmin: false,
      roleIds: [],
    };
    return spending.around(
      { command: "image.generate", actor, conversation: { platform: "slack", channelId: "CBENCH" } },
      () => create(n),
    );
  };
  await sleep(Math.max(0, order.at - Date.now()));
  const outcomes = await Promise.allSettled(Array.from({ length: order.starts }, (_, n) => one(n)));
  const endedAt = Date.now();
  await spending.settled();
  const settledAt = Date.now();
  const refused = outcomes.filter((o) => o.status === "rejected" && o.reason instanceof BudgetError).length;
  const failures = outcomes.filter((o) => o.status === "rejected" && !(o.reason instanceof BudgetError));
  return {
    endedAt,
    calledAt,
    settledAt,
    made: outcomes.filter((o) => o.status === "fulfilled").length,
    refused,
    failed: failures.length,
    ...(failures[0] && { error: String((failures[0] as PromiseRejectedResult).reason) }),
  };
}

console.log(JSON.stringify({ ready: true }));
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  console.log(JSON.stringify(await burst(JSON.parse(line) as BurstOrder)));
}
await client.close();
await stores.close();
process.exit(0);
