import type { Claims } from "../../store/claims.js";
import type { MediaApi, MediaClient } from "../api/client.js";
import type { CatalogCache } from "../catalog-cache.js";
import type { JobEngine } from "../jobs/engine.js";
import type { Logger } from "../log.js";
import type { ChatAdapter, Platform } from "../ports.js";
import type { CommandRates } from "../rates.js";
import type { Tenancy, TenantRef } from "../tenancy.js";

/** Everything the flows share; built once by createBot. */
export interface Core {
  client: MediaClient;
  tenancy: Tenancy;
  engine: JobEngine;
  claims: Claims;
  cache: CatalogCache;
  logger: Logger;
  rates: CommandRates;
  /** Jobs one person may have running at once. */
  jobLimit: number;
  adapter(platform: Platform): ChatAdapter;
  /** The service with the tenant's key; a tenant without one gets a client that refuses every call. */
  media(tenant: TenantRef): Promise<MediaApi>;
}
