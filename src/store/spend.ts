import { randomUUID } from "node:crypto";
import type Keyv from "keyv";
import { z } from "zod";
import { type Claims, type Lease, withClaim } from "./claims.js";
import type { Indexes } from "./indexes.js";
import type { TenantRef } from "./jobs.js";
import { readRecord } from "./records.js";

/**
 * What the bot spent, kept in keyv namespace `spend`: one record per job (who, where, what, and the
 * account readings around its charge), probe readings, the budgets of each tenant and their
 * book per period. Attribution and budget rules live in the core (src/core/spend); this is only
 * where their records are kept, on sqlite and on Redis alike.
 */

const counters = z.record(z.string(), z.number());
const reading = z.object({ creditsUsed: z.number(), counters, at: z.number() });
export type StoredReading = z.infer<typeof reading>;

const tenantRef = z.object({ platform: z.enum(["discord", "slack"]), tenantId: z.string() });

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

const hold = z.object({
  /** Counted as `scope key -> unit -> amount`, given back or replaced as the start ends. */
  amounts: z.record(z.string(), z.record(z.string(), z.number())),
  command: z.string(),
  at: z.number(),
});
/** A reading of the period kept in the book; a job's carries where it was counted and what it was charged. */
const recentReading = reading.extend({
  jobId: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  charged: z.number().optional(),
});

const book = z.object({
  /** scope key ("user:U1", "role:R1", "channel:C1", "everyone") -> unit -> amount used. */
  used: z.record(z.string(), z.record(z.string(), z.number())),
  held: z.record(z.string(), hold),
  /** The last real cost of each command: what a credit budget reserves for its next start. */
  lastCost: z.record(z.string(), z.number()),
  /** The period's latest readings of this tenant's jobs, by which new ones are priced (budgets.ts). */
  recent: z.array(recentReading).default([]),
});
export type BudgetBook = z.infer<typeof book>;
export type BudgetHold = z.infer<typeof hold>;

/** A period's records are kept well past its end, for the last exports and late readings. */
const KEEP_MS = 400 * 24 * 3600_000;

const tenantName = (tenant: TenantRef) => `${tenant.platform}:${tenant.tenantId}`;

export class SpendStore {
  constructor(
    private readonly keyv: Keyv<unknown>,
    private readonly indexes: Indexes,
    private readonly claims: Claims,
  ) {}

  /** A job's spending, findable by its key's period (attribution) and its tenant's (reports). */
  async putJob(record: JobSpend): Promise<void> {
    const parsed = jobSpend.parse(record);
    await this.keyv.set(`job:${parsed.jobId}`, parsed, KEEP_MS);
    const entry = { id: `job:${parsed.jobId}`, at: parsed.at };
    await this.indexes.add(`spend:key:${parsed.keyId}:${parsed.period}`, entry);
    await this.indexes.add(`spend:tenant:${tenantName(parsed.tenant)}:${parsed.period}`, entry);
  }

  async putProbe(keyId: string, period: string, value: StoredReading): Promise<void> {
    const id = `probe:${randomUUID()}`;
    await this.keyv.set(id, probe.parse({ keyId, period, reading: value }), KEEP_MS);
    await this.indexes.add(`spend:key:${keyId}:${period}`, { id, at: value.at });
  }

  /** Every job and probe of one key's period: what attribution reads. */
  async ofKey(keyId: string, period: string): Promise<{ jobs: JobSpend[]; probes: StoredReading[] }> {
    const values = await this.many(await this.indexes.list(`spend:key:${keyId}:${period}`));
    const jobs: JobSpend[] = [];
    const probes: StoredReading[] = [];
    for (const value of values) {
      const asJob = jobSpend.safeParse(value);
      if (asJob.success) jobs.push(asJob.data);
      else {
        const asProbe = probe.safeParse(value);
        if (asProbe.success) probes.push(asProbe.data.reading);
      }
    }
    return { jobs, probes };
  }

  /** The tenant's jobs of a period, oldest first. */
  async ofTenant(tenant: TenantRef, period: string): Promise<JobSpend[]> {
    const values = await this.many(await this.indexes.list(`spend:tenant:${tenantName(tenant)}:${period}`));
    return values.flatMap((value) => {
      const parsed = jobSpend.safeParse(value);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** The period a key was last seen in (its usage_reset_date), for calls made without a fresh reading. */
  async period(keyId: string): Promise<string | undefined> {
    return (await readRecord(this.keyv, `period:${keyId}`, z.object({ period: z.string() })))?.period;
  }

  async setPeriod(keyId: string, period: string): Promise<void> {
    await this.keyv.set(`period:${keyId}`, { period }, KEEP_MS);
  }

  async budgets(tenant: TenantRef): Promise<Budget[]> {
    return (await readRecord(this.keyv, `budgets:${tenantName(tenant)}`, budgets))?.rules ?? [];
  }

  /** Changes the tenant's budgets under its lock: two admins' edits do not clobber each other. */
  async changeBudgets(tenant: TenantRef, change: (rules: Budget[]) => Budget[]): Promise<Budget[]> {
    const key = `budgets:${tenantName(tenant)}`;
    return withClaim(this.claims, `lock:${key}`, async (lease) => {
      const rules = z.array(budget).parse(change((await readRecord(this.keyv, key, budgets))?.rules ?? []));
      await lease.confirm();
      await this.keyv.set(key, { rules, updatedAt: Date.now() });
      return rules;
    });
  }

  async book(tenant: TenantRef, period: string): Promise<BudgetBook> {
    return (await readRecord(this.keyv, bookKey(tenant, period), book)) ?? emptyBook();
  }

  /**
   * Reads, changes and writes a tenant's book of one period under the tenant's budget lock, which
   * every replica on the store takes: the check and the reservation are one step for them all.
   */
  async withBook<T>(
    tenant: TenantRef,
    period: string,
    work: (book: BudgetBook) => { book?: BudgetBook; result: T },
    { waitMs }: { waitMs?: number } = {},
  ): Promise<T> {
    const key = bookKey(tenant, period);
    return withClaim(
      this.claims,
      `lock:budget:${tenantName(tenant)}`,
      async (lease: Lease) => {
        const { book: next, result } = work((await readRecord(this.keyv, key, book)) ?? emptyBook());
        if (next) {
          await lease.confirm();
          await this.keyv.set(key, book.parse(next), KEEP_MS);
        }
        return result;
      },
      waitMs === undefined ? {} : { waitMs },
    );
  }

  private async many(entries: readonly { id: string }[]): Promise<unknown[]> {
    if (entries.length === 0) return [];
    const values = await this.keyv.getMany(entries.map((entry) => entry.id));
    return values.filter((value) => value !== undefined && value !== null);
  }
}

const bookKey = (tenant: TenantRef, period: string) => `book:${tenantName(tenant)}:${period}`;

function emptyBook(): BudgetBook {
  return { used: {}, held: {}, lastCost: {}, recent: [] };
}
