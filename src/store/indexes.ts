import type { RedisClientType } from "@keyv/redis";
import type { SqliteQuery, StoreConnection } from "./keyv.js";

export interface IndexEntry {
  id: string;
  /** When the entry was added (epoch ms): the order of `list`. */
  at: number;
}

/**
 * Named sets of record ids, ordered by when they were added: what keyv cannot do (it has no
 * reliable listing, see keyv.ts), done per backend with the backend's own structure so that
 * adding or removing one id costs one statement whatever the size of the set. Ten thousand
 * unfinished jobs kept in one JSON record meant rewriting the whole array on every job that
 * finished (measured with bench/jobs: hundreds of MB of garbage).
 */
export interface Indexes {
  /** Adds `entry` (or moves an existing id to `entry.at`); with `keep`, only the newest `keep` stay. */
  add(name: string, entry: IndexEntry, keep?: number): Promise<void>;
  /** `add` of many entries in one statement (a slice at a time on sqlite), without a `keep`. */
  addAll(name: string, entries: readonly IndexEntry[]): Promise<void>;
  remove(name: string, ids: readonly string[]): Promise<void>;
  /** Oldest first. */
  list(name: string): Promise<IndexEntry[]>;
  /**
   * Removes, in one statement, every entry but the newest `keep` and every entry added before
   * `before` (epoch ms); answers the ids removed, so that the caller deletes what they named.
   */
  trim(name: string, keep: number, before?: number): Promise<string[]>;
}

export async function openIndexes(connection: StoreConnection): Promise<Indexes> {
  return connection.kind === "sqlite" ? sqliteIndexes(connection.query) : redisIndexes(connection.client);
}

const REMOVE_SLICE = 500;
/** Three parameters per entry: under the 999 of older sqlite builds. */
const ADD_SLICE = 300;

/** A table in the same file as the keyv data, so every process opening the file sees the same sets. */
async function sqliteIndexes(query: SqliteQuery): Promise<Indexes> {
  await query(
    `CREATE TABLE IF NOT EXISTS indexes (name TEXT NOT NULL, id TEXT NOT NULL, at INTEGER NOT NULL,
     PRIMARY KEY (name, id)) WITHOUT ROWID`,
  );
  await query("CREATE INDEX IF NOT EXISTS indexes_by_time ON indexes (name, at)");
  const insert = (name: string, entries: readonly IndexEntry[]) =>
    query(
      `INSERT INTO indexes (name, id, at) VALUES ${entries.map(() => "(?, ?, ?)").join(", ")}
       ON CONFLICT (name, id) DO UPDATE SET at = excluded.at`,
      ...entries.flatMap(({ id, at }) => [name, id, at]),
    );
  return {
    async add(name, entry, keep) {
      await insert(name, [entry]);
      if (keep !== undefined) {
        await query(
          `DELETE FROM indexes WHERE name = ? AND id NOT IN
           (SELECT id FROM indexes WHERE name = ? ORDER BY at DESC, id DESC LIMIT ?)`,
          name,
          name,
          keep,
        );
      }
    },
    async addAll(name, entries) {
      for (let start = 0; start < entries.length; start += ADD_SLICE) {
        await insert(name, entries.slice(start, start + ADD_SLICE));
      }
    },
    async remove(name, ids) {
      // In slices: a statement takes a bounded number of parameters.
      for (let start = 0; start < ids.length; start += REMOVE_SLICE) {
        const slice = ids.slice(start, start + REMOVE_SLICE);
        await query(
          `DELETE FROM indexes WHERE name = ? AND id IN (${slice.map(() => "?").join(", ")})`,
          name,
          ...slice,
        );
      }
    },
    async list(name) {
      const rows = await query("SELECT id, at FROM indexes WHERE name = ? ORDER BY at, id", name);
      return rows.map((row) => ({ id: String(row.id), at: Number(row.at) }));
    },
    async trim(name, keep, before = 0) {
      const rows = await query(
        `DELETE FROM indexes WHERE name = ? AND (at < ? OR id NOT IN
         (SELECT id FROM indexes WHERE name = ? ORDER BY at DESC, id DESC LIMIT ?)) RETURNING id`,
        name,
        before,
        name,
        keep,
      );
      return rows.map((row) => String(row.id));
    },
  };
}

/** A sorted set per index, scored by time; the add and its trim run as one transaction. */
function redisIndexes(client: RedisClientType): Indexes {
  const redisKey = (name: string) => `indexes::${name}`;
  return {
    async add(name, { id, at }, keep) {
      const key = redisKey(name);
      const transaction = client.multi().zAdd(key, { score: at, value: id });
      if (keep !== undefined) transaction.zRemRangeByRank(key, 0, -(keep + 1));
      await transaction.exec();
    },
    async addAll(name, entries) {
      if (entries.length > 0)
        await client.zAdd(
          redisKey(name),
          entries.map(({ id, at }) => ({ score: at, value: id })),
        );
    },
    async remove(name, ids) {
      if (ids.length > 0) await client.zRem(redisKey(name), [...ids]);
    },
    async list(name) {
      const members = await client.zRangeWithScores(redisKey(name), 0, -1);
      return members.map(({ value, score }) => ({ id: String(value), at: score }));
    },
    async trim(name, keep, before = 0) {
      const key = redisKey(name);
      const beforeScore = `(${before}`;
      // Read and removed in one transaction: what is answered is exactly what went.
      const [surplus, , old] = await client
        .multi()
        .zRange(key, 0, -(keep + 1))
        .zRemRangeByRank(key, 0, -(keep + 1))
        .zRangeByScore(key, "-inf", beforeScore)
        .zRemRangeByScore(key, "-inf", beforeScore)
        .exec();
      const ids = (reply: unknown) => (Array.isArray(reply) ? reply.map(String) : []);
      return [...new Set([...ids(surplus), ...ids(old)])];
    },
  };
}
