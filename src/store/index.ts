import type Keyv from "keyv";
import { type Logger, pino } from "pino";
import type { StoreAvailability } from "./availability.js";
import { type Claims, openClaims } from "./claims.js";
import { type Indexes, openIndexes } from "./indexes.js";
import { InstallationStore } from "./installations.js";
import { JobStore, type JobStoreOptions } from "./jobs.js";
import { DEFAULT_STORE_URL, openKeyvBackend } from "./keyv.js";
import { OwnedRecords } from "./owned.js";
import { PreferenceStore } from "./preferences.js";
import { openQueue, type QueueStore } from "./queue.js";
import type { LinkState, SentinelSetting } from "./redis-link.js";
import { createSecretBox } from "./secrets.js";
import { openSignals, type Signals } from "./signals.js";
import { SPEND_KEEP_MS, SpendStore } from "./spend.js";
import { openSpendBooks } from "./spend-books.js";
import { openSwap } from "./swap.js";
import { TenantStore } from "./tenants.js";

export type { Json, TenantRef } from "../common/types.js";
export type { StoreAvailability } from "./availability.js";
export { Batch } from "./batch.js";
export type { ClaimHolder, Claims, Lease } from "./claims.js";
export { replicatedWrite, withClaim } from "./claims.js";
export { isStoreOutage, StoreError, type StoreErrorCode } from "./errors.js";
export type { IndexEntry, Indexes } from "./indexes.js";
export type { InstallationRef, InstallationStore } from "./installations.js";
export type {
  Delivery,
  JobPatch,
  JobRecord,
  JobStore,
  JobStoreOptions,
  NewJob,
  Requester,
  UpdateResult,
} from "./jobs.js";
export { isFinished, newJobId } from "./jobs.js";
export type { OwnedRecords } from "./owned.js";
export type {
  OptionValue,
  OptionValues,
  PersonPreferences,
  PersonRef,
  PreferenceStore,
  Preset,
} from "./preferences.js";
export type {
  Cancel,
  Enqueued,
  NewEntry,
  QueueEntry,
  QueueLimits,
  QueueState,
  QueueStore,
} from "./queue.js";
export { ENDED, QUEUED } from "./queue.js";
export type { LinkState, RedisNode, SentinelSetting, WriteCheckpoint } from "./redis-link.js";
export { SecretsError, type SecretsErrorCode } from "./secrets.js";
export type { Signals } from "./signals.js";
export type {
  BookRef,
  Budget,
  Field,
  JobSettlement,
  JobSpend,
  LedgerProbe,
  SpendStore,
  StoredReading,
} from "./spend.js";
export type { Hold, HoldItem, Refused } from "./spend-books.js";
export type { TenantPatch, TenantSettings, TenantStore } from "./tenants.js";

export interface Stores {
  jobs: JobStore;
  tenants: TenantStore;
  /** Chat apps installed by OAuth, per workspace, with their tokens encrypted. */
  installations: InstallationStore;
  /** What each tenant made through the bot, for tenants that share the operator's key. */
  owned: OwnedRecords;
  /** What each job cost, whose it was, and the budgets that bound it. */
  spend: SpendStore;
  /** Each person's option defaults and presets. */
  preferences: PreferenceStore;
  /** Jobs waiting for their person's (or tenant's) running limit, and the running places. */
  queue: QueueStore;
  /** For the engine's own claims (polling, delivery). Keys starting with `lock:` are the stores'. */
  claims: Claims;
  /** Named sets of ids (the engine's record of which instance owns which jobs). */
  indexes: Indexes;
  /**
   * Another namespace on the same connection, for caches; `jobs`, `tenants` and `installations`
   * belong to the stores. Close through `close()` below: a Keyv's own disconnect() would close the shared
   * connection under everyone.
   */
  keyv(namespace: string): Keyv<unknown>;
  /** Whether the store answers now (availability.ts). */
  availability: StoreAvailability;
  /** Messages to every process on the store (signals.ts). */
  signals: Signals;
  /** On redis: the primary the bot is on, and a replica slow to acknowledge (redis-link.ts). */
  replication?: { state(): LinkState; lagging(): string | undefined };
  close(): Promise<void>;
}

export async function openStores(
  storeUrl: string = DEFAULT_STORE_URL,
  secretsKey?: string,
  logger: Logger = pino({ level: "silent" }),
  options: { jobs?: JobStoreOptions; sentinel?: SentinelSetting } = {},
): Promise<Stores> {
  const box = secretsKey ? createSecretBox(secretsKey) : undefined;
  if (!box) {
    logger.warn("SECRETS_KEY is not set: tenants cannot store their own API keys");
  } else if (box.keySource === "passphrase") {
    logger.warn(
      "SECRETS_KEY is not 32 bytes as base64 or 64 hex digits, so the key is derived from it as a passphrase (scrypt)",
    );
  }
  const backend = await openKeyvBackend(storeUrl, logger, options.sentinel);
  try {
    const claims = await openClaims(backend.connection);
    const indexes = await openIndexes(backend.connection);
    const jobs = new JobStore(
      backend.keyv("jobs"),
      openSwap(backend.connection, "jobs"),
      claims,
      indexes,
      logger,
      options.jobs,
    );
    await jobs.adoptLegacyIndex();
    return {
      jobs,
      tenants: new TenantStore(backend.keyv("tenants"), claims, box),
      installations: new InstallationStore(backend.keyv("installations"), box),
      owned: new OwnedRecords(indexes),
      spend: new SpendStore(
        backend.keyv("spend"),
        indexes,
        claims,
        await openSpendBooks(backend.connection, SPEND_KEEP_MS),
      ),
      preferences: new PreferenceStore(backend.keyv("preferences"), claims),
      queue: await openQueue(backend.connection, { keepMs: jobs.retentionMs }),
      claims,
      indexes,
      keyv: (namespace) => backend.keyv(namespace),
      availability: backend.availability,
      signals: openSignals(backend.connection),
      ...(backend.connection.kind === "redis" && { replication: backend.connection.link }),
      close: () => backend.close(),
    };
  } catch (error) {
    await backend.close();
    throw error;
  }
}
