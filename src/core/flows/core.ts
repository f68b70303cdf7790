import type { StoreAvailability } from "../../store/availability.js";
import type { Claims } from "../../store/claims.js";
import type { JobStore } from "../../store/jobs.js";
import type { PreferenceStore } from "../../store/preferences.js";
import type { QueueStore } from "../../store/queue.js";
import type { SpendStore } from "../../store/spend.js";
import type { MediaApi, MediaClient } from "../api/client.js";
import type { Logger } from "../base/log.js";
import type { ChatAdapter, Platform } from "../base/ports.js";
import type { CommandRates } from "../intake/rates.js";
import type { JobEngine } from "../jobs/engine.js";
import type { CatalogCache } from "../media/catalog-cache.js";
import type { Names } from "../spend/names.js";
import type { Spending } from "../spend/spending.js";
import type { Tenancy, TenantKey, TenantRef } from "../tenancy/tenancy.js";
import type { StartIntents } from "./start-intents.js";
import type { Turns } from "./turns.js";

/** Everything the flows share; built once by createBot. */
export interface Core {
  client: MediaClient;
  tenancy: Tenancy;
  engine: JobEngine;
  /** The store's lists that the engine does not keep (a tenant's jobs, for its admins). */
  jobs: Pick<JobStore, "listByTenant" | "get" | "getMany" | "retentionMs" | "update">;
  claims: Claims;
  cache: CatalogCache;
  logger: Logger;
  rates: CommandRates;
  /** Starts under way, told to their person when a crash cuts them short. */
  starts: StartIntents;
  /** Budgets and the cost of every paid start. */
  spending: Spending;
  /** The spending records, for reports. */
  spend: SpendStore;
  /** People, roles and channels named by their platforms, for budgets, usage and the export. */
  names: Names;
  /** Each person's option defaults and presets. */
  preferences: PreferenceStore;
  /** Jobs one person may have running at once, unless the tenant set its own. */
  jobLimit: number;
  /** Jobs one person may have waiting their turn, unless the tenant set its own. */
  queueLimit: number;
  /** The jobs waiting their turn, and the running places (store/queue.ts). */
  queue: QueueStore;
  /** What moves the queue: starts whose turn came, the messages of those waiting. */
  turns: Turns;
  /** Whether the store answers: a start is refused at once while it does not. */
  availability: Pick<StoreAvailability, "available" | "whenAvailable">;
  adapter(platform: Platform): ChatAdapter;
  /**
   * The service with the tenant's key; a tenant without one gets a client that refuses every
   * call, and one on the shared key sees only what it made (tenancy/tenant-view.ts).
   */
  media(tenant: TenantRef): Promise<MediaApi>;
  /** The same, for a key already read. */
  mediaWith(tenant: TenantRef, key: TenantKey | undefined): MediaApi;
  /** Keeps ids of what the tenant made, for the shared key's lists. */
  remember(tenant: TenantRef, ids: readonly string[]): Promise<void>;
}
