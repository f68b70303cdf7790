import { tenantKey } from "../common/types.js";
import type { SqliteQuery } from "./keyv.js";
import {
  cancelAnswer,
  type Enqueued,
  type NewEntry,
  parseEntries,
  type QueueEntry,
  type QueueLimits,
  type QueueOptions,
  type QueueStore,
  tenantCap,
  tenantOfKey,
} from "./queue-entries.js";

/**
 * The queue on sqlite: tables in the store's file, each deciding step one statement, which sqlite
 * runs whole under the file's write lock (a writing statement takes it before it reads), so two
 * processes on one file never both take the last place. Taking and giving back a slot, and moving
 * a person's turn, are the triggers' work, inside the statement that changes the entry's state.
 */

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS queue_entries (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, person TEXT NOT NULL,
   seq INTEGER NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL, owner TEXT, payload TEXT NOT NULL,
   message TEXT, reason TEXT, ended INTEGER)`,
  "CREATE INDEX IF NOT EXISTS queue_by_person ON queue_entries (tenant, person, seq)",
  "CREATE INDEX IF NOT EXISTS queue_by_state ON queue_entries (state, tenant, seq)",
  "CREATE INDEX IF NOT EXISTS queue_by_time ON queue_entries (tenant, at)",
  "CREATE INDEX IF NOT EXISTS queue_by_owner ON queue_entries (owner)",
  `CREATE TABLE IF NOT EXISTS queue_slots (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, person TEXT NOT NULL)`,
  "CREATE INDEX IF NOT EXISTS queue_slots_by_person ON queue_slots (tenant, person)",
  `CREATE TABLE IF NOT EXISTS queue_turns (tenant TEXT NOT NULL, person TEXT NOT NULL, tick INTEGER NOT NULL,
   PRIMARY KEY (tenant, person)) WITHOUT ROWID`,
  // A slot taken: the entry's id holds it, and its person goes to the back of the turns.
  ...["INSERT", "UPDATE OF state"].map(
    (on, i) => `CREATE TRIGGER IF NOT EXISTS queue_take_${i} AFTER ${on} ON queue_entries
     WHEN NEW.state = 'starting' ${on === "INSERT" ? "" : "AND OLD.state IN ('preparing', 'waiting')"} BEGIN
       INSERT OR IGNORE INTO queue_slots (id, tenant, person) VALUES (NEW.id, NEW.tenant, NEW.person);
       INSERT INTO queue_turns (tenant, person, tick)
       VALUES (NEW.tenant, NEW.person, (SELECT COALESCE(MAX(tick), 0) + 1 FROM queue_turns WHERE tenant = NEW.tenant))
       ON CONFLICT (tenant, person) DO UPDATE SET tick = excluded.tick;
     END`,
  ),
  // An entry that leaves its start without a job (cancelled, refused, interrupted, waiting again) gives its slot back.
  `CREATE TRIGGER IF NOT EXISTS queue_give_back AFTER UPDATE OF state ON queue_entries
   WHEN OLD.state IN ('starting', 'calling') AND NEW.state NOT IN ('starting', 'calling') BEGIN
     DELETE FROM queue_slots WHERE id = NEW.id;
   END`,
];

const COLUMNS =
  "id, tenant, person AS userId, seq, at, state, owner, payload, message, reason, ended AS endedAt";
const QUEUED_SQL = "('preparing', 'waiting')";
/** Ended entries are swept after this many steps that add one. */
const PRUNE_EVERY = 500;

const running = (who: string) =>
  `(SELECT COUNT(*) FROM queue_slots s WHERE s.tenant = ${who}.tenant AND s.person = ${who}.person)`;

/** Records the entry in one statement that also decides it: it starts, it waits, or its person's queue is full. */
async function enqueueRow(query: SqliteQuery, entry: NewEntry, limits: QueueLimits): Promise<Enqueued> {
  const tenant = tenantKey(entry.tenant);
  // At once only when no one else's turn comes first: nobody with as few jobs running waits.
  const [row] = await query(
    `INSERT INTO queue_entries (id, tenant, person, seq, at, state, owner, payload)
     SELECT ?1, ?2, ?3, COALESCE((SELECT MAX(seq) FROM queue_entries WHERE tenant = ?2), 0) + 1, ?4,
            decided, ?5, ?6
     FROM (SELECT CASE
       WHEN NOT EXISTS (SELECT 1 FROM queue_entries WHERE tenant = ?2 AND person = ?3 AND state IN ${QUEUED_SQL})
         AND (SELECT COUNT(*) FROM queue_slots WHERE tenant = ?2 AND person = ?3) < ?7
         AND (SELECT COUNT(*) FROM queue_slots WHERE tenant = ?2) < ?9
         AND NOT EXISTS (SELECT 1 FROM queue_entries w WHERE w.tenant = ?2 AND w.state = 'waiting'
               AND ${running("w")} < ?7
               AND ${running("w")} <= (SELECT COUNT(*) FROM queue_slots WHERE tenant = ?2 AND person = ?3))
         THEN 'starting'
       WHEN (SELECT COUNT(*) FROM queue_entries WHERE tenant = ?2 AND person = ?3 AND state IN ${QUEUED_SQL}) < ?8
         THEN 'preparing'
       END AS decided)
     WHERE decided IS NOT NULL
     RETURNING state`,
    entry.id,
    tenant,
    entry.userId,
    entry.at,
    entry.owner,
    entry.payload,
    limits.person,
    limits.queue,
    tenantCap(limits),
  );
  if (!row) return { outcome: "full" };
  if (row.state === "starting") return { outcome: "start" };
  const [count] = await query(
    `SELECT COUNT(*) AS ahead FROM queue_entries WHERE tenant = ? AND person = ? AND state IN ${QUEUED_SQL}
     AND seq < (SELECT seq FROM queue_entries WHERE id = ?)`,
    tenant,
    entry.userId,
    entry.id,
  );
  return { outcome: "queued", ahead: Number(count?.ahead ?? 0) };
}

/** The lists a person and their admins read. */
function reads(
  rows: (sql: string, ...params: unknown[]) => Promise<QueueEntry[]>,
  fresh: () => number,
): Pick<QueueStore, "get" | "queuedOf" | "recentOf" | "recentOfTenant"> {
  return {
    async get(id) {
      return (await rows(`SELECT ${COLUMNS} FROM queue_entries WHERE id = ?`, id))[0];
    },
    queuedOf: (tenant, userId) =>
      rows(
        `SELECT ${COLUMNS} FROM queue_entries WHERE tenant = ? AND person = ? AND state IN ${QUEUED_SQL} ORDER BY seq`,
        tenantKey(tenant),
        userId,
      ),
    recentOf: (tenant, userId, limit) =>
      rows(
        `SELECT ${COLUMNS} FROM queue_entries WHERE tenant = ? AND person = ? AND (ended IS NULL OR ended >= ?)
       ORDER BY at DESC, seq DESC LIMIT ?`,
        tenantKey(tenant),
        userId,
        fresh(),
        limit,
      ),
    recentOfTenant: (tenant, limit) =>
      rows(
        `SELECT ${COLUMNS} FROM queue_entries WHERE tenant = ? AND (ended IS NULL OR ended >= ?)
       ORDER BY at DESC, seq DESC LIMIT ?`,
        tenantKey(tenant),
        fresh(),
        limit,
      ),
  };
}

export async function sqliteQueue(query: SqliteQuery, options: QueueOptions): Promise<QueueStore> {
  for (const statement of SCHEMA) await query(statement);
  let added = 0;
  const rows = async (sql: string, ...params: unknown[]) => parseEntries(await query(sql, ...params));
  const changed = async (sql: string, ...params: unknown[]) =>
    (await query(`${sql} RETURNING id`, ...params)).length > 0;
  const fresh = () => Date.now() - options.keepMs;

  return {
    async enqueue(entry, limits) {
      added += 1;
      if (added % PRUNE_EVERY === 0) await query("DELETE FROM queue_entries WHERE ended < ?", fresh());
      return enqueueRow(query, entry, limits);
    },
    ready: (id, message) =>
      changed(
        "UPDATE queue_entries SET state = 'waiting', owner = NULL, message = ? WHERE id = ? AND state = 'preparing'",
        message,
        id,
      ),
    async pick(tenant, limits, owner) {
      const picked = await rows(
        `UPDATE queue_entries SET state = 'starting', owner = ?1
         WHERE state = 'waiting' AND id = (
           SELECT e.id FROM queue_entries e LEFT JOIN queue_turns t ON t.tenant = e.tenant AND t.person = e.person
           WHERE e.tenant = ?2 AND e.state = 'waiting'
             AND e.seq = (SELECT MIN(seq) FROM queue_entries h
                          WHERE h.tenant = e.tenant AND h.person = e.person AND h.state IN ${QUEUED_SQL})
             AND ${running("e")} < ?3
             AND (SELECT COUNT(*) FROM queue_slots WHERE tenant = ?2) < ?4
           ORDER BY ${running("e")}, COALESCE(t.tick, 0), e.seq
           LIMIT 1)
         RETURNING ${COLUMNS}`,
        owner,
        tenantKey(tenant),
        limits.person,
        tenantCap(limits),
      );
      return picked[0];
    },
    calling: (id, owner) =>
      changed(
        "UPDATE queue_entries SET state = 'calling' WHERE id = ? AND owner = ? AND state = 'starting'",
        id,
        owner,
      ),
    async started(id) {
      // A deletion fires no trigger: the slot stays with the job that now runs.
      await query("DELETE FROM queue_entries WHERE id = ?", id);
    },
    end: (id, state, reason, at) =>
      changed(
        `UPDATE queue_entries SET state = ?, reason = ?, ended = ?, owner = NULL
         WHERE id = ? AND state IN ('starting', 'calling')`,
        state,
        reason,
        at,
        id,
      ),
    requeue: (id, owner) =>
      changed(
        `UPDATE queue_entries SET state = 'waiting', owner = NULL
         WHERE id = ? AND owner = ? AND state IN ('preparing', 'starting')`,
        id,
        owner,
      ),
    async cancel(id, at) {
      const done = await changed(
        `UPDATE queue_entries SET state = 'cancelled', ended = ?, owner = NULL
         WHERE id = ? AND state IN ('preparing', 'waiting', 'starting')`,
        at,
        id,
      );
      if (done) return "cancelled";
      const [row] = await query("SELECT state FROM queue_entries WHERE id = ?", id);
      return cancelAnswer(row?.state);
    },
    async release(tenant, ids) {
      if (ids.length === 0) return;
      await query(
        `DELETE FROM queue_slots WHERE tenant = ? AND id IN (${ids.map(() => "?").join(", ")})`,
        tenantKey(tenant),
        ...ids,
      );
    },
    ...reads(rows, fresh),
    async slots(tenant) {
      const found = await query("SELECT id, person FROM queue_slots WHERE tenant = ?", tenantKey(tenant));
      return found.map((row) => ({ id: String(row.id), userId: String(row.person) }));
    },
    async tenants() {
      const found = await query(`SELECT DISTINCT tenant FROM queue_entries WHERE state IN ${QUEUED_SQL}`);
      return found.flatMap((row) => {
        try {
          return [tenantOfKey(String(row.tenant))];
        } catch {
          return [];
        }
      });
    },
    ownedBy: (owner) =>
      rows(
        `SELECT ${COLUMNS} FROM queue_entries WHERE owner = ? AND state IN ('preparing', 'starting', 'calling')`,
        owner,
      ),
  };
}
