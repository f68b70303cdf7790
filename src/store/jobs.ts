import { randomBytes } from "node:crypto";
import type Keyv from "keyv";
import type { Logger } from "pino";
import { z } from "zod";
import { type Json, json, type Platform, platform, type TenantRef } from "../common/types.js";
import { Batch } from "./batch.js";
import { type Claims, withClaim } from "./claims.js";
import { StoreError } from "./errors.js";
import type { IndexEntry, Indexes } from "./indexes.js";
import type { JobKind, JobState } from "./job-kinds.js";
import { checkRecord, parseRecord, readRecord, toJson, withoutLive } from "./records.js";
import { serialize } from "./serialize.js";
import type { RecordSwap } from "./swap.js";

export interface Requester {
  platform: Platform;
  /** Discord guild or Slack team of the user. */
  tenantId: string;
  userId: string;
}

/**
 * Delivery is its own field rather than a `delivering` job state, because it is orthogonal to
 * what the service reported: a failed job is delivered too (its failure message), and a crash in
 * the middle of a delivery must leave both "the job is done" and "posting it had started" on
 * record. `delivering` is only entered under a claim on the job (see the engine).
 */
export type Delivery = "pending" | "delivering" | "delivered";

export interface JobRecord {
  /** Ours: 12 URL-safe characters, so it fits in a Discord custom_id or Slack action value. */
  id: string;
  /** Starts at 1 and grows by one with every update; the compare-and-set token of `update`. */
  version: number;
  kind: JobKind;
  /** Catalogue command that started it: "image.generate", "photo_avatar.design", ... */
  command: string;
  serviceJobId: string;
  requester: Requester;
  tenant: TenantRef;
  /** Where the command was issued (the adapter's ConversationRef), kept as plain JSON. */
  conversation: Json;
  /** The job's one message (the adapter's MessageRef), edited until the result. */
  message: Json;
  state: JobState;
  delivery: Delivery;
  /** 0-100, or null while the service has said nothing. */
  progress: number | null;
  /** Failed tries (status reads, deliveries) since the last success; the engine's backoff input. */
  attempts: number;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** When state or progress last changed; set by the store, for stuck detection. */
  lastProgressAt: number;
  nextPollAt: number;
  /** What regenerating needs (the validated options); opaque to the store. */
  inputs: Json;
  /** What the job yielded (the service's result, what delivery posted); null until there is one. */
  result: Json;
  error: { code: string; message: string } | null;
  /**
   * Set when its requester (or an admin) deleted its result: the message is gone (or shows the
   * result no more), its follow-ups act no more, and the jobs list shows it deleted.
   */
  deleted?: { by: string; at: number };
}

export interface NewJob {
  kind: JobKind;
  command: string;
  serviceJobId: string;
  /** Extra fields (an Actor's isAdmin, roleIds) are not stored. */
  requester: Requester;
  /** Defaults to the requester's tenant. */
  tenant?: TenantRef;
  /** Stored as JSON text stores it (undefined properties dropped). */
  conversation: unknown;
  message: unknown;
  inputs: unknown;
  /** Defaults to now. */
  nextPollAt?: number;
  /**
   * Defaults to a new one (newJobId). A create tried again after the store was away passes the
   * id of the first try: a write that landed before its answer was lost is written over, not doubled.
   */
  id?: string;
}

export function newJobId(): string {
  return randomBytes(9).toString("base64url");
}

/** The fields an update may change; the store keeps id, version, timestamps and origin. */
export type JobPatch = Partial<
  Pick<
    JobRecord,
    "serviceJobId" | "state" | "delivery" | "progress" | "attempts" | "nextPollAt" | "error" | "deleted"
  > & {
    message: unknown;
    inputs: unknown;
    result: unknown;
  }
>;

export type UpdateResult =
  | { ok: true; job: JobRecord }
  /** Someone wrote the job since `expectedVersion` was read: `job` is what is stored now. */
  | { ok: false; reason: "stale"; job: JobRecord }
  | { ok: false; reason: "missing" };

export interface JobStoreOptions {
  /** How long a finished (terminal and delivered) job stays readable; default 30 days. */
  retentionMs?: number;
}

const JOB_KINDS = {
  video: true,
  photo_avatar: true,
  image: true,
  mockup: true,
  thumbnail: true,
} satisfies Record<JobKind, true>;
const JOB_STATES = {
  queued: true,
  working: true,
  retrying: true,
  needs_choice: true,
  done: true,
  failed: true,
} satisfies Record<JobState, true>;

const JOB_ID = /^[A-Za-z0-9_-]{12}$/;
const text = z.string().min(1);
const time = z.number().int().nonnegative();

const jobObject = z.object({
  id: z.string().regex(JOB_ID),
  version: z.number().int().positive(),
  kind: z.enum(Object.keys(JOB_KINDS) as [JobKind, ...JobKind[]]),
  command: text,
  serviceJobId: text,
  requester: z.object({ platform, tenantId: text, userId: text }),
  tenant: z.object({ platform, tenantId: text }),
  conversation: json,
  message: json,
  state: z.enum(Object.keys(JOB_STATES) as [JobState, ...JobState[]]),
  delivery: z.enum(["pending", "delivering", "delivered"]),
  progress: z.number().min(0).max(100).nullable(),
  attempts: z.number().int().nonnegative(),
  createdAt: time,
  updatedAt: time,
  lastProgressAt: time,
  nextPollAt: time,
  inputs: json,
  result: json,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  deleted: z.object({ by: text, at: time }).optional(),
});
const jobSchema: z.ZodType<JobRecord> = jobObject;
/**
 * What an update checks: the fields it changes, by the record's own rules. The rest of the record
 * was checked when it was read, so the whole record need not be parsed again at every progress tick.
 */
const patchSchema = jobObject
  .pick({
    serviceJobId: true,
    state: true,
    delivery: true,
    progress: true,
    attempts: true,
    nextPollAt: true,
    error: true,
    deleted: true,
    message: true,
    inputs: true,
    result: true,
  })
  .partial();

const UNFINISHED = "jobs:unfinished";
const LEGACY_UNFINISHED = "index:unfinished";
/** Enough for the `jobs` command and the concurrency count; older entries fall off. */
const PER_REQUESTER = 100;
/** What `jobs --all` shows an admin of a server or workspace; older entries fall off. */
const PER_TENANT = 200;
/**
 * An index entry is written before its record (see `create`), so a missing record is only
 * dropped from an index once it is older than this: by then its create has either finished or
 * died, or the record expired.
 */
const MISSING_GRACE_MS = 60_000;
const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const RUNNING: ReadonlySet<JobState> = new Set(["queued", "working", "retrying"]);
/** What the service ended the job with: final, whatever its delivery still has to do. */
const ENDED: ReadonlySet<JobState> = new Set(["done", "failed"]);
/** How long finished jobs gather before they leave the unfinished index in one command. */
const FINISHING_WINDOW_MS = 20;
/** Records per read of many: one statement (sqlite) or MGET (redis) each. */
const READ_SLICE = 500;

interface Read {
  id: string;
  job: JobRecord | undefined;
  corrupt?: true;
}

/** Terminal and delivered: nothing left to poll or post. Such a job is final. */
export function isFinished(job: JobRecord): boolean {
  return (job.state === "done" || job.state === "failed") && job.delivery === "delivered";
}

/**
 * Jobs in keyv namespace `jobs`, one record per job under its id, plus indexes (see indexes.ts)
 * of the unfinished jobs (resume on start), of each requester's recent jobs and of each
 * requester's running ones (the per-person limit, checked on every command).
 *
 * Stale writers: `update` is a compare-and-set on `version`, done under a short claim on the job,
 * so of two writers that read the same version only the first one's write lands; the other gets
 * `stale` with the current record and decides again.
 */
export class JobStore {
  /** How long a finished job stays readable (JOB_RETENTION_DAYS). */
  readonly retentionMs: number;
  /**
   * Finished jobs leave the unfinished index together, one command for all that finish within a
   * few milliseconds: lost to a crash, the entry is dropped by the next listing, which reads the
   * record finished.
   */
  private readonly finishing = new Batch<string>(
    (ids) => this.indexes.remove(UNFINISHED, ids),
    FINISHING_WINDOW_MS,
  );

  constructor(
    private readonly keyv: Keyv<unknown>,
    /** The same namespace's records, for the compare-and-swap of `update`. */
    private readonly records: RecordSwap,
    private readonly claims: Claims,
    private readonly indexes: Indexes,
    private readonly logger: Pick<Logger, "error">,
    options: JobStoreOptions = {},
  ) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  async create(input: NewJob): Promise<JobRecord> {
    const now = Date.now();
    const job = jobSchema.parse({
      id: input.id ?? newJobId(),
      version: 1,
      kind: input.kind,
      command: input.command,
      serviceJobId: input.serviceJobId,
      requester: input.requester,
      tenant: input.tenant ?? { platform: input.requester.platform, tenantId: input.requester.tenantId },
      // A job posts to its conversation only with the bot token (keyed posts), so the gesture's
      // credentials are not kept with it; its message keeps them while the job may edit it.
      conversation: withoutLive(toJson(input.conversation)),
      message: toJson(input.message),
      state: "queued",
      delivery: "pending",
      progress: null,
      attempts: 0,
      createdAt: now,
      updatedAt: now,
      lastProgressAt: now,
      nextPollAt: input.nextPollAt ?? now,
      inputs: toJson(input.inputs),
      result: null,
      error: null,
    });
    // Indexes first: an entry whose record is missing is skipped, while a record that no index
    // names would never be resumed after a crash right here.
    const entry = { id: job.id, at: now };
    await Promise.all([
      this.indexes.add(UNFINISHED, entry),
      this.indexes.add(requesterKey(job.requester), entry, PER_REQUESTER),
      this.indexes.add(runningKey(job.requester), entry),
      this.indexes.add(tenantJobsKey(job.tenant), entry, PER_TENANT),
    ]);
    await this.keyv.set(job.id, job);
    return job;
  }

  /**
   * Stores written before indexes.ts kept the unfinished jobs in one keyv record: its ids move to
   * the index, so that an upgrade resumes the jobs that were running. Idempotent.
   */
  async adoptLegacyIndex(): Promise<void> {
    let entries: IndexEntry[] | undefined;
    try {
      entries = await readRecord(
        this.keyv,
        LEGACY_UNFINISHED,
        z.array(z.object({ id: z.string(), at: time })),
      );
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "store.corrupt")) throw error;
      this.logger.error({ err: error }, "old index of unfinished jobs unreadable: its jobs are not resumed");
      return;
    }
    if (entries === undefined) return;
    for (const entry of entries) await this.indexes.add(UNFINISHED, entry);
    await this.keyv.delete(LEGACY_UNFINISHED);
  }

  /** Undefined for an unknown (or expired, or malformed) id; a corrupt record throws `store.corrupt`. */
  async get(id: string): Promise<JobRecord | undefined> {
    if (!JOB_ID.test(id)) return undefined;
    return readRecord(this.keyv, id, jobSchema);
  }

  /**
   * The jobs of `ids` that exist, read a slice at a time in one statement each (an engine taking up
   * thousands of jobs at start); corrupt records are reported and left out, like unknown ids.
   */
  async getMany(ids: readonly string[]): Promise<JobRecord[]> {
    return (await this.readMany(ids)).flatMap(({ job }) => (job ? [job] : []));
  }

  private async readMany(ids: readonly string[]): Promise<Read[]> {
    const reads: Read[] = [];
    for (let start = 0; start < ids.length; start += READ_SLICE) {
      const slice = ids.slice(start, start + READ_SLICE);
      const valid = slice.filter((id) => JOB_ID.test(id));
      let stored: Map<string, unknown>;
      try {
        const values: unknown[] = valid.length > 0 ? await this.keyv.getMany(valid, { raw: true }) : [];
        stored = new Map(valid.map((id, i) => [id, values[i]]));
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        // A record that is not JSON spoils the whole read: this slice is read one by one instead.
        for (const id of slice) reads.push(await this.readOne(id));
        continue;
      }
      for (const id of slice) {
        try {
          reads.push({ id, job: checkRecord(this.keyv.namespace, id, stored.get(id), jobSchema) });
        } catch (error) {
          reads.push(this.corrupt(id, error));
        }
      }
    }
    return reads;
  }

  private async readOne(id: string): Promise<Read> {
    try {
      return { id, job: await this.get(id) };
    } catch (error) {
      return this.corrupt(id, error);
    }
  }

  private corrupt(id: string, error: unknown): Read {
    if (!(error instanceof StoreError && error.code === "store.corrupt")) throw error;
    this.logger.error({ err: error, jobId: id }, "corrupt job record skipped");
    return { id, job: undefined, corrupt: true };
  }

  /**
   * Applies `patch` if the stored job is still at `expectedVersion`. `lastProgressAt` moves when
   * state or progress change. A finished job is final: a patch that would reopen it throws, as
   * does one that would run an ended (done, failed) job again.
   *
   * The write is a compare-and-swap on the version (swap.ts), so a progress tick costs a read and
   * a write, or the write alone when the caller hands in the record as stored at that version
   * (`known`: as read, or as an update returned it); a writer that got in between makes this one
   * stale either way. An update that moves the job in or out of the running states also changes
   * the running index: its swap and index change happen under the job's lock, so that the index
   * changes of two such updates land in the order of their swaps (but for a job that ends, see
   * below). If an index change is lost to a crash, the readers drop the entry when they see the
   * record.
   */
  async update(
    id: string,
    expectedVersion: number,
    patch: JobPatch,
    known?: JobRecord,
  ): Promise<UpdateResult> {
    const changes = patchSchema.parse(toJson(patch)) as Partial<JobRecord>;
    if (!JOB_ID.test(id)) return { ok: false, reason: "missing" };
    let current = known?.id === id && known.version === expectedVersion ? known : undefined;
    if (!current) {
      const text = await this.records.read(id);
      current = text === undefined ? undefined : this.parse(id, text);
      if (!current) return { ok: false, reason: "missing" };
      if (current.version !== expectedVersion) return { ok: false, reason: "stale", job: current };
    }
    const now = Date.now();
    const moved =
      (changes.state !== undefined && changes.state !== current.state) ||
      (changes.progress !== undefined && changes.progress !== current.progress);
    const next: JobRecord = {
      ...current,
      ...changes,
      version: current.version + 1,
      updatedAt: now,
      lastProgressAt: moved ? now : current.lastProgressAt,
    };
    if (isFinished(next)) next.message = withoutLive(next.message);
    if (isFinished(current) && !isFinished(next)) {
      throw new Error(`job ${id} is finished (${current.state}, delivered) and cannot be reopened`);
    }
    if (ENDED.has(current.state) && RUNNING.has(next.state)) {
      throw new Error(`job ${id} ended (${current.state}) and cannot run again`);
    }
    const ttlMs = isFinished(next) ? this.retentionMs : undefined;
    const stored = serialize({ value: next, expires: ttlMs === undefined ? undefined : now + ttlMs });
    const swap = async (): Promise<UpdateResult> => {
      if (await this.records.swap(id, expectedVersion, stored, ttlMs)) return { ok: true, job: next };
      // Someone wrote in between: what is stored now decides (stale, or missing if it expired).
      const fresh = await this.get(id);
      return fresh ? { ok: false, reason: "stale", job: fresh } : { ok: false, reason: "missing" };
    };
    const enters = RUNNING.has(next.state) && !RUNNING.has(current.state);
    const leaves = !RUNNING.has(next.state) && RUNNING.has(current.state);
    // A job that ends never runs again (see the check above), so no later change of the running
    // index can be overtaken by this one's removal: it needs no lock, which cost two statements of
    // every delivery (bench/results/jobs-50k.md). Lost to a crash, or landing before an earlier
    // writer's add, the entry is dropped by the next count, which reads the record ended.
    const ends = leaves && ENDED.has(next.state);
    const running = runningKey(next.requester);
    let result: UpdateResult;
    if ((enters || leaves) && !ends) {
      result = await withClaim(this.claims, `lock:jobs:${id}`, async () => {
        const swapped = await swap();
        if (swapped.ok && enters) await this.indexes.add(running, { id, at: next.createdAt });
        if (swapped.ok && leaves) await this.indexes.remove(running, [id]);
        return swapped;
      });
    } else {
      result = await swap();
      if (result.ok && ends) await this.indexes.remove(running, [id]);
    }
    if (result.ok && isFinished(result.job)) await this.finishing.add(id);
    return result;
  }

  private parse(id: string, text: string): JobRecord | undefined {
    return parseRecord(this.keyv.namespace, id, text, jobSchema);
  }

  /**
   * Every job with something left to do (polling, a choice, a delivery), oldest first, a page at
   * a time: ten thousand records read at once would all sit in memory together (measured with
   * bench/jobs).
   */
  async *listUnfinished(pageSize = 250): AsyncGenerator<JobRecord[]> {
    const entries = await this.indexes.list(UNFINISHED);
    for (let start = 0; start < entries.length; start += pageSize) {
      const jobs = await this.load(UNFINISHED, entries.slice(start, start + pageSize), isFinished);
      const page = jobs.filter((job) => !isFinished(job)).sort((a, b) => a.createdAt - b.createdAt);
      if (page.length > 0) yield page;
    }
  }

  /** The ids of the jobs `listUnfinished` would read (some may have finished since), oldest first. */
  async unfinishedIds(): Promise<string[]> {
    return (await this.indexes.list(UNFINISHED)).map((entry) => entry.id);
  }

  /** The requester's most recent jobs, newest first. */
  async listByRequester(requester: Requester, limit: number): Promise<JobRecord[]> {
    const jobs = await this.loadIndex(requesterKey(requester), () => false);
    return jobs.sort((a, b) => b.createdAt - a.createdAt).slice(0, limit);
  }

  /** The tenant's most recent jobs (of everyone), newest first. */
  async listByTenant(tenant: TenantRef, limit: number): Promise<JobRecord[]> {
    const jobs = await this.loadIndex(tenantJobsKey(tenant), () => false);
    return jobs.sort((a, b) => b.createdAt - a.createdAt).slice(0, limit);
  }

  /**
   * Jobs of the requester that occupy the service (queued, working, retrying): one waiting for the
   * user's choice or for delivery does not count against a concurrency limit.
   */
  async countActiveByRequester(requester: Requester): Promise<number> {
    const notRunning = (job: JobRecord) => !RUNNING.has(job.state);
    const jobs = await this.loadIndex(runningKey(requester), notRunning);
    return jobs.filter((job) => !notRunning(job)).length;
  }

  /**
   * The readable jobs an index names. Corrupt records are reported and skipped (one bad record
   * must not stop the others from resuming); records gone for good, or matching `drop`, leave the
   * index.
   */
  private async loadIndex(key: string, drop: (job: JobRecord) => boolean): Promise<JobRecord[]> {
    return this.load(key, await this.indexes.list(key), drop);
  }

  private async load(
    key: string,
    entries: IndexEntry[],
    drop: (job: JobRecord) => boolean,
  ): Promise<JobRecord[]> {
    const now = Date.now();
    const added = new Map(entries.map((entry) => [entry.id, entry.at]));
    const loaded = await this.readMany(entries.map((entry) => entry.id));
    const gone = loaded
      .filter(({ id, job, corrupt }) =>
        job ? drop(job) : !corrupt && now - (added.get(id) ?? now) > MISSING_GRACE_MS,
      )
      .map(({ id }) => id);
    await this.indexes.remove(key, gone);
    return loaded.flatMap(({ job }) => (job ? [job] : []));
  }
}

function requesterKey(requester: Requester): string {
  return `jobs:requester:${requester.platform}:${requester.tenantId}:${requester.userId}`;
}

/** The index of a tenant's recent jobs (what `jobs --all` shows its admins). */
function tenantJobsKey(tenant: TenantRef): string {
  return `jobs:tenant:${tenant.platform}:${tenant.tenantId}`;
}

function runningKey(requester: Requester): string {
  return `jobs:running:${requester.platform}:${requester.tenantId}:${requester.userId}`;
}
