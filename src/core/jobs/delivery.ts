import {
  Batch,
  type Claims,
  type JobRecord,
  type JobStore,
  replicatedWrite,
  type WriteCheckpoint,
} from "../../store/index.js";
import { NotPostedError, UndeliverableError } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import type { JobHooks } from "./contract.js";
import type { Liveness } from "./liveness.js";
import { isTerminal, type Outcome, outcomePatch, statusOf, updateJob } from "./records.js";

export type DeliveryResult =
  /** Posted now. */
  | { kind: "delivered"; job: JobRecord }
  /** Nothing left to do: delivered before (here or by another engine), or the job is gone. */
  | { kind: "settled" }
  /** Another engine holds the job's delivery claim (delivering it, or crashed while it did). */
  | { kind: "busy" }
  /** The hook or the store failed; the job stays pending and `attempts` says how often in a row. */
  | { kind: "retry"; attempts: number; error: unknown }
  /** Nothing could reach the person, for good (UndeliverableError): closed as not posted, never tried again. */
  | { kind: "abandoned"; job: JobRecord; error: UndeliverableError };

export interface DeliveryDeps {
  store: JobStore;
  /** The claim is held in this process's name: its death frees it at once, a restart too. */
  liveness: Liveness;
  claims: Claims;
  hooks: JobHooks<JobRecord>;
  logger: Logger;
  claimMs: number;
}

/**
 * Exactly-once delivery of a finished job, across restarts and across engines sharing a store:
 *
 *   pending --claim deliver:<id>--> delivering --hooks.deliver--> delivered (+ result) --release
 *
 * The claim keeps two engines from posting at once; the record, read again under the claim,
 * keeps an engine from posting what another already posted. Once the record says delivered, the
 * claim is dropped with those of the other jobs delivered within a few milliseconds, whoever holds
 * it (a release of its own was a script and two commands per job on redis,
 * bench/results/scale.md): whoever finds it held meanwhile reads the record and learns there is
 * nothing left to do. A crash while `delivering` leaves the
 * record there and the claim to its dead holder, which frees it, so the next engine (or the
 * restart) delivers again: the hook's contract
 * (idempotent edits and keyed posts) makes that second call harmless. A hook that throws puts the
 * job back to `pending` for a retry: a chat platform outage delays results, it never loses them.
 * A refusal for good (UndeliverableError: the hook tried the person's DM already) is not retried:
 * the job is closed as not posted at once, with the reason and the result's link for the jobs list.
 */
export class Delivery {
  /** Claims of delivered jobs, dropped together (see above). */
  private readonly dropping = new Batch<string>((keys) => this.deps.claims.drop(keys), DROP_WINDOW_MS);

  constructor(private readonly deps: DeliveryDeps) {}

  /** Delivers `job`, first recording `outcome` when the job has none yet. */
  async run(job: JobRecord, outcome?: Outcome): Promise<DeliveryResult> {
    const { liveness, claimMs } = this.deps;
    const key = `deliver:${job.id}`;
    // The claim and the record's `delivering` are held by a replica before the post (see deliver).
    const from = this.deps.claims.checkpoint();
    let held: boolean;
    try {
      // One delivery per job at a time in this engine (engine.ts): a claim of its own is a stale one.
      held = await liveness.claim(key, claimMs, { reentrant: true });
    } catch (error) {
      return { kind: "retry", attempts: job.attempts + 1, error };
    }
    if (!held) return this.elsewhere(job, outcome);
    let result: DeliveryResult | undefined;
    try {
      result = await this.deliver(job, outcome, from);
      return result;
    } finally {
      // Not released (store down): the claim dies with this process, or at its ttl.
      if (!result || !isFinal(result)) await liveness.release(key);
      else await this.dropping.add(key).catch(() => undefined);
    }
  }

  /**
   * Someone holds the claim: the job was delivered (its claim is kept, see above), or another
   * engine, maybe dead, is delivering it. The outcome is kept even so: if the holder dies,
   * whoever delivers later needs it.
   */
  private async elsewhere(job: JobRecord, outcome: Outcome | undefined): Promise<DeliveryResult> {
    const { store, logger } = this.deps;
    let fresh: JobRecord | undefined;
    try {
      fresh = await store.get(job.id);
    } catch (error) {
      return { kind: "retry", attempts: job.attempts + 1, error };
    }
    if (!fresh || fresh.delivery === "delivered") return { kind: "settled" };
    if (outcome) {
      await updateJob(store, fresh, (now) =>
        isTerminal(now.state) ? undefined : outcomePatch(outcome),
      ).catch((error: unknown) =>
        logger.warn({ err: error, jobId: job.id }, "could not record the job's outcome"),
      );
    }
    return { kind: "busy" };
  }

  /**
   * A failover between the claim and the post must not let another engine post too: the claim
   * and `delivering` are on a replica before the hook runs, and `delivered` before the claim goes.
   */
  private async deliver(
    job: JobRecord,
    outcome: Outcome | undefined,
    from: WriteCheckpoint,
  ): Promise<DeliveryResult> {
    const { store, hooks, logger, claims } = this.deps;
    let current: JobRecord | undefined;
    try {
      // From the caller's record, not one read again: the write is a compare-and-swap on its
      // version, so a record another engine changed since (delivered it, say) fails it, and the
      // change is decided again on the record as stored. A read first cost a statement and a
      // parse of the whole record per delivery (bench/results/jobs-50k.md).
      current = await updateJob(store, job, (now) => {
        if (now.delivery === "delivered") return undefined;
        if (isTerminal(now.state)) return { delivery: "delivering" };
        if (!outcome) throw new Error(`job ${now.id} has no outcome to deliver (state ${now.state})`);
        return { ...outcomePatch(outcome), delivery: "delivering" };
      });
      if (current?.delivery === "delivering") await claims.replicated(from);
    } catch (error) {
      return { kind: "retry", attempts: job.attempts + 1, error };
    }
    if (!current || current.delivery === "delivered") return { kind: "settled" };

    let posted: Awaited<ReturnType<typeof hooks.deliver>>;
    try {
      posted = await hooks.deliver(current, statusOf(current));
    } catch (error) {
      const attempts = current.attempts + 1;
      if (error instanceof UndeliverableError) return this.abandon(current, error, attempts);
      await updateJob(store, current, () => ({ delivery: "pending", attempts })).catch((e: unknown) =>
        // Left `delivering`: the retry delivers again all the same.
        logger.warn({ err: e, jobId: current.id }, "could not put the job back to pending delivery"),
      );
      return { kind: "retry", attempts, error };
    }

    try {
      const done = await replicatedWrite(claims, () =>
        updateJob(store, current, () => ({
          delivery: "delivered",
          attempts: 0,
          ...(posted === undefined ? {} : { result: posted }),
        })),
      );
      logger.info({ jobId: current.id, state: current.state }, "job delivered");
      return done ? { kind: "delivered", job: done } : { kind: "settled" };
    } catch (error) {
      // Posted but not recorded: the retry posts again, which the hook's contract makes harmless.
      return { kind: "retry", attempts: current.attempts + 1, error };
    }
  }

  /**
   * Closes a job nothing of which could reach its person: finished, with the reason in its error
   * and what it made as its result, so that nobody tries again and `jobs` tells the requester why
   * the result never appeared, and where to fetch it.
   */
  private async abandon(
    job: JobRecord,
    error: UndeliverableError,
    attempts: number,
  ): Promise<DeliveryResult> {
    try {
      const closed = await updateJob(this.deps.store, job, () => ({
        delivery: "delivered",
        attempts: 0,
        error: { code: error.code, message: error.userMessage },
        ...(error instanceof NotPostedError && { result: error.result }),
      }));
      if (!closed) return { kind: "settled" };
      this.deps.logger.error(
        { err: error, jobId: job.id, attempts },
        "result could not be posted; delivery given up",
      );
      return { kind: "abandoned", job: closed, error };
    } catch (storeError) {
      return { kind: "retry", attempts, error: storeError };
    }
  }
}

/** How long delivered jobs' claims gather before they are dropped in one command. */
const DROP_WINDOW_MS = 50;

/** The record says delivered (or the job is gone): nothing will ever need the claim again. */
function isFinal(result: DeliveryResult): boolean {
  return result.kind === "delivered" || result.kind === "settled" || result.kind === "abandoned";
}
