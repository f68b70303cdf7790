import { createHash } from "node:crypto";
import type { RedisClientType } from "@keyv/redis";
import { Batch } from "./batch.js";
import type { SqliteQuery, StoreConnection } from "./keyv.js";

/**
 * The sums of spending, kept so that a start's budget check and reservation is one atomic step on
 * the store (a Lua script on Redis, one statement on sqlite) and a report reads sums, not records.
 * No lock is taken: every replica on the store runs the same step, and the store runs each whole.
 *
 * - Tallies: per book (a tenant's period, a person's period in a tenant, a key's period), one sum
 *   per field ("user:U1|credits", "everyone|jobs", "day:2026-11-02/kind:image|credits").
 * - Holds: the reservations of starts under way, per book, each lapsing after its time.
 * - Costs: per book, the last real cost of each command (what a credit budget reserves).
 * - Ledger: per key and period, every reading of the account in the service's order
 *   (credits_used, then the counters' sum, a job's reading before a probe of equal value, time,
 *   id: spend/attribution.ts `byValue`). A reading's step up from the one just below it is its
 *   owners': a job's fields in its books, or a probe's (outside spending). Inserting a reading
 *   also moves the step of the one just above it, in the same atomic step, so the tallies are
 *   always what attributing every reading of the period at once would give, in whatever order the
 *   readings arrive.
 *
 * On Redis a reading's owners may be another tenant's books (tenants sharing the operator's key
 * share its ledger): the script reaches their tallies by the names kept with the reading, which a
 * single Redis (what STORE_URL takes) allows and a Redis Cluster would not.
 */

export interface Owner {
  book: string;
  field: string;
}

export interface HoldItem {
  /** The tally field a budget counts ("user:U1|jobs"). */
  field: string;
  /** A credit budget reserves the command's last cost (at least 1); a job budget reserves 1. */
  credits: boolean;
  limit: number;
}

export interface Hold {
  id: string;
  command: string;
  at: number;
  /** Holds taken at or before this (epoch ms) belong to processes that died: they hold no one back. */
  lapsedUpTo: number;
  items: readonly HoldItem[];
}

/** The first item a reservation would break, with what was used and held of it. */
export interface Refused {
  index: number;
  taken: number;
}

export interface LedgerReading {
  /** The job's id for its reading after the charge; a probe's own id. */
  id: string;
  creditsUsed: number;
  /** The sum of the per-type counters: the second key of the service's order. */
  counters: number;
  probe: boolean;
  at: number;
  owners: readonly Owner[];
}

export interface Settlement {
  /**
   * The settlement's own id (its job's): on Redis a second run of it (its answer lost to a
   * failover and the settlement sent again) changes nothing. sqlite runs it whole or not at all.
   */
  id: string;
  /** Counts that do not wait for attribution (jobs, jobs of a kind). */
  add: readonly (Owner & { amount: number })[];
  ledger: string;
  readings: readonly LedgerReading[];
  /** The job whose step becomes `cost.command`'s last cost in `cost.book`. */
  job?: { id: string; cost: { book: string; command: string } };
  /** The reservation the settlement replaces, given back after the counts are in. */
  release?: { book: string; holdId: string };
  /** The job's record (JSON), filed under its key's ledger and its tenant's book, oldest first. */
  record?: { id: string; book: string; at: number; json: string };
}

export interface SpendBooks {
  /** Reserves `hold` in `book` if every item stays within its limit; else the first it would break. */
  reserve(book: string, hold: Hold): Promise<Refused | undefined>;
  release(book: string, holdId: string): Promise<void>;
  /** Answers the job's step (its credits) when a reading below it was known. */
  settle(settlement: Settlement): Promise<number | undefined>;
  /** The book's sums, all of them or only `fields` (those missing are left out). */
  tallies(book: string, fields?: readonly string[]): Promise<Record<string, number>>;
  /** How many reservations `book` holds now (lapsed ones included until swept). */
  holds(book: string): Promise<number>;
  /** The records settled under a key's ledger, or a tenant's book, oldest first (JSON). */
  records(of: { ledger: string } | { book: string }): Promise<string[]>;
  /** Drops whole books and ledgers (periods no longer kept), records filed under them included. */
  forget(books: readonly string[], ledgers: readonly string[]): Promise<void>;
}

export async function openSpendBooks(connection: StoreConnection, keepMs: number): Promise<SpendBooks> {
  return connection.kind === "sqlite" ? sqliteBooks(connection.query) : redisBooks(connection.client, keepMs);
}

/** Numbers in the service's order compare as text on Redis: fixed width, zero-padded. */
const WIDTH = 16;
const padded = (value: number) => String(Math.max(0, Math.floor(value))).padStart(WIDTH, "0");

/** A reading's place among equal credits on Redis (the sorted set's member, ordered as text). */
export function ledgerMember(reading: Pick<LedgerReading, "counters" | "probe" | "at" | "id">): string {
  return `${padded(reading.counters)}|${reading.probe ? 1 : 0}|${padded(reading.at)}|${reading.id}`;
}

// ---------------------------------------------------------------------------------------------
// Redis: hashes and sorted sets, changed by scripts.

const LUA_COMMON = `
local keep = ARGV[1]
local touched = {}
local function touch(key)
  if not touched[key] then
    touched[key] = true
    redis.call('PEXPIRE', key, keep)
  end
end
local function release(held, holds, holdsAt, id)
  local items = redis.call('HGET', holds, id)
  if items then
    for field, amount in string.gmatch(items, '([^\\t]+)\\t([^\\t]+)') do
      redis.call('HINCRBYFLOAT', held, field, -tonumber(amount))
    end
    redis.call('HDEL', holds, id)
  end
  redis.call('ZREM', holdsAt, id)
end
`;

/**
 * KEYS: tallies, held sums, holds, holds by time, costs (of one book).
 * ARGV: keep ms, then per reservation: hold id, command, now, lapsed up to, number of items, then
 * (field, "1" credits | "0" jobs, limit) per item.
 * Checks the reservations in turn, each against the sums as the ones before it left them (read
 * once per field, then kept here), and answers one entry per reservation: 0 when reserved, else
 * {item number (1-based), used and held of it as text}. A hold reserved already (the same
 * reservation sent again after its answer was lost) is not held twice.
 */
const RESERVE = `${LUA_COMMON}
local used, held, estimates, reserved = {}, {}, {}, {}
local swept = nil
local function sum(cache, key, field)
  local value = cache[field]
  if value == nil then
    value = tonumber(redis.call('HGET', key, field) or '0')
    cache[field] = value
  end
  return value
end
local answers = {}
local i = 2
while i <= #ARGV do
  local id, command, at, lapsed, count = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4])
  local first = i + 5
  i = first + 3 * count
  local answer = 0
  if not reserved[id] and redis.call('HEXISTS', KEYS[3], id) == 0 then
    if swept == nil or lapsed > swept then
      for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', lapsed)) do
        release(KEYS[2], KEYS[3], KEYS[4], old)
      end
      swept = lapsed
      held = {}
    end
    if estimates[command] == nil then
      estimates[command] = math.max(1, tonumber(redis.call('HGET', KEYS[5], command) or '1'))
    end
    local items = {}
    for n = 1, count do
      local j = first + 3 * (n - 1)
      local field, limit = ARGV[j], tonumber(ARGV[j + 2])
      local amount = 1
      if ARGV[j + 1] == '1' then amount = estimates[command] end
      local taken = sum(used, KEYS[1], field) + sum(held, KEYS[2], field)
      if taken + amount > limit or taken >= limit then
        answer = {n, tostring(taken)}
        break
      end
      items[#items + 1] = field
      items[#items + 1] = tostring(amount)
    end
    if answer == 0 then
      for j = 1, #items, 2 do
        redis.call('HINCRBYFLOAT', KEYS[2], items[j], items[j + 1])
        held[items[j]] = held[items[j]] + tonumber(items[j + 1])
      end
      redis.call('HSET', KEYS[3], id, table.concat(items, '\\t'))
      redis.call('ZADD', KEYS[4], at, id)
      reserved[id] = true
    end
  end
  answers[#answers + 1] = answer
end
for k = 2, 4 do touch(KEYS[k]) end
return answers
`;

/** KEYS: held sums, holds, holds by time. ARGV: keep ms, hold id. */
const RELEASE = `${LUA_COMMON}
release(KEYS[1], KEYS[2], KEYS[3], ARGV[2])
return 0
`;

const SETTLED_MARK_MS = 24 * 3600_000;

/**
 * KEYS: ledger (sorted set), its readings' owners (hash), costs, held sums, holds, holds by time
 * (the last three of the book the reservation is in; unused without one), the record's key, the
 * ledger's records and the book's records (sorted sets by time; unused without a record), and the
 * settlement's mark (set once: a settlement sent again changes nothing and answers false; kept a
 * day, far longer than a settlement is retried).
 * ARGV: keep ms, hold id ('' none), command ('' none), job member ('' none), record ('' none),
 * record id, record time, count of adds, then (tallies key, field, amount)..., count of
 * readings, then (credits, member, owners)... Owners are "key\\tfield" lines. Answers the job's
 * step as text, or false.
 */
const SETTLE = `${LUA_COMMON}
if not redis.call('SET', KEYS[10], '1', 'NX', 'PX', ${SETTLED_MARK_MS}) then return false end
local function credit(owners, amount)
  if amount == 0 or not owners or owners == '' then return end
  for key, field in string.gmatch(owners, '([^\\t\\n]+)\\t([^\\n]+)') do
    redis.call('HINCRBYFLOAT', key, field, amount)
    touch(key)
  end
end
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[7], ARGV[5], 'PX', keep)
  redis.call('ZADD', KEYS[8], ARGV[7], ARGV[6])
  redis.call('ZADD', KEYS[9], ARGV[7], ARGV[6])
  touch(KEYS[8])
  touch(KEYS[9])
end
local i = 8
for _ = 1, tonumber(ARGV[i]) do
  redis.call('HINCRBYFLOAT', ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
  touch(ARGV[i + 1])
  i = i + 3
end
i = i + 1
for _ = 1, tonumber(ARGV[i]) do
  local score, member, owners = tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
  i = i + 3
  if redis.call('ZADD', KEYS[1], 'NX', score, member) == 1 then
    redis.call('HSET', KEYS[2], member, owners)
    local rank = redis.call('ZRANK', KEYS[1], member)
    local below = nil
    if rank > 0 then below = tonumber(redis.call('ZRANGE', KEYS[1], rank - 1, rank - 1, 'WITHSCORES')[2]) end
    if below then credit(owners, score - below) end
    local above = redis.call('ZRANGE', KEYS[1], rank + 1, rank + 1, 'WITHSCORES')
    if above[1] then credit(redis.call('HGET', KEYS[2], above[1]), (below or tonumber(above[2])) - score) end
  end
end
touch(KEYS[1])
touch(KEYS[2])
local step = false
if ARGV[4] ~= '' then
  local rank = redis.call('ZRANK', KEYS[1], ARGV[4])
  if rank and rank > 0 then
    local pair = redis.call('ZRANGE', KEYS[1], rank - 1, rank, 'WITHSCORES')
    step = tonumber(pair[4]) - tonumber(pair[2])
    if ARGV[3] ~= '' then
      redis.call('HSET', KEYS[3], ARGV[3], tostring(step))
      touch(KEYS[3])
    end
    step = tostring(step)
  end
end
if ARGV[2] ~= '' then release(KEYS[4], KEYS[5], KEYS[6], ARGV[2]) end
return step
`;

/** Records read or deleted per command on Redis. */
const RECORDS_SLICE = 1_000;

/** Runs the scripts above: each is sent once and run by its hash after (EVALSHA); a server that lost it gets it again. */
export function scriptRunner(client: RedisClientType) {
  const shas = new Map<string, string>();
  return async (script: string, options: { keys: string[]; arguments: string[] }) => {
    let sha = shas.get(script);
    if (!sha) {
      sha = createHash("sha1").update(script).digest("hex");
      shas.set(script, sha);
    }
    try {
      return await client.evalSha(sha, options);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
      return client.eval(script, options);
    }
  };
}

function redisBooks(client: RedisClientType, keepMs: number): SpendBooks {
  const key = (kind: string, name: string) => `spend-books::${kind}:${name}`;
  const run = scriptRunner(client);
  const holdKeys = (book: string) => [key("held", book), key("holds", book), key("holds-at", book)];
  const owners = (list: readonly Owner[]) =>
    list.map((o) => `${key("tally", o.book)}\t${o.field}`).join("\n");
  const keep = String(keepMs);
  /** A batch's reservations, one script call per book, each answered in the batch's order. */
  const reserveAll = async (batch: readonly Reservation[]) => {
    const byBook = new Map<string, Hold[]>();
    for (const { book, hold } of batch) {
      const holds = byBook.get(book);
      if (holds) holds.push(hold);
      else byBook.set(book, [hold]);
    }
    const answers = new Map<Hold, Refused>();
    await Promise.all(
      [...byBook].map(async ([book, holds]) => {
        const reply = (await run(RESERVE, {
          keys: [key("tally", book), ...holdKeys(book), key("cost", book)],
          arguments: [
            keep,
            ...holds.flatMap((hold) => [
              hold.id,
              hold.command,
              String(hold.at),
              String(hold.lapsedUpTo),
              String(hold.items.length),
              ...hold.items.flatMap((item) => [item.field, item.credits ? "1" : "0", String(item.limit)]),
            ]),
          ],
        })) as unknown[];
        holds.forEach((hold, i) => {
          const refused = reply[i];
          if (Array.isArray(refused))
            answers.set(hold, { index: Number(refused[0]) - 1, taken: Number(refused[1]) });
        });
      }),
    );
    return batch.map(({ hold }) => answers.get(hold));
  };
  return {
    reserve: batchedReservations((batch) => reserveAll(batch)),
    async release(book, holdId) {
      await run(RELEASE, { keys: holdKeys(book), arguments: [keep, holdId] });
    },
    async settle(settlement) {
      const { release: hold, record } = settlement;
      const job = settlement.job && settlement.readings.find((r) => r.id === settlement.job!.id);
      const reply = await run(SETTLE, {
        keys: [
          key("ledger", settlement.ledger),
          key("owners", settlement.ledger),
          key("cost", settlement.job?.cost.book ?? ""),
          ...holdKeys(hold?.book ?? ""),
          key("record", record?.id ?? ""),
          key("records", settlement.ledger),
          key("records", record?.book ?? ""),
          key("settled", settlement.id),
        ],
        arguments: [
          keep,
          hold?.holdId ?? "",
          settlement.job?.cost.command ?? "",
          job ? ledgerMember(job) : "",
          record?.json ?? "",
          record?.id ?? "",
          String(record?.at ?? 0),
          String(settlement.add.length),
          ...settlement.add.flatMap((a) => [key("tally", a.book), a.field, String(a.amount)]),
          String(settlement.readings.length),
          ...settlement.readings.flatMap((r) => [String(r.creditsUsed), ledgerMember(r), owners(r.owners)]),
        ],
      });
      return typeof reply === "string" ? Number(reply) : undefined;
    },
    async tallies(book, fields) {
      if (fields) {
        if (fields.length === 0) return {};
        const values = await client.hmGet(key("tally", book), [...fields]);
        return Object.fromEntries(
          fields.flatMap((field, i) => (typeof values[i] === "string" ? [[field, Number(values[i])]] : [])),
        );
      }
      const all = await client.hGetAll(key("tally", book));
      return Object.fromEntries(Object.entries(all).map(([field, value]) => [field, Number(value)]));
    },
    holds: (book) => client.hLen(key("holds", book)),
    async records(of) {
      const ids = await client.zRange(key("records", "ledger" in of ? of.ledger : of.book), 0, -1);
      const values: string[] = [];
      for (let start = 0; start < ids.length; start += RECORDS_SLICE) {
        const slice = ids.slice(start, start + RECORDS_SLICE).map((id) => key("record", id));
        for (const value of await client.mGet(slice)) if (typeof value === "string") values.push(value);
      }
      return values;
    },
    async forget(books, ledgers) {
      const records = [];
      for (const ledger of ledgers) records.push(...(await client.zRange(key("records", ledger), 0, -1)));
      const keys = [
        ...books.flatMap((book) => [
          key("tally", book),
          ...holdKeys(book),
          key("cost", book),
          key("records", book),
        ]),
        ...ledgers.flatMap((ledger) => [
          key("ledger", ledger),
          key("owners", ledger),
          key("records", ledger),
        ]),
        ...records.map((id) => key("record", id)),
      ];
      for (let start = 0; start < keys.length; start += RECORDS_SLICE) {
        await client.del(keys.slice(start, start + RECORDS_SLICE));
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// sqlite: tables in the store's file; each step is one statement, which sqlite runs whole under
// the file's write lock (a writing statement takes it before it reads), so two processes on one
// file never both pass a check. A settlement's parts and a reading's steps are carried out by
// triggers, inside their statement.

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS spend_tallies (book TEXT NOT NULL, field TEXT NOT NULL, amount REAL NOT NULL,
   PRIMARY KEY (book, field)) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS spend_holds (book TEXT NOT NULL, hold TEXT NOT NULL, field TEXT NOT NULL,
   amount REAL NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (book, hold, field)) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS spend_costs (book TEXT NOT NULL, command TEXT NOT NULL, cost REAL NOT NULL,
   PRIMARY KEY (book, command)) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS spend_ledger (ledger TEXT NOT NULL, credits REAL NOT NULL, counters INTEGER NOT NULL,
   probe INTEGER NOT NULL, at INTEGER NOT NULL, id TEXT NOT NULL, owners TEXT NOT NULL,
   PRIMARY KEY (ledger, credits, counters, probe, at, id)) WITHOUT ROWID`,
  "CREATE UNIQUE INDEX IF NOT EXISTS spend_ledger_ids ON spend_ledger (ledger, id)",
  // The reading's own step up from the one below it; then the step of the one above it, which
  // now starts at the new reading (from nothing below, it was 0).
  `CREATE TRIGGER IF NOT EXISTS spend_ledger_steps AFTER INSERT ON spend_ledger BEGIN
     INSERT INTO spend_tallies (book, field, amount)
     SELECT json_extract(o.value, '$[0]'), json_extract(o.value, '$[1]'), NEW.credits - below.credits
     FROM (SELECT credits FROM spend_ledger WHERE ledger = NEW.ledger
             AND (credits, counters, probe, at, id) < (NEW.credits, NEW.counters, NEW.probe, NEW.at, NEW.id)
           ORDER BY credits DESC, counters DESC, probe DESC, at DESC, id DESC LIMIT 1) AS below,
          json_each(NEW.owners) AS o
     WHERE NEW.credits <> below.credits
     ON CONFLICT (book, field) DO UPDATE SET amount = amount + excluded.amount;
     INSERT INTO spend_tallies (book, field, amount)
     SELECT json_extract(o.value, '$[0]'), json_extract(o.value, '$[1]'),
            COALESCE((SELECT credits FROM spend_ledger WHERE ledger = NEW.ledger
                        AND (credits, counters, probe, at, id) < (NEW.credits, NEW.counters, NEW.probe, NEW.at, NEW.id)
                      ORDER BY credits DESC, counters DESC, probe DESC, at DESC, id DESC LIMIT 1),
                     above.credits) - NEW.credits
     FROM (SELECT credits, owners FROM spend_ledger WHERE ledger = NEW.ledger
             AND (credits, counters, probe, at, id) > (NEW.credits, NEW.counters, NEW.probe, NEW.at, NEW.id)
           ORDER BY credits, counters, probe, at, id LIMIT 1) AS above,
          json_each(above.owners) AS o
     WHERE true
     ON CONFLICT (book, field) DO UPDATE SET amount = amount + excluded.amount;
   END`,
  // A settlement is one INSERT here, which this trigger carries out whole inside it: the job
  // counted, its readings filed (the ledger's trigger prices them), its command's cost kept, its
  // reservation given back. Nothing between those steps can see the job counted twice or not at all.
  `CREATE TABLE IF NOT EXISTS spend_records (id TEXT PRIMARY KEY, ledger TEXT NOT NULL, book TEXT NOT NULL,
   at INTEGER NOT NULL, record TEXT NOT NULL)`,
  "CREATE INDEX IF NOT EXISTS spend_records_by_ledger ON spend_records (ledger, at)",
  "CREATE INDEX IF NOT EXISTS spend_records_by_book ON spend_records (book, at)",
  `CREATE TABLE IF NOT EXISTS spend_settlements (id INTEGER PRIMARY KEY, adds TEXT NOT NULL,
   ledger TEXT NOT NULL, readings TEXT NOT NULL, job TEXT, cost_book TEXT, command TEXT,
   hold_book TEXT, hold TEXT, record_id TEXT, record_book TEXT, record_at INTEGER, record TEXT)`,
  `CREATE TRIGGER IF NOT EXISTS spend_settle AFTER INSERT ON spend_settlements BEGIN
     INSERT INTO spend_tallies (book, field, amount)
     SELECT json_extract(a.value, '$[0]'), json_extract(a.value, '$[1]'), json_extract(a.value, '$[2]')
     FROM json_each(NEW.adds) AS a
     WHERE true
     ON CONFLICT (book, field) DO UPDATE SET amount = amount + excluded.amount;
     INSERT OR IGNORE INTO spend_ledger (ledger, credits, counters, probe, at, id, owners)
     SELECT NEW.ledger, json_extract(r.value, '$[0]'), json_extract(r.value, '$[1]'),
            json_extract(r.value, '$[2]'), json_extract(r.value, '$[3]'), json_extract(r.value, '$[4]'),
            json_extract(r.value, '$[5]')
     FROM json_each(NEW.readings) AS r;
     INSERT INTO spend_costs (book, command, cost)
     SELECT NEW.cost_book, NEW.command, mine.credits - below.credits
     FROM spend_ledger AS mine, spend_ledger AS below
     WHERE NEW.job IS NOT NULL AND mine.ledger = NEW.ledger AND mine.id = NEW.job AND below.ledger = NEW.ledger
       AND (below.credits, below.counters, below.probe, below.at, below.id)
         < (mine.credits, mine.counters, mine.probe, mine.at, mine.id)
     ORDER BY below.credits DESC, below.counters DESC, below.probe DESC, below.at DESC, below.id DESC
     LIMIT 1
     ON CONFLICT (book, command) DO UPDATE SET cost = excluded.cost;
     INSERT OR REPLACE INTO spend_records (id, ledger, book, at, record)
     SELECT NEW.record_id, NEW.ledger, NEW.record_book, NEW.record_at, NEW.record WHERE NEW.record_id IS NOT NULL;
     DELETE FROM spend_holds WHERE book = NEW.hold_book AND hold = NEW.hold;
     DELETE FROM spend_settlements WHERE id = NEW.id;
   END`,
  // A reservation: one row, checked and carried out by its trigger (HELD below).
  `CREATE TABLE IF NOT EXISTS spend_requests (hold TEXT PRIMARY KEY, book TEXT NOT NULL, command TEXT NOT NULL,
   at INTEGER NOT NULL, lapsed INTEGER NOT NULL, items TEXT NOT NULL, refused TEXT)`,
];

/**
 * What the holds of a book add up to per field, kept by triggers on the holds: a reservation reads
 * one row per budget instead of summing the holds under way (which made a burst's n checks cost
 * n squared). A field's row goes when its last hold does, so no rounding is carried over.
 */
/** How long a reservation's row (its answer) is kept to be read back, far longer than that takes. */
const REQUESTS_KEPT_MS = 60_000;

const HELD = [
  `CREATE TABLE spend_held (book TEXT NOT NULL, field TEXT NOT NULL, amount REAL NOT NULL,
   holds INTEGER NOT NULL, PRIMARY KEY (book, field)) WITHOUT ROWID`,
  `CREATE TRIGGER spend_holds_held AFTER INSERT ON spend_holds BEGIN
     INSERT INTO spend_held (book, field, amount, holds) VALUES (NEW.book, NEW.field, NEW.amount, 1)
     ON CONFLICT (book, field) DO UPDATE SET amount = amount + excluded.amount, holds = holds + 1;
   END`,
  `CREATE TRIGGER spend_holds_freed AFTER DELETE ON spend_holds BEGIN
     UPDATE spend_held SET amount = amount - OLD.amount, holds = holds - 1
     WHERE book = OLD.book AND field = OLD.field;
     DELETE FROM spend_held WHERE book = OLD.book AND field = OLD.field AND holds <= 0;
   END`,
  // The holds of an earlier version, summed once.
  `INSERT INTO spend_held (book, field, amount, holds)
   SELECT book, field, SUM(amount), COUNT(*) FROM spend_holds GROUP BY book, field`,
  "DROP INDEX IF EXISTS spend_holds_by_field",
  "CREATE INDEX IF NOT EXISTS spend_holds_by_time ON spend_holds (book, at)",
  "DROP TRIGGER IF EXISTS spend_reserve",
  // A reservation is one row here, which this trigger checks and carries out whole inside its
  // INSERT: the book's lapsed holds given back, then the first item it would break written on the
  // row, or every item held. Rows inserted together are checked one after the other, in their
  // order, each seeing the holds of those before. The rows are read back (a read, which takes no
  // lock) and left for the next INSERTs to delete: one write per batch.
  "CREATE INDEX IF NOT EXISTS spend_requests_by_time ON spend_requests (at)",
  `CREATE TRIGGER spend_reserve AFTER INSERT ON spend_requests BEGIN
     DELETE FROM spend_requests WHERE at <= NEW.at - ${REQUESTS_KEPT_MS};
     DELETE FROM spend_holds WHERE book = NEW.book AND at <= NEW.lapsed;
     UPDATE spend_requests SET refused = (
       SELECT json_array(n, taken) FROM (
         SELECT CAST(i.key AS INTEGER) AS n, json_extract(i.value, '$[2]') AS lim,
           CASE WHEN json_extract(i.value, '$[1]') = 1
             THEN MAX(1, COALESCE((SELECT cost FROM spend_costs WHERE book = NEW.book AND command = NEW.command), 1))
             ELSE 1 END AS amount,
           COALESCE((SELECT amount FROM spend_tallies WHERE book = NEW.book AND field = json_extract(i.value, '$[0]')), 0)
           + COALESCE((SELECT amount FROM spend_held WHERE book = NEW.book AND field = json_extract(i.value, '$[0]')), 0)
             AS taken
         FROM json_each(NEW.items) AS i)
       WHERE taken + amount > lim OR taken >= lim ORDER BY n LIMIT 1)
     WHERE hold = NEW.hold;
     INSERT INTO spend_holds (book, hold, field, amount, at)
     SELECT NEW.book, NEW.hold, json_extract(i.value, '$[0]'),
       CASE WHEN json_extract(i.value, '$[1]') = 1
         THEN MAX(1, COALESCE((SELECT cost FROM spend_costs WHERE book = NEW.book AND command = NEW.command), 1))
         ELSE 1 END,
       NEW.at
     FROM json_each(NEW.items) AS i
     WHERE (SELECT refused FROM spend_requests WHERE hold = NEW.hold) IS NULL;
   END`,
];

/** How many reservations on sqlite between two sweeps of lapsed holds (the check skips them anyway). */
const PRUNE_EVERY = 1_000;
/**
 * Settlements on sqlite wait this long to be written together: one statement for a burst's
 * instead of one each on the file's one connection. Until then the job is held (not yet counted),
 * which a check counts the same.
 */
const SETTLE_WINDOW_MS = 5;
/** Settlements in one statement: twelve parameters each, under the 999 of older sqlite builds. */
const SETTLE_BATCH = 80;
const marks = (rows: number, columns: number) =>
  Array.from({ length: rows }, () => `(${Array.from({ length: columns }, () => "?").join(", ")})`).join(", ");

/**
 * Reservations wait this long to be checked together, each in turn in the order they came, in
 * one statement (sqlite) or one script call per book (Redis): short, since a start waits for its
 * answer before its creation call. A burst's starts ask within a millisecond or two of each other
 * (they wait on the same reads of the key and the budgets).
 */
const RESERVE_WINDOW_MS = 2;
/** Reservations checked in one statement (six parameters each on sqlite) or one script call. */
const RESERVE_BATCH = 150;

interface Reservation {
  book: string;
  hold: Hold;
}

/**
 * The store's check of many reservations at once: each checked against the books as the ones
 * before it in `batch` left them, its answer at the same place.
 */
type CheckAll = (batch: readonly Reservation[]) => Promise<(Refused | undefined)[]>;

/** Reservations gathered for `RESERVE_WINDOW_MS` and checked by one call of `checkAll`. */
function batchedReservations(checkAll: CheckAll): SpendBooks["reserve"] {
  /** Each reservation's answer, from its batch until its caller takes it. */
  const answers = new Map<Reservation, Refused | undefined>();
  const reserving = new Batch<Reservation>(
    async (batch) => {
      const refused = await checkAll(batch);
      for (const [i, reservation] of batch.entries()) answers.set(reservation, refused[i]);
    },
    RESERVE_WINDOW_MS,
    RESERVE_BATCH,
  );
  return async (book, hold) => {
    if (hold.items.length === 0) return undefined;
    const reservation = { book, hold };
    await reserving.add(reservation);
    const answer = answers.get(reservation);
    answers.delete(reservation);
    return answer;
  };
}

/** Reservations on sqlite: a batch is one INSERT, whose trigger checks and holds each row in turn. */
function sqliteReservations(query: SqliteQuery): SpendBooks["reserve"] {
  let reserved = 0;
  return batchedReservations(async (batch) => {
    reserved += batch.length;
    // Books no start reserves in again keep their lapsed holds until swept here.
    if (reserved >= PRUNE_EVERY) {
      reserved = 0;
      await query("DELETE FROM spend_holds WHERE at <= ?", batch[0]!.hold.lapsedUpTo);
    }
    await query(
      `INSERT INTO spend_requests (hold, book, command, at, lapsed, items) VALUES ${marks(batch.length, 6)}`,
      ...batch.flatMap(({ book, hold }) => [
        hold.id,
        book,
        hold.command,
        hold.at,
        hold.lapsedUpTo,
        JSON.stringify(hold.items.map((item) => [item.field, item.credits ? 1 : 0, item.limit])),
      ]),
    );
    const rows = await query(
      `SELECT hold, refused FROM spend_requests WHERE hold IN (${batch.map(() => "?").join(", ")})`,
      ...batch.map(({ hold }) => hold.id),
    );
    const answers = new Map(rows.map((row) => [String(row.hold), row.refused]));
    return batch.map(({ hold }) => {
      const refused = answers.get(hold.id);
      // Its row gone already would mean its answer unknown: never taken as reserved.
      if (refused === undefined) throw new Error(`the answer to reservation ${hold.id} was not found`);
      if (typeof refused !== "string") return undefined;
      const [index, taken] = JSON.parse(refused) as [number, number];
      return { index, taken };
    });
  });
}

/** Settlements on sqlite: a burst's go in one INSERT, whose trigger carries out each row whole, in order. */
function sqliteSettlements(query: SqliteQuery): SpendBooks["settle"] {
  /** Each settled job's step as the ledger had it right after its batch, until its caller takes it. */
  const steps = new Map<string, number | undefined>();
  const settling = new Batch<Settlement>(
    async (items) => {
      await query(
        `INSERT INTO spend_settlements
           (adds, ledger, readings, job, cost_book, command, hold_book, hold, record_id, record_book, record_at, record)
         VALUES ${marks(items.length, 12)}`,
        ...items.flatMap((settlement) => {
          const { job, release: hold, record } = settlement;
          return [
            JSON.stringify(settlement.add.map((a) => [a.book, a.field, a.amount])),
            settlement.ledger,
            JSON.stringify(
              settlement.readings.map((r) => [
                r.creditsUsed,
                r.counters,
                r.probe ? 1 : 0,
                r.at,
                r.id,
                JSON.stringify(r.owners.map((o) => [o.book, o.field])),
              ]),
            ),
            job?.id ?? null,
            job?.cost.book ?? null,
            job?.cost.command ?? null,
            hold?.book ?? null,
            hold?.holdId ?? null,
            record?.id ?? null,
            record?.book ?? null,
            record?.at ?? null,
            record?.json ?? null,
          ];
        }),
      );
      const jobs = items.filter((settlement) => settlement.job);
      if (jobs.length === 0) return;
      // Each job's step up from the reading just below it (for the metric; a later reading may move it).
      const rows = await query(
        `SELECT mine.ledger, mine.id, mine.credits - (
           SELECT below.credits FROM spend_ledger AS below
           WHERE below.ledger = mine.ledger
             AND (below.credits, below.counters, below.probe, below.at, below.id)
               < (mine.credits, mine.counters, mine.probe, mine.at, mine.id)
           ORDER BY below.credits DESC, below.counters DESC, below.probe DESC, below.at DESC, below.id DESC
           LIMIT 1) AS step
         FROM spend_ledger AS mine WHERE (mine.ledger, mine.id) IN (VALUES ${marks(jobs.length, 2)})`,
        ...jobs.flatMap((settlement) => [settlement.ledger, settlement.job!.id]),
      );
      for (const row of rows) {
        steps.set(`${row.ledger} ${row.id}`, row.step === null ? undefined : Number(row.step));
      }
    },
    SETTLE_WINDOW_MS,
    SETTLE_BATCH,
  );

  return async (settlement) => {
    await settling.add(settlement);
    if (!settlement.job) return undefined;
    const key = `${settlement.ledger} ${settlement.job.id}`;
    const step = steps.get(key);
    steps.delete(key);
    return step;
  };
}

/**
 * Sets up the held sums once per file (HELD), in one transaction that takes the write lock first:
 * replicas opening the file together set it up once, and no hold lands between the sums of those
 * already there and the triggers that count the next ones.
 */
async function keepHeldSums(query: SqliteQuery): Promise<void> {
  await query("BEGIN IMMEDIATE");
  try {
    const [kept] = await query(
      "SELECT 1 AS kept FROM sqlite_master WHERE type = 'table' AND name = 'spend_held'",
    );
    if (!kept) for (const statement of HELD) await query(statement);
    await query("COMMIT");
  } catch (error) {
    await query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

async function sqliteBooks(query: SqliteQuery): Promise<SpendBooks> {
  for (const statement of SCHEMA) await query(statement);
  await keepHeldSums(query);
  const reserve = sqliteReservations(query);
  const settle = sqliteSettlements(query);
  return {
    reserve,
    async release(book, holdId) {
      await query("DELETE FROM spend_holds WHERE book = ? AND hold = ?", book, holdId);
    },
    settle,
    async tallies(book, fields) {
      if (fields?.length === 0) return {};
      const rows = fields
        ? await query(
            `SELECT field, amount FROM spend_tallies WHERE book = ? AND field IN (SELECT value FROM json_each(?))`,
            book,
            JSON.stringify(fields),
          )
        : await query("SELECT field, amount FROM spend_tallies WHERE book = ?", book);
      return Object.fromEntries(rows.map((row) => [String(row.field), Number(row.amount)]));
    },
    async holds(book) {
      const [row] = await query("SELECT COUNT(DISTINCT hold) AS holds FROM spend_holds WHERE book = ?", book);
      return Number(row?.holds ?? 0);
    },
    async records(of) {
      const rows =
        "ledger" in of
          ? await query("SELECT record FROM spend_records WHERE ledger = ? ORDER BY at, id", of.ledger)
          : await query("SELECT record FROM spend_records WHERE book = ? ORDER BY at, id", of.book);
      return rows.map((row) => String(row.record));
    },
    async forget(books, ledgers) {
      for (const book of books) {
        for (const table of ["spend_tallies", "spend_holds", "spend_costs", "spend_records"]) {
          await query(`DELETE FROM ${table} WHERE book = ?`, book);
        }
      }
      for (const ledger of ledgers) {
        for (const table of ["spend_ledger", "spend_records"]) {
          await query(`DELETE FROM ${table} WHERE ledger = ?`, ledger);
        }
      }
    },
  };
}
