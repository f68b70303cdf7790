import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { RedisClientType } from "@keyv/redis";
import { StoreError } from "./errors.js";
import type { SqliteQuery, StoreConnection } from "./keyv.js";
import type { RedisLink, WriteCheckpoint } from "./redis-link.js";

/**
 * Exclusive, expiring ownership of a key, shared by every process on the same store: keyv has no
 * set-if-absent, so this is done per backend with the backend's own atomic operation. A claim
 * expires after its ttl so that a crashed holder never blocks a job forever; a holder that works
 * longer than its ttl must renew in time.
 *
 * Semantics, identical on both backends:
 * - acquire: true only when the key was free or its claim had expired; a live claim (even the
 *   caller's own) answers false, so "acquire again" is not a way to extend, `renew` is.
 * - renew: true when `owner` still holds an unexpired claim, which then lasts `ttlMs` from now.
 * - release: frees the key only for its unexpired holder; anyone else's release changes nothing.
 * - holder: who holds the key now, and until when; undefined when it is free or expired.
 * - transfer: gives the key to `to` when it is free, expired, or held by `from`: how a live
 *   process takes over what a dead one held, without a window in which a third could slip in.
 *
 * The batch operations do the same for many keys in one statement or script (one round trip, and
 * on redis no command per key beyond the ones the key needs): taking up fifty thousand jobs one
 * key at a time took two minutes on sqlite (bench/results/jobs-50k.md). Each key is still
 * decided atomically on its own; the batch as a whole is not a transaction.
 * - owners: the holder of each key (undefined where free or expired), in the order of `keys`.
 * - transferAll: `transfer` of each key; answers the keys that are `to`'s now by this call.
 * - drop: frees the keys whoever holds them, for claims whose subject is gone (a finished job).
 *
 * The replica-acknowledged write: Redis replicates asynchronously, so a primary that dies may take
 * its last writes with it, and a promoted replica would not know that a delivery was claimed or a
 * budget reserved. The writes the once-only guarantees rest on are therefore acknowledged by a
 * replica before the bot acts on them: `checkpoint` before the writes, `replicated` before the
 * act (redis-link.ts: WAIT on a connection of its own). `replicatedWrite` is the two around one
 * write. On sqlite (one file, no replica) and on a Redis without a replica in sync they cost nothing.
 */
export interface Claims {
  acquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<boolean>;
  holder(key: string): Promise<ClaimHolder | undefined>;
  transfer(key: string, from: string, to: string, ttlMs: number): Promise<boolean>;
  owners(keys: readonly string[]): Promise<(string | undefined)[]>;
  transferAll(keys: readonly string[], from: string, to: string, ttlMs: number): Promise<Set<string>>;
  drop(keys: readonly string[]): Promise<void>;
  /** Where the store's writes stand now. */
  checkpoint(): WriteCheckpoint;
  /**
   * Resolves once a replica holds every write made since `from`; throws `store.unavailable` when
   * that cannot be known (the primary changed since), so that the caller does not act.
   */
  replicated(from: WriteCheckpoint): Promise<void>;
}

/** `write`'s answer, once a replica holds what it wrote (see Claims). */
export async function replicatedWrite<T>(
  claims: Pick<Claims, "checkpoint" | "replicated">,
  write: () => Promise<T>,
): Promise<T> {
  const from = claims.checkpoint();
  const result = await write();
  await claims.replicated(from);
  return result;
}

export interface ClaimHolder {
  owner: string;
  /** Epoch milliseconds (the store's clock on redis, converted with this process's). */
  expiresAt: number;
}

export async function openClaims(connection: StoreConnection): Promise<Claims> {
  return connection.kind === "sqlite"
    ? sqliteClaims(connection.query)
    : redisClaims(connection.client, connection.link);
}

/** One file on one machine: a write that is answered is as durable as it will be. */
const NO_REPLICA: WriteCheckpoint = { connection: 0 };

/**
 * A table in the same file as the keyv data, so every process opening the file sees the same
 * claims. Each operation is one statement, and sqlite runs a writing statement under the file's
 * write lock, so two processes can never both win. Time is the caller's clock: processes sharing
 * a sqlite file share a machine.
 */
async function sqliteClaims(query: SqliteQuery): Promise<Claims> {
  await query(
    "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL)",
  );
  // Claims of processes that died are dead weight; a live holder renews long before this matters.
  await query("DELETE FROM claims WHERE expires_at <= ?", Date.now());
  const changed = async (sql: string, ...params: unknown[]) =>
    (await query(`${sql} RETURNING key`, ...params)).length > 0;
  // Claims that are never released (each Slack delivery's) would pile up until the next start.
  let acquired = 0;

  const claims: Claims = {
    async acquire(key, owner, ttlMs) {
      const now = Date.now();
      acquired += 1;
      if (acquired % PRUNE_EVERY === 0) await query("DELETE FROM claims WHERE expires_at <= ?", now);
      return changed(
        `INSERT INTO claims (key, owner, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE claims.expires_at <= ?`,
        key,
        owner,
        now + validTtl(ttlMs),
        now,
      );
    },
    async renew(key, owner, ttlMs) {
      const now = Date.now();
      return changed(
        "UPDATE claims SET expires_at = ? WHERE key = ? AND owner = ? AND expires_at > ?",
        now + validTtl(ttlMs),
        key,
        owner,
        now,
      );
    },
    async release(key, owner) {
      return changed(
        "DELETE FROM claims WHERE key = ? AND owner = ? AND expires_at > ?",
        key,
        owner,
        Date.now(),
      );
    },
    async holder(key) {
      const [row] = await query(
        "SELECT owner, expires_at FROM claims WHERE key = ? AND expires_at > ?",
        key,
        Date.now(),
      );
      return row ? { owner: String(row.owner), expiresAt: Number(row.expires_at) } : undefined;
    },
    async transfer(key, from, to, ttlMs) {
      return (await claims.transferAll([key], from, to, ttlMs)).has(key);
    },
    async owners(keys) {
      const owner = new Map<string, string>();
      for (const slice of slices(keys, SQLITE_SLICE)) {
        const rows = await query(
          `SELECT key, owner FROM claims WHERE expires_at > ? AND key IN (${marks(slice.length)})`,
          Date.now(),
          ...slice,
        );
        for (const row of rows) owner.set(String(row.key), String(row.owner));
      }
      return keys.map((key) => owner.get(key));
    },
    async transferAll(keys, from, to, ttlMs) {
      const taken = new Set<string>();
      const ttl = validTtl(ttlMs);
      for (const slice of slices(keys, SQLITE_SLICE)) {
        const now = Date.now();
        // An upsert whose WHERE refuses the update returns no row: only the keys taken come back.
        const rows = await query(
          `INSERT INTO claims (key, owner, expires_at) VALUES ${slice.map(() => "(?, ?, ?)").join(", ")}
           ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
           WHERE claims.expires_at <= ? OR claims.owner = ? RETURNING key`,
          ...slice.flatMap((key) => [key, to, now + ttl]),
          now,
          from,
        );
        for (const row of rows) taken.add(String(row.key));
      }
      return taken;
    },
    async drop(keys) {
      for (const slice of slices(keys, SQLITE_SLICE)) {
        await query(`DELETE FROM claims WHERE key IN (${marks(slice.length)})`, ...slice);
      }
    },
    checkpoint: () => NO_REPLICA,
    replicated: async () => undefined,
  };
  return claims;
}

/**
 * Keys per batch statement on sqlite: three parameters each stay under the 999 that older sqlite
 * builds allow in one statement.
 */
const SQLITE_SLICE = 300;

function* slices<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

function marks(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}

/** How many acquisitions on sqlite between two sweeps of the expired claims. */
const PRUNE_EVERY = 1_000;

/** Compare-and-act in one script, so nobody can take the key between the check and the change. */
const IF_OWNER_PEXPIRE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const IF_OWNER_DEL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
/**
 * `transfer` of every key in KEYS; answers the positions (1-based) of the keys taken. A free key,
 * the common case (a job nobody owns yet), costs its one SET; a held one a GET and, if `from`
 * holds it, a SET.
 */
const TRANSFER_ALL = `local taken = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, ARGV[2], 'NX', 'PX', ARGV[3]) then
    taken[#taken + 1] = i
  elseif redis.call('GET', key) == ARGV[1] then
    redis.call('SET', key, ARGV[2], 'PX', ARGV[3])
    taken[#taken + 1] = i
  end
end
return taken`;
/** Keys per MGET, DEL or script on redis: one command each, without one huge reply or script run. */
const REDIS_SLICE = 1_000;

/** Redis expires the keys itself (server clock), so an expired claim is simply an absent key. */
function redisClaims(client: RedisClientType, link: RedisLink): Claims {
  const redisKey = (key: string) => `claims::${key}`;
  const claims: Claims = {
    async acquire(key, owner, ttlMs) {
      const reply = await client.set(redisKey(key), owner, {
        condition: "NX",
        expiration: { type: "PX", value: validTtl(ttlMs) },
      });
      return reply === "OK";
    },
    async renew(key, owner, ttlMs) {
      const reply = await client.eval(IF_OWNER_PEXPIRE, {
        keys: [redisKey(key)],
        arguments: [owner, String(validTtl(ttlMs))],
      });
      return reply === 1;
    },
    async release(key, owner) {
      const reply = await client.eval(IF_OWNER_DEL, { keys: [redisKey(key)], arguments: [owner] });
      return reply === 1;
    },
    async holder(key) {
      const [owner, ttl] = await client.multi().get(redisKey(key)).pTTL(redisKey(key)).exec();
      if (typeof owner !== "string" || typeof ttl !== "number" || ttl < 0) return undefined;
      return { owner, expiresAt: Date.now() + ttl };
    },
    async transfer(key, from, to, ttlMs) {
      return (await claims.transferAll([key], from, to, ttlMs)).has(key);
    },
    async owners(keys) {
      const owners: (string | undefined)[] = [];
      for (const slice of slices(keys, REDIS_SLICE)) {
        // Every claim key has a PX, so a key that exists is a claim that has not expired.
        const values = await client.mGet(slice.map(redisKey));
        for (const value of values) owners.push(typeof value === "string" ? value : undefined);
      }
      return owners;
    },
    async transferAll(keys, from, to, ttlMs) {
      const taken = new Set<string>();
      const ttl = String(validTtl(ttlMs));
      for (const slice of slices(keys, REDIS_SLICE)) {
        const reply = await client.eval(TRANSFER_ALL, {
          keys: slice.map(redisKey),
          arguments: [from, to, ttl],
        });
        for (const position of Array.isArray(reply) ? reply : []) taken.add(slice[Number(position) - 1]!);
      }
      return taken;
    },
    async drop(keys) {
      for (const slice of slices(keys, REDIS_SLICE)) await client.del(slice.map(redisKey));
    },
    checkpoint: () => link.checkpoint(),
    replicated: (from) => link.replicated(from),
  };
  return claims;
}

/** PX and the expiry column take whole milliseconds; zero or less would be a claim that never was. */
function validTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs < 1)
    throw new RangeError(`claim ttl must be at least 1 ms, got ${ttlMs}`);
  return Math.ceil(ttlMs);
}

/** Read once: os.hostname() is a system call, and every record update names its lock's owner. */
const HOST = hostname();

export interface Lease {
  /**
   * Renews the claim right before a write that must stay exclusive; throws `store.claim_lost` when
   * it expired in the meantime (an event-loop stall longer than the ttl), so the write is skipped.
   */
  confirm(): Promise<void>;
}

/**
 * Runs `work` while holding `key`, waiting for a busy key up to `waitMs`: the short mutual
 * exclusion around a read-modify-write of a record. `waitMs` exceeds `ttlMs` so that a claim left
 * by a crashed process expires before waiters give up.
 */
export async function withClaim<T>(
  claims: Claims,
  key: string,
  work: (lease: Lease) => Promise<T>,
  { ttlMs = 10_000, waitMs = 15_000 }: { ttlMs?: number; waitMs?: number } = {},
): Promise<T> {
  const owner = `${HOST}:${process.pid}:${randomUUID()}`;
  const deadline = Date.now() + waitMs;
  while (!(await claims.acquire(key, owner, ttlMs))) {
    if (Date.now() >= deadline) throw new StoreError("store.busy", `${key} stayed locked for ${waitMs} ms`);
    await sleep(5 + Math.random() * 20);
  }
  try {
    return await work({
      async confirm() {
        if (!(await claims.renew(key, owner, ttlMs))) {
          throw new StoreError("store.claim_lost", `the lock on ${key} expired before the write`);
        }
      },
    });
  } finally {
    // A release that fails (store briefly down) must not hide the outcome of the work: the claim
    // then expires on its own after ttlMs.
    await claims.release(key, owner).catch(() => false);
  }
}
