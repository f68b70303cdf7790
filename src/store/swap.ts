import type { RedisClientType } from "@keyv/redis";
import type { StoreConnection } from "./keyv.js";

/**
 * Compare-and-swap of one keyv record, as the text keyv stores: the write lands only if the
 * record is still the text that was read. One statement, atomic on both backends, so that a
 * record update needs no lock around its read and write (a lock cost three more statements).
 *
 * The keys are the ones keyv uses (see keyv.ts): `namespace:key` in sqlite's keyv table, where
 * expiry is a field of the text; `namespace::key` on redis, where it is the key's PX as well.
 */
export interface RecordSwap {
  /** The stored text, undefined when there is none. */
  read(key: string): Promise<string | undefined>;
  /** Stores `text` (expiring after `ttlMs`, else never) if the record is still `expected`. */
  swap(key: string, expected: string, text: string, ttlMs: number | undefined): Promise<boolean>;
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
    async swap(key, expected, text) {
      const rows = await query(
        "UPDATE keyv SET value = ? WHERE key = ? AND value = ? RETURNING key",
        text,
        keyOf(key),
        expected,
      );
      return rows.length > 0;
    },
  };
}

const SWAP = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`;

function redisSwap(client: RedisClientType, namespace: string): RecordSwap {
  const keyOf = (key: string) => `${namespace}::${key}`;
  return {
    async read(key) {
      return (await client.get(keyOf(key))) ?? undefined;
    },
    async swap(key, expected, text, ttlMs) {
      const ttl = ttlMs === undefined ? "" : String(Math.max(1, Math.ceil(ttlMs)));
      return (await client.eval(SWAP, { keys: [keyOf(key)], arguments: [expected, text, ttl] })) === 1;
    },
  };
}
