import type Keyv from "keyv";
import { z } from "zod";
import { platform, type TenantRef, tenantKey } from "../common/types.js";
import { type Claims, replicatedWrite, withClaim } from "./claims.js";
import type { Indexes } from "./indexes.js";
import { readRecord } from "./records.js";
import type { Hold, LedgerReading, Refused, SpendBooks } from "./spend-books.js";

/**
 * What the bot spent: the budgets of each tenant (keyv namespace `spend`), and in spend-books.ts
 * one record per job (who, where, what, and the account readings around its charge), the sums
 * (budgets' standing, spending by person, kind and day) and the ledger that prices every job.
 * Records of earlier versions, kept in the keyv namespace under indexes, are still read. Attribution and budget rules live in the core (src/core/spend); this is only
 * where their records are kept, on sqlite and on Redis alike.
 */

const counters = z.record(z.string(), z.number());
const reading = z.object({ creditsUsed: z.number(), counters, at: z.number() });
export type StoredReading = z.infer<typeof reading>;

const tenantRef = z.object({ platform, tenantId: z.string() });

const jobSpend = z.object({
  jobId: z.string(),
  serviceJobId: z.string(),
  tenant: tenantRef,
  userId: z.string(),
  channelId: z.string(),
  kind: z.string(),
  command: z.string(),
  /** A hash of the API key, never the key: readings of one key are attributed together. */
  keyId: z.string(),
  period: z.string(),
  at: z.number(),
  /** The probe right before the creation call, when it answered. */
  before: reading.optional(),
  /** The figures right after its own charge. */
  after: reading.optional(),
  /** The after-reading came from a GET after the call, not from the call's own answer. */
  approximate: z.boolean().optional(),
});
export type JobSpend = z.infer<typeof jobSpend>;

const probe = z.object({ keyId: z.string(), period: z.string(), reading });

export const BUDGET_SCOPES = ["user", "role", "channel", "everyone"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

const budget = z.object({
  scope: z.enum(BUDGET_SCOPES),
  /** The user, role or channel id; "*" on a user budget: each person, separately. */
  id: z.string(),
  /** "credits", "jobs" (any kind), or a spend kind ("image", "cinematic"...): jobs of that kind. */
  unit: z.string(),
  limit: z.number().int().nonnegative(),
});
export type Budget = z.infer<typeof budget>;
const budgets = z.object({ rules: z.array(budget), updatedAt: z.number() });

/**
 * A period's records are kept until two periods later (`KEPT_PERIODS`), and never longer than
 * this: a key that is no longer used leaves nothing behind for good.
 */
export const SPEND_KEEP_MS = 400 * 24 * 3600_000;
const KEEP_MS = SPEND_KEEP_MS;

/** The periods of a key whose records, sums and indexes are kept: the current one and the one before. */
const KEPT_PERIODS = 2;
/** Records read at a time when a period is forgotten. */
const FORGET_SLICE = 500;

/** A tenant's book of one period: its budgets' standing and its spending's sums. */
export interface BookRef {
  tenant: TenantRef;
  period: string;
}

/** Where a sum goes: the tenant's book, or the person's own in it (their view of their spending). */
export interface Field {
  person?: true;
  field: string;
}

/** A reading kept in the ledger; a probe's id names it, so that starts sharing one probe file it once. */
export type LedgerProbe = StoredReading & { id: string };

export interface JobSettlement {
  /** The book the job is counted in (its charge's period). */
  book: BookRef;
  userId: string;
  jobId: string;
  command: string;
  keyId: string;
  /** Each counted one more job. */
  counts: readonly Field[];
  /** Where the job's credits go, once the ledger measures them. */
  charged: readonly Field[];
  before?: LedgerProbe;
  after?: StoredReading;
  /** The reservation it replaces. */
  hold?: { book: BookRef; holdId: string };
  /** The job's record, for the export, kept in the same step (a tracked job's). */
  record?: JobSpend;
}

const bookId = (book: BookRef) => `t:${tenantKey(book.tenant)}:${book.period}`;
const personBookId = (book: BookRef, userId: string) =>
  `p:${tenantKey(book.tenant)}:${userId}:${book.period}`;
const keyBookId = (keyId: string, period: string) => `k:${keyId}:${period}`;
const ledgerId = (keyId: string, period: string) => `l:${keyId}:${period}`;
const keyIndex = (keyId: string, period: string) => `spend:key:${keyId}:${period}`;
const tenantIndex = (tenant: TenantRef, period: string) => `spend:tenant:${tenantKey(tenant)}:${period}`;

/** The sum of a reading's per-type counters: the service's order among equal credits. */
const counterSum = (reading: StoredReading) => Object.values(reading.counters).reduce((a, b) => a + b, 0);

export const OUTSIDE = "outside|credits";

export class SpendStore {
  constructor(
    private readonly keyv: Keyv<unknown>,
    private readonly indexes: Indexes,
    private readonly claims: Claims,
    private readonly books: SpendBooks,
  ) {}

  /** Every job and probe of one key's period: what the export's attribution reads. */
  async ofKey(keyId: string, period: string): Promise<{ jobs: JobSpend[]; probes: StoredReading[] }> {
    const values = [
      ...(await this.books.records({ ledger: ledgerId(keyId, period) })).map(parseJson),
      ...(await this.legacy(keyIndex(keyId, period))),
    ];
    const jobs: JobSpend[] = [];
    const probes: StoredReading[] = [];
    for (const value of values) {
      const asJob = jobSpend.safeParse(value);
      if (asJob.success) jobs.push(asJob.data);
      else {
        // Probes of earlier versions, which kept the account views read as records of their own.
        const asProbe = probe.safeParse(value);
        if (asProbe.success) probes.push(asProbe.data.reading);
      }
    }
    return { jobs, probes };
  }

  /** The tenant's jobs of a period, oldest first. */
  async ofTenant(tenant: TenantRef, period: string): Promise<JobSpend[]> {
    const values = [
      ...(await this.legacy(tenantIndex(tenant, period))),
      ...(await this.books.records({ book: bookId({ tenant, period }) })).map(parseJson),
    ];
    return values.flatMap((value) => {
      const parsed = jobSpend.safeParse(value);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** Records of earlier versions, kept in the keyv namespace under an index of their period. */
  private async legacy(index: string): Promise<unknown[]> {
    return this.many(await this.indexes.list(index));
  }

  /** The period a key was last seen in (its usage_reset_date), for calls made without a fresh reading. */
  async period(keyId: string): Promise<string | undefined> {
    return (await readRecord(this.keyv, `period:${keyId}`, z.object({ period: z.string() })))?.period;
  }

  /**
   * A key's period as it changes: kept for the starts without a reading. Answers the periods of
   * the key older than the one before, no longer kept: each is answered once, to one caller
   * (the trim is atomic), who forgets it (`forgetPeriod`), so that nothing grows period after period.
   */
  async setPeriod(keyId: string, period: string): Promise<string[]> {
    await this.keyv.set(`period:${keyId}`, { period }, KEEP_MS);
    const seen = `spend:periods:${keyId}`;
    await this.indexes.add(seen, { id: period, at: Date.now() });
    return this.indexes.trim(seen, KEPT_PERIODS);
  }

  /** Deletes a key's period: its jobs' records, the sums and the ledger (and earlier versions' indexes). */
  async forgetPeriod(keyId: string, period: string): Promise<void> {
    const index = keyIndex(keyId, period);
    const legacy = await this.indexes.list(index);
    const books = new Set([keyBookId(keyId, period)]);
    const tenantIndexes = new Set<string>();
    const note = (value: unknown) => {
      const job = jobSpend.safeParse(value);
      if (!job.success) return;
      const book = { tenant: job.data.tenant, period };
      books.add(bookId(book));
      books.add(personBookId(book, job.data.userId));
      tenantIndexes.add(tenantIndex(job.data.tenant, period));
    };
    for (const record of await this.books.records({ ledger: ledgerId(keyId, period) }))
      note(parseJson(record));
    for (let start = 0; start < legacy.length; start += FORGET_SLICE) {
      const slice = legacy.slice(start, start + FORGET_SLICE);
      for (const value of await this.many(slice)) note(value);
      await this.keyv.delete(slice.map((entry) => entry.id));
    }
    await this.books.forget([...books], [ledgerId(keyId, period)]);
    for (const name of [...tenantIndexes, index]) await this.indexes.trim(name, 0);
  }

  async budgets(tenant: TenantRef): Promise<Budget[]> {
    return (await readRecord(this.keyv, `budgets:${tenantKey(tenant)}`, budgets))?.rules ?? [];
  }

  /** Changes the tenant's budgets under its lock: two admins' edits do not clobber each other. */
  async changeBudgets(tenant: TenantRef, change: (rules: Budget[]) => Budget[]): Promise<Budget[]> {
    const key = `budgets:${tenantKey(tenant)}`;
    return withClaim(this.claims, `lock:${key}`, async (lease) => {
      const rules = z.array(budget).parse(change((await readRecord(this.keyv, key, budgets))?.rules ?? []));
      await lease.confirm();
      await this.keyv.set(key, { rules, updatedAt: Date.now() });
      return rules;
    });
  }

  /**
   * Reserves what a start may cost in `book`, checked against every budget's limit in the same
   * atomic step (spend-books.ts): every replica's starts are checked as one. Answers the item it
   * would break, if any.
   */
  reserve(book: BookRef, hold: Hold): Promise<Refused | undefined> {
    return this.books.reserve(bookId(book), hold);
  }

  /** A start refused or failed before anything was charged: its reservation is given back. */
  release(book: BookRef, holdId: string): Promise<void> {
    return this.books.release(bookId(book), holdId);
  }

  /**
   * The job is counted, its readings filed in its key's ledger (which prices it and moves its
   * neighbour's price), its record kept for the export, and its reservation given back, in one
   * step, held by a replica before it answers (its reservation stood for it until then: a
   * failover must not drop both). Answers its credits when measured.
   */
  settle(job: JobSettlement): Promise<number | undefined> {
    const { book, userId, keyId } = job;
    const period = book.period;
    const own = bookId(book);
    const person = personBookId(book, userId);
    const where = (f: Field) => ({ book: f.person ? person : own, field: f.field });
    const readings: LedgerReading[] = [];
    if (job.before) {
      const owners = [{ book: keyBookId(keyId, period), field: OUTSIDE }];
      readings.push({ ...ledgerOf(job.before), id: job.before.id, probe: true, owners });
    }
    if (job.after) {
      readings.push({ ...ledgerOf(job.after), id: job.jobId, probe: false, owners: job.charged.map(where) });
    }
    return replicatedWrite(this.claims, () =>
      this.books.settle({
        id: `${ledgerId(keyId, period)}:${job.jobId}`,
        add: job.counts.map((f) => ({ ...where(f), amount: 1 })),
        ledger: ledgerId(keyId, period),
        readings,
        ...(job.after && { job: { id: job.jobId, cost: { book: own, command: job.command } } }),
        ...(job.hold && { release: { book: bookId(job.hold.book), holdId: job.hold.holdId } }),
        ...(job.record && { record: recordOf(job.record) }),
      }),
    );
  }

  /** The sums of a tenant's period (budgets' standing, everyone's spending), or only `fields` of them. */
  tallies(book: BookRef, fields?: readonly string[]): Promise<Record<string, number>> {
    return this.books.tallies(bookId(book), fields);
  }

  /** How many starts under way hold a reservation in `book`. */
  holds(book: BookRef): Promise<number> {
    return this.books.holds(bookId(book));
  }

  /** The sums of one person's spending in a tenant's period (by kind, by day). */
  personTallies(book: BookRef, userId: string): Promise<Record<string, number>> {
    return this.books.tallies(personBookId(book, userId));
  }

  /** Credits spent on the key in the period outside the bot's jobs. */
  async outside(keyId: string, period: string): Promise<number> {
    return (await this.books.tallies(keyBookId(keyId, period)))[OUTSIDE] ?? 0;
  }

  private async many(entries: readonly { id: string }[]): Promise<unknown[]> {
    if (entries.length === 0) return [];
    const values = await this.keyv.getMany(entries.map((entry) => entry.id));
    return values.filter((value) => value !== undefined && value !== null);
  }
}

/**
 * A job's record as the books keep it: under its key's period and its tenant's. Written as the
 * types say it is (the reads check each record against the schema).
 */
function recordOf(record: JobSpend) {
  const book = bookId({ tenant: record.tenant, period: record.period });
  return { id: record.jobId, book, at: record.at, json: JSON.stringify(record) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function ledgerOf(reading: StoredReading): Pick<LedgerReading, "creditsUsed" | "counters" | "at"> {
  return { creditsUsed: reading.creditsUsed, counters: counterSum(reading), at: reading.at };
}
