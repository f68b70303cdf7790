import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import KeyvRedis, { type RedisClientType } from "@keyv/redis";
import KeyvSqlite from "@keyv/sqlite";
import Keyv from "keyv";
import type { Logger } from "pino";
import { timed } from "../metrics-registry.js";
import { StoreAvailability } from "./availability.js";
import { isStoreOutage, StoreError } from "./errors.js";
import { storeSeconds } from "./metrics.js";
import { openRedisLink, type RedisLink, type SentinelSetting } from "./redis-link.js";
import { deserialize, serialize } from "./serialize.js";

/**
 * One connection per opened STORE_URL, shared by every namespace (jobs, tenants, caches) and by
 * the claims, which need the raw connection for their atomic statements.
 *
 * What the adapters really do (read in node_modules, @keyv/sqlite 4.0.8, @keyv/redis 5.1.6):
 * - sqlite: one table `keyv(key, value)`; Keyv prefixes keys with `namespace:`. The adapter has a
 *   single `namespace` field that Keyv overwrites on construction and that `clear()` and
 *   `iterator()` use, so every namespace gets its own view of the one adapter (below). No native
 *   TTL: expiry is a field inside the value, checked on read, so expired rows are purged here, at
 *   open and every few minutes.
 *   Its iterator pages with LIMIT/OFFSET without ORDER BY, so the stores keep indexes
 *   of their own (indexes.ts).
 * - redis: the adapter prefixes `namespace::` itself (so Keyv's own prefix is off), TTL is native
 *   (PX), iteration is SCAN. It swallows errors and answers "missing" unless throwOnErrors is set,
 *   which would make a redis outage look like an empty store: here every error throws. Its client
 *   is the link's (redis-link.ts), which follows the primary through a failover.
 *
 * A store that goes away once running (redis restarted, unreachable or failing over, sqlite locked
 * past its busy timeout or its disk full) fails every operation at once rather than holding it: a
 * command is refused with "try again" within a moment instead of hanging, and its caller's retry
 * waits for `availability` (availability.ts), which ends once the store answers again.
 */

export const DEFAULT_STORE_URL = "sqlite://data/bot.sqlite";

export type SqliteQuery = (sql: string, ...params: unknown[]) => Promise<Record<string, unknown>[]>;

export type StoreConnection =
  | { kind: "sqlite"; query: SqliteQuery }
  | {
      kind: "redis";
      /** Always the current connection to the primary (redis-link.ts). */
      client: RedisClientType;
      link: RedisLink;
    };

export interface KeyvBackend {
  readonly connection: StoreConnection;
  /** Whether the store answers now; the log's one voice about outages. */
  readonly availability: StoreAvailability;
  /** The Keyv of `namespace`; the same instance for the same name. Values are validated by readers. */
  keyv(namespace: string): Keyv<unknown>;
  /** Closes the sqlite file or the redis connection; later calls do nothing. */
  close(): Promise<void>;
}

/** Another process holding a write lock on the sqlite file is waited for, not reported as an error. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;
/** How often a running process deletes the sqlite records whose expiry passed (redis expires its own). */
const SQLITE_PURGE_EVERY_MS = 5 * 60_000;
/** While the store is away, how often it is tried again. */
const PROBE_EVERY_MS = 1_000;

export async function openKeyvBackend(
  storeUrl: string = DEFAULT_STORE_URL,
  logger?: Pick<Logger, "warn" | "info">,
  /** Redis found through Sentinel: STORE_URL then gives only its credentials and database. */
  sentinel?: SentinelSetting,
): Promise<KeyvBackend> {
  if (storeUrl.startsWith("sqlite://")) return openSqlite(storeUrl.slice("sqlite://".length), logger);
  if (/^rediss?:\/\//.test(storeUrl)) return openRedis(storeUrl, sentinel, logger);
  throw new StoreError("store.config", `STORE_URL must be sqlite://<path> or redis://<host>:<port>`);
}

async function openSqlite(path: string, logger?: Pick<Logger, "warn" | "info">): Promise<KeyvBackend> {
  let adapter: KeyvSqlite | undefined;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    adapter = new KeyvSqlite({ uri: `sqlite://${path}`, busyTimeout: SQLITE_BUSY_TIMEOUT_MS });
    // Without a listener the adapter's EventEmitter would throw its own error instead of the cause.
    adapter.on("error", (error: unknown) => logger?.warn({ err: error }, "sqlite store error"));
    // Every namespace's Keyv listens on this one adapter (the views below share its emitter):
    // a dozen listeners is the design, not the leak Node warns of past ten.
    adapter.setMaxListeners(50);
    await enterWal(adapter, logger);
    // In WAL mode NORMAL syncs at checkpoints, not at every commit: a crash of the process loses
    // nothing, a power cut may lose the last commits but never corrupts the file (sqlite.org/wal).
    // FULL made every progress tick an fsync: 0.7 ms of CPU and 6 ms of wall time per job update,
    // against 0.25 ms and 0.35 ms (bench/results/jobs-profile-before.md).
    await adapter.query("PRAGMA synchronous = NORMAL");
    await purgeExpired(adapter);
  } catch (error) {
    await adapter?.disconnect().catch(() => {});
    throw new StoreError(
      "store.unreachable",
      `STORE_URL: cannot open the sqlite store at ${path}: ${message(error)}`,
      {
        cause: error,
      },
    );
  }
  const shared = adapter;
  const availability = new StoreAvailability({ backend: "sqlite", logger });
  // A write, since a full disk and another process's write lock leave reads working.
  const probe = setInterval(() => {
    if (availability.available) return;
    shared.query("REPLACE INTO keyv(key, value) VALUES('store:probe', ?)", String(Date.now())).then(
      () => availability.up(),
      () => undefined,
    );
  }, PROBE_EVERY_MS);
  probe.unref();
  const query: SqliteQuery = async (sql, ...params) => {
    refuseWhileAway(availability, "sqlite statement");
    try {
      return await shared.query(sql, ...params);
    } catch (error) {
      throw outage(availability, error, "sqlite statement");
    }
  };
  // Reads skip an expired record but nothing deletes it: without this a process that runs for
  // weeks keeps every finished job in the file until its next start (bench/results/soak.md).
  const purging = setInterval(() => {
    purgeExpired(shared).catch((error: unknown) =>
      logger?.warn({ err: error }, "expired records not purged"),
    );
  }, SQLITE_PURGE_EVERY_MS);
  purging.unref();

  return backend(
    { kind: "sqlite", query },
    availability,
    (namespace) => {
      // A view that inherits the shared connection but keeps its own `namespace` field.
      const view: KeyvSqlite = Object.create(shared, { namespace: { value: namespace, writable: true } });
      return new Keyv<unknown>({ store: view, namespace, throwOnErrors: true, serialize, deserialize });
    },
    () => {
      clearInterval(purging);
      clearInterval(probe);
      availability.close();
      return shared.disconnect();
    },
  );
}

/**
 * WAL lets readers in other processes (a second bot, a CLI) work while one of them writes.
 * Switching a new file to WAL needs it to itself, and sqlite answers SQLITE_BUSY at once rather
 * than calling the busy handler, so replicas started together on one fresh file would fail to
 * start: the switch is tried again within the busy timeout instead.
 */
async function enterWal(adapter: KeyvSqlite, logger?: Pick<Logger, "info">): Promise<void> {
  const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await adapter.query("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      if (attempt === 1) logger?.info("the sqlite store is in use by another process as it opens; waiting");
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

/** One statement: a record set again meanwhile has a new expiry and is not matched. */
async function purgeExpired(adapter: KeyvSqlite): Promise<void> {
  await adapter.query(
    "DELETE FROM keyv WHERE CASE WHEN json_valid(value) THEN json_extract(value, '$.expires') END < ?",
    Date.now(),
  );
}

async function openRedis(
  url: string,
  sentinel: SentinelSetting | undefined,
  logger?: Pick<Logger, "warn" | "info">,
): Promise<KeyvBackend> {
  const availability = new StoreAvailability({ backend: "redis", logger });
  const link = await openRedisLink({ url, ...(sentinel && { sentinel }), availability, logger });
  const { client } = link;
  // An outage a failed command opened while the connection was being replaced ends with an answer.
  const probe = setInterval(() => {
    if (!availability.available && client.isReady)
      client.ping().then(
        () => availability.up(),
        () => undefined,
      );
  }, PROBE_EVERY_MS);
  probe.unref();

  return backend(
    { kind: "redis", client, link },
    availability,
    (namespace) => {
      const adapter = new KeyvRedis(client, { namespace, throwOnErrors: true });
      return new Keyv<unknown>({
        store: adapter,
        namespace,
        useKeyPrefix: false,
        throwOnErrors: true,
        serialize,
        deserialize,
      });
    },
    async () => {
      clearInterval(probe);
      availability.close();
      await link.close();
    },
  );
}

function backend(
  connection: StoreConnection,
  availability: StoreAvailability,
  create: (namespace: string) => Keyv<unknown>,
  disconnect: () => Promise<void>,
): KeyvBackend {
  const namespaces = new Map<string, Keyv<unknown>>();
  let closing: Promise<void> | undefined;
  return {
    connection,
    availability,
    keyv(namespace) {
      let keyv = namespaces.get(namespace);
      if (!keyv) {
        keyv = timedKeyv(create(namespace), availability);
        namespaces.set(namespace, keyv);
      }
      return keyv;
    },
    close() {
      closing ??= disconnect();
      return closing;
    },
  };
}

/**
 * The operations every store uses feed the store latency histogram of GET /metrics, and tell
 * `availability` when they fail because the store is away.
 */
function timedKeyv(keyv: Keyv<unknown>, availability: StoreAvailability): Keyv<unknown> {
  for (const op of ["get", "set", "delete"] as const) {
    const original = keyv[op].bind(keyv) as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(keyv, op, {
      value: (...args: unknown[]) =>
        timed(
          (s) => storeSeconds.observe({ op }, s),
          () => {
            refuseWhileAway(availability, `${op} in ${keyv.namespace ?? "store"}`);
            return original(...args).catch((error: unknown) => {
              throw outage(availability, error, `${op} in ${keyv.namespace ?? "store"}`);
            });
          },
        ),
    });
  }
  return keyv;
}

/**
 * While the store is known away, an operation fails at once rather than after sqlite's busy
 * timeout or redis's command timeout each: the probe alone tries the store until it is back.
 */
function refuseWhileAway(availability: StoreAvailability, what: string): void {
  if (availability.available) return;
  const error = new StoreError("store.unavailable", `${what}: ${availability.problem()}`);
  availability.down(error);
  throw error;
}

/** An error of the store being away becomes `store.unavailable` and opens (or extends) the outage. */
function outage(availability: StoreAvailability, error: unknown, what: string): unknown {
  if (!isStoreOutage(error)) return error;
  availability.down(error);
  return error instanceof StoreError
    ? error
    : new StoreError("store.unavailable", `${what}: ${message(error)}`, { cause: error });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
