import type { RedisClientType } from "@keyv/redis";
import type { StoreConnection } from "./keyv.js";

/**
 * Compare-and-swap of one versioned keyv record (a `version` field in its value, grown by every
 * write): the write lands only if the stored record is still at the version the writer started
 * from. One statement, atomic on both backends, so that a record update needs no lock around its
 * read and write (a lock cost three more statements), and a writer that holds the record as it
 * wrote it last needs no read either.
 *
 * The keys are the ones keyv uses (see keyv.ts): `namespace:key` in sqlite's keyv table, where
 * expiry is a field of the text; `namespace::key` on redis, where it is the key's PX as well.
 */
export interface RecordSwap {
  /** The stored text, undefined when there is none. */
  read(key: string): Promise<string | undefined>;
  /** Stores `text` (expiring after `ttlMs`, else never) if the stored record is at `version`. */
  swap(key: string, version: number, text: string, ttlMs: number | undefined): Promise<boolean>;
}

export function openSwap(connection: StoreConnection, namespace: string): RecordSwap {
  return connection.kind === "sqlite"
    ? sqliteSwap(connection.query, namespace)
    : redisSwap(connection.client, namespace);
}

function sqliteSwap(
  query: Extract<StoreConnection, { kind: "sqlite" }>["query"],
  namespace: string,
): RecordSwap {
  const keyOf = (key: string) => `${namespace}:${key}`;
  return {
    async read(key) {
      const [row] = await query("SELECT value FROM keyv WHERE key = ?", keyOf(key));
      return row === undefined ? undefined : String(row.value);
    },
    async swap(key, version, text) {
      const rows = await query(
        `UPDATE keyv SET value = ? WHERE key = ?
         AND json_valid(value) AND json_extract(value, '$.value.version') = ? RETURNING key`,
        text,
        keyOf(key),
        version,
      );
      return rows.length > 0;
    },
  };
}

const SWAP = `local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local ok, record = pcall(cjson.decode, stored)
if not ok or type(record) ~= 'table' or type(record.value) ~= 'table' or record.value.version ~= tonumber(ARGV[1]) then return 0 end
if ARGV[3] == '' then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`;

function redisSwap(client: RedisClientType, namespace: string): RecordSwap {
  const keyOf = (key: string) => `${namespace}::${key}`;
  return {
    async read(key) {
      return (await client.get(keyOf(key))) ?? undefined;
    },
    async swap(key, version, text, ttlMs) {
      const ttl = ttlMs === undefined ? "" : String(Math.max(1, Math.ceil(ttlMs)));
      return (await client.eval(SWAP, { keys: [keyOf(key)], arguments: [String(version), text, ttl] })) === 1;
    },
  };
}
