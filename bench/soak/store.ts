import { statSync } from "node:fs";
import sqlite3 from "sqlite3";

/** What the bot's sqlite store holds: rows and bytes by keyv namespace, the claims and index entries. */
export interface StoreFigures {
  rows: number;
  /** The file and its write-ahead log. */
  bytes: number;
  /** keyv rows by namespace ("jobs", "spend", ...), with the rows whose expiry passed (kept until purged). */
  namespaces: Record<string, { rows: number; expired: number }>;
  claims: number;
  indexEntries: number;
  /** Index entries by the first word of the index's name ("jobs", "owned", "spend", ...). */
  indexes: Record<string, number>;
}

function all(db: sqlite3.Database, sql: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) =>
    db.all(sql, params, (error, rows) =>
      error ? reject(error) : resolve(rows as Record<string, unknown>[]),
    ),
  );
}

const size = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Read beside the running bot: WAL lets a reader in while it writes. */
export async function storeFigures(path: string): Promise<StoreFigures> {
  const db = new sqlite3.Database(path, sqlite3.OPEN_READONLY);
  try {
    const keyv = await all(
      db,
      `SELECT substr(key, 1, instr(key, ':') - 1) AS ns, count(*) AS n,
              sum(CASE WHEN json_valid(value) AND json_extract(value, '$.expires') < ? THEN 1 ELSE 0 END) AS expired
       FROM keyv GROUP BY ns`,
      Date.now(),
    );
    const count = async (table: string) =>
      Number((await all(db, `SELECT count(*) AS n FROM ${table}`))[0]?.n ?? 0);
    const namespaces = Object.fromEntries(
      keyv.map((r) => [String(r.ns), { rows: Number(r.n), expired: Number(r.expired) }]),
    );
    const claims = await count("claims");
    const indexEntries = await count("indexes");
    const byIndex = await all(
      db,
      "SELECT CASE WHEN instr(name, ':') > 0 THEN substr(name, 1, instr(name, ':') - 1) ELSE name END AS kind, count(*) AS n FROM indexes GROUP BY kind",
    );
    const indexes = Object.fromEntries(byIndex.map((r) => [String(r.kind), Number(r.n)]));
    return {
      rows: Object.values(namespaces).reduce((sum, n) => sum + n.rows, 0) + claims + indexEntries,
      bytes: size(path) + size(`${path}-wal`),
      namespaces,
      claims,
      indexEntries,
      indexes,
    };
  } finally {
    await new Promise((resolve) => db.close(resolve));
  }
}
