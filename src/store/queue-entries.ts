import { z } from "zod";
import { platform, type TenantRef } from "../common/types.js";

/**
 * The jobs people asked for past their running limit, waiting their turn, and the running places
 * ("slots") of each tenant, so that every replica on the store decides who starts next as one.
 * Each step that decides is atomic on the store, as the budget's reservation is (spend-books.ts):
 * a Lua script on Redis, one statement on sqlite (its triggers carry out the rest inside it).
 *
 * An entry's life: `preparing` (asked for, its message not yet posted: it holds its place in its
 * person's order, but nobody starts it), `waiting`, `starting` (it holds a slot, owned by the
 * instance that starts it), `calling` (its creation call may be under way), then gone: the job's
 * record (the same id) takes over, and its slot stays until the job stops running. Or it ends
 * `cancelled` (before its creation call), `refused` (its start was refused: nothing charged) or
 * `interrupted` (its instance died during the creation call), and is kept for the lists a while.
 *
 * A slot is held by the job's id from `starting` until the core releases it (the job ended or waits
 * for a choice): the running limits count slots, never records read one by one.
 */

export const QUEUE_STATES = [
  "preparing",
  "waiting",
  "starting",
  "calling",
  "cancelled",
  "refused",
  "interrupted",
] as const;
export type QueueState = (typeof QUEUE_STATES)[number];
/** Waiting their turn: what a person's queue length counts. */
export const QUEUED: ReadonlySet<QueueState> = new Set(["preparing", "waiting"]);
/** Over for good: kept for the lists until the retention ends. */
export const ENDED: ReadonlySet<QueueState> = new Set(["cancelled", "refused", "interrupted"]);

export interface QueueLimits {
  /** Jobs one person may have running at once. */
  person: number;
  /** Jobs one person may have waiting. */
  queue: number;
  /** Jobs the tenant may have running at once; 0 for no limit. */
  tenant: number;
}

export interface QueueEntry {
  id: string;
  tenant: TenantRef;
  userId: string;
  /** The tenant's order of asking: a person's entries start by it. */
  seq: number;
  at: number;
  state: QueueState;
  /** The instance preparing or starting it. */
  owner: string | null;
  /** The core's record of what to start (JSON text), opaque here. */
  payload: string;
  /** The queued job's message (JSON text), once posted. */
  message: string | null;
  /** Why it ended refused or interrupted. */
  reason: string | null;
  endedAt: number | null;
}

export interface NewEntry {
  id: string;
  tenant: TenantRef;
  userId: string;
  at: number;
  payload: string;
  /** The instance asking: it starts the entry if it may start at once. */
  owner: string;
}

/**
 * `start`: it took a slot at once (state starting, the caller's); `queued`: it waits (state
 * preparing) behind `ahead` of its person's; `full`: its person's queue is full, nothing recorded.
 */
export type Enqueued = { outcome: "start" } | { outcome: "queued"; ahead: number } | { outcome: "full" };

/**
 * What a cancel did: `cancelled` it (no creation call will be made), found it cancelled `already`
 * (a double click), found it `started` (its creation call was under way or made: it runs on), or
 * `ended` (refused or interrupted before); `unknown` when no entry has the id.
 */
export type Cancel = "cancelled" | "already" | "started" | "ended" | "unknown";

export interface QueueStore {
  /** Records the entry, and starts it at once when its person and tenant have a place and nobody waits. */
  enqueue(entry: NewEntry, limits: QueueLimits): Promise<Enqueued>;
  /** A preparing entry's message is posted (or could not be): it waits from now on. */
  ready(id: string, message: string | null): Promise<boolean>;
  /**
   * The next entry of the tenant to start, if a place is free: the head of the queue of the
   * person with the fewest jobs running (then the one served longest ago, then the first asked)
   * among those under their limit. It is `owner`'s, starting, and holds a slot; answered whole, so
   * that a dispatcher starts it without reading it again.
   */
  pick(tenant: TenantRef, limits: QueueLimits, owner: string): Promise<QueueEntry | undefined>;
  /** A starting entry of `owner` goes on to its creation call; false when a cancel came first. */
  calling(id: string, owner: string): Promise<boolean>;
  /** The started job's record took over: the entry goes, its slot stays. */
  started(id: string): Promise<void>;
  /** A starting or calling entry ends refused or interrupted, and gives its slot back. */
  end(id: string, state: "refused" | "interrupted", reason: string, at: number): Promise<boolean>;
  /** A preparing or starting entry of a dead instance waits again at its place (its slot given back). */
  requeue(id: string, owner: string): Promise<boolean>;
  cancel(id: string, at: number): Promise<Cancel>;
  /** Gives back the slots of jobs no longer running. */
  release(tenant: TenantRef, ids: readonly string[]): Promise<void>;
  get(id: string): Promise<QueueEntry | undefined>;
  /** A person's entries waiting their turn (preparing, waiting), in order. */
  queuedOf(tenant: TenantRef, userId: string): Promise<QueueEntry[]>;
  /** A person's entries of every state, newest first (the ended ones while kept). */
  recentOf(tenant: TenantRef, userId: string, limit: number): Promise<QueueEntry[]>;
  /** The tenant's entries of every state, newest first. */
  recentOfTenant(tenant: TenantRef, limit: number): Promise<QueueEntry[]>;
  /** Who holds the tenant's running places. */
  slots(tenant: TenantRef): Promise<{ id: string; userId: string }[]>;
  /** The tenants with entries waiting their turn. */
  tenants(): Promise<TenantRef[]>;
  /** The entries an instance was preparing or starting. */
  ownedBy(owner: string): Promise<QueueEntry[]>;
}

/** Ended entries stay this long in the lists, as finished jobs do (JOB_RETENTION_DAYS). */
export interface QueueOptions {
  keepMs: number;
}

/** A tenant as the queue's keys and rows name it. */
export const tenantOfKey = (key: string): TenantRef => {
  const at = key.indexOf(":");
  return { platform: platform.parse(key.slice(0, at)), tenantId: key.slice(at + 1) };
};

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().catch(null);

/** A row or hash as the backends read it back, checked: a corrupt entry is skipped, never acted on. */
export const entrySchema = z.object({
  id: z.string().min(1),
  tenant: z
    .string()
    .regex(/^(discord|slack):./)
    .transform(tenantOfKey),
  userId: z.string().min(1),
  seq: z.coerce.number().int(),
  at: z.coerce.number().int(),
  state: z.enum(QUEUE_STATES),
  owner: nullable(z.string().min(1)),
  payload: z.string(),
  message: nullable(z.string().min(1)),
  reason: nullable(z.string().min(1)),
  endedAt: nullable(z.coerce.number().int()),
});

export function parseEntries(rows: readonly unknown[]): QueueEntry[] {
  return rows.flatMap((row) => {
    const parsed = entrySchema.safeParse(row);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The tenant limit as the steps compare it: "no limit" is a count never reached. */
export const tenantCap = (limits: QueueLimits) => (limits.tenant > 0 ? limits.tenant : 1_000_000_000);

/** What a cancel that changed nothing found. */
export function cancelAnswer(stored: unknown): Cancel {
  const parsed = z.enum(QUEUE_STATES).safeParse(stored);
  if (!parsed.success) return "unknown";
  const state = parsed.data;
  if (state === "cancelled") return "already";
  if (ENDED.has(state)) return "ended";
  return "started";
}
