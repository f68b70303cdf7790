import PQueue from "p-queue";
import type { JobRecord, JobStore } from "../../store/index.js";
import type { NormalizedStatus } from "../api/job-status.js";
import { RateLimitedError } from "../base/errors.js";
import type { Incidents } from "../base/incidents.js";
import type { Logger } from "../base/log.js";
import type { Intake } from "../intake/intake.js";
import type { JobHooks } from "./contract.js";
import { DueReads } from "./due-reads.js";
import { Lane } from "./lane.js";
import { lasting, outcomeOf, stuckOutcome, unreadableOutcome } from "./outcomes.js";
import { backoff, jittered, type PollPolicy, pollDelay, resumeDelay } from "./policy.js";
import { type Polled, polled, type Shown } from "./polled.js";
import { isTerminal, type Outcome, type Patch, updateJob } from "./records.js";
import { ScheduledPart } from "./scheduled.js";
import { EditThrottle } from "./throttle.js";

/** Where a job goes when the poller lets it go. */
export type Leaving =
  /**
   * Its outcome is known: read or decided here, or (undefined) recorded by another engine, whose
   * record says what to deliver.
   */
  | { to: "delivery"; outcome: Outcome | undefined }
  /** It waits for a person's choice, stored and shown. */
  | { to: "choice" };

/**
 * All the poller needs from the engine around it, in the spirit of bullmq's
 * `LockManagerWorkerContext`: the poller keeps its jobs itself and says once, through `left`,
 * where each one goes when its polling ends.
 */
export interface PollerContext {
  /** Status reads and progress edits (the flows' hooks). */
  hooks: Pick<JobHooks<JobRecord>, "fetchStatus" | "showProgress">;
  /** Where progress and a choice to make are recorded. */
  store: JobStore;
  /**
   * Whether this instance's jobs are surely still its own: its heartbeat renewed within the lapse
   * and not being reclaimed after one (see liveness.ts). Reads wait otherwise.
   */
  owns(): boolean;
  /** The poller let the job go (it polls it no more): where it goes, resolved once it got there. */
  left(job: JobRecord, next: Leaving): Promise<void>;
  /** The job's outcome is known (read, or decided here): told at once, before its last progress edit lands. */
  ended(job: JobRecord): void;
}

export interface PollerOptions {
  policy: PollPolicy;
  now(): number;
  log: Logger;
  /** Status reads and progress edits that keep failing are logged once with a count. */
  incidents: Incidents;
  /** The bot's incoming requests: a read waits while a burst of them is acknowledged. */
  intake?: Pick<Intake, "settled" | "heldFor"> | undefined;
}

/**
 * Status reads of the jobs this instance polls, under the global caps toward the service, and what
 * follows each: the next poll, a progress edit, a write to the store (in the background, merged
 * while the store is busy), the end of the job, or the choice it waits for.
 */
export class Poller extends ScheduledPart {
  /** The jobs polled here, each read when it falls due: one is polled while it is its id's entry. */
  private readonly polled = new Map<string, Polled>();
  /** Jobs that read needs_choice, until their choice is stored and shown and they are handed on. */
  private readonly choosing = new Map<string, Polled>();
  private readonly throttle: EditThrottle;
  /** The caps toward the service: every status read goes through it. */
  private readonly reads: PQueue;
  /** Reads that fell due, handed to the caps queue a few at a time, the most urgent first. */
  private readonly due = new DueReads();
  private feeding = false;
  /**
   * Store writes off the critical path (progress), a few at a time: the store runs its statements
   * in order, and a burst of these must not stand between a finished job and its post.
   */
  private readonly background: Lane<Polled>;
  /** Aborted on stop: the status reads in flight. */
  private readonly readControllers = new Set<AbortController>();

  constructor(
    private readonly ctx: PollerContext,
    private readonly opts: PollerOptions,
  ) {
    super(opts);
    const { maxConcurrentRequests, maxRequestsPerSecond, minEditIntervalMs } = opts.policy;
    this.throttle = new EditThrottle(minEditIntervalMs, opts.now);
    this.reads = new PQueue({
      concurrency: maxConcurrentRequests,
      ...(Number.isFinite(maxRequestsPerSecond)
        ? { intervalCap: maxRequestsPerSecond, interval: 1_000, strict: true }
        : {}),
    });
    // A read that starts or ends leaves room: the most urgent due read takes it.
    this.reads.on("active", () => this.feed());
    this.reads.on("next", () => this.feed());
    this.background = new Lane(
      2,
      (entry) => this.writeNext(entry),
      (work) => this.tasks.hold(work),
    );
  }

  /**
   * Polls `job` from now on: soon for a job someone waits on, within one interval of its kind and
   * age (`spread`) for jobs found in the store.
   */
  take(job: JobRecord, first: "soon" | "spread"): void {
    if (!this.running) return;
    const { policy, now: clock } = this.opts;
    const now = clock();
    this.polled.set(job.id, polled(job));
    this.throttle.seed(job.id, job.state, job.progress, now);
    const delay =
      first === "soon"
        ? jittered(policy.firstPollMs, policy.jitter)
        : Math.min(policy.maxResumeSpreadMs, resumeDelay(policy, job.kind, now - job.createdAt));
    this.scheduler.schedule(job.id, now + delay);
  }

  /** Whether the job is polled here (not on its way to a choice). */
  polls(id: string): boolean {
    return this.polled.has(id);
  }

  /** Whether the job read needs_choice here and its choice is being stored and shown. */
  awaitsChoice(id: string): boolean {
    return this.choosing.has(id);
  }

  /** The record of a job polled here, as last read or written. */
  record(id: string): JobRecord | undefined {
    return this.polled.get(id)?.job;
  }

  /** Every job held here (polled, or on its way to a choice). */
  ids(): string[] {
    return [...this.polled.keys(), ...this.choosing.keys()];
  }

  /** Reads a polled job's status again soon (a choice was sent: its status says what came of it). */
  pollSoon(id: string): void {
    if (this.polled.has(id)) this.scheduler.schedule(id, this.opts.now() + this.opts.policy.firstPollMs);
  }

  /** Reads again within the next second the jobs whose reads failed (the store is back). */
  retrySoon(): void {
    const now = this.opts.now();
    for (const [id, entry] of this.polled) {
      if (entry.errors) this.scheduler.schedule(id, now + Math.random() * 1_000);
    }
  }

  /**
   * Ends the job's polling here: its outcome is known. Resolves, once its progress edit in flight
   * is over, with its latest record; undefined when it was not held here.
   */
  async release(id: string): Promise<JobRecord | undefined> {
    const entry = this.polled.get(id) ?? this.choosing.get(id);
    return entry && this.letGo(entry);
  }

  /** Stops polling the job at once: another instance owns it now. */
  drop(id: string): void {
    this.polled.delete(id);
    this.choosing.delete(id);
    this.scheduler.cancel(id);
  }

  dropAll(): void {
    for (const id of this.ids()) this.drop(id);
  }

  /** Lets every job go, drops the queued reads and aborts those in flight. */
  protected forgetAll(): void {
    this.polled.clear();
    this.choosing.clear();
    this.due.clear();
    this.background.clear();
    this.reads.clear();
    for (const controller of this.readControllers) controller.abort(new Error("job engine stopping"));
  }

  /** Once every progress edit in flight is over. */
  idle(): Promise<void> {
    return this.throttle.idle();
  }

  private isPolling(entry: Polled): boolean {
    return this.running && this.polled.get(entry.job.id) === entry;
  }

  protected fellDue(id: string): void {
    const entry = this.polled.get(id);
    if (!entry) return;
    this.due.add(entry, this.opts.now());
    this.feed();
  }

  /**
   * Hands due reads to the caps queue until a few wait there: the rest wait in `due`, so that
   * the order they are read in is decided when there is room, not when they fell due.
   */
  private feed(): void {
    // The queue's events fire within add(): the loop below does their work.
    if (this.feeding) return;
    this.feeding = true;
    try {
      const now = this.opts.now();
      while (this.reads.size < READS_AHEAD) {
        const entry = this.due.take(now);
        if (!entry) return;
        if (this.isPolling(entry)) void this.reads.add(() => this.read(entry));
      }
    } finally {
      this.feeding = false;
    }
  }

  /** One status read, run by the queue of caps; resolves when the read is over, not its handling. */
  private async read(entry: Polled): Promise<void> {
    // Awaited only while a burst is held: otherwise the read goes out in the same turn the caps
    // queue counted it, so what the service sees keeps to the caps the queue keeps.
    const { intake } = this.opts;
    if (intake && intake.heldFor() > 0) await intake.settled();
    if (!this.isPolling(entry)) return;
    const { policy, now } = this.opts;
    if (!this.ctx.owns()) {
      // After a stall another instance may be taking the job over: read it after the next beat.
      this.scheduler.schedule(entry.job.id, now() + policy.heartbeatMs);
      return;
    }
    const controller = new AbortController();
    const timeout = setTimeout(
      () => controller.abort(new Error("status read timed out")),
      policy.requestTimeoutMs,
    );
    this.readControllers.add(controller);
    const read = this.fetchStatus(entry.job, controller.signal).finally(() => {
      clearTimeout(timeout);
      this.readControllers.delete(controller);
    });
    this.tasks.hold(
      read.then(
        (status) => this.onStatus(entry, status),
        (error: unknown) => this.onReadError(entry, error),
      ),
    );
    await read.catch(() => undefined);
  }

  /** The hook, with a synchronous throw turned into a rejection like any other failed read. */
  private async fetchStatus(job: JobRecord, signal: AbortSignal): Promise<NormalizedStatus> {
    return this.ctx.hooks.fetchStatus(job, signal);
  }

  private async onStatus(entry: Polled, status: NormalizedStatus): Promise<void> {
    if (!this.isPolling(entry)) return;
    const { policy, incidents } = this.opts;
    const now = this.opts.now();
    const { job } = entry;
    if (entry.errors) {
      incidents.ended(`status:${job.id}`, {
        fields: { jobId: job.id },
        msg: "job status read again after failures",
      });
    }
    entry.errors = undefined;
    if (status.state !== entry.seen.state || status.progress !== entry.seen.progress) {
      entry.seen = { state: status.state, progress: status.progress };
      entry.lastMoveAt = now;
    }
    entry.pace.observe(status.state, status.progress, now);

    if (status.state === "needs_choice") return this.awaitChoice(entry, status);
    if (status.terminal || isTerminal(status.state)) return this.end(entry, outcomeOf(status));
    const stuckAfterMs = policy.kinds[job.kind].stuckAfterMs;
    if (now - entry.lastMoveAt >= stuckAfterMs) return this.end(entry, stuckOutcome(status, stuckAfterMs));

    if (this.worthStoring(entry.stored, status))
      this.write(entry, { state: status.state, progress: status.progress });
    this.throttle.offer(job.id, status, () => this.show(entry, status));
    const delay = pollDelay(policy, {
      kind: job.kind,
      ageMs: now - job.createdAt,
      remainingMs: entry.pace.remainingMs(now),
    });
    this.scheduler.schedule(job.id, now + delay);
  }

  /** A state change, or progress moved by a step: a restart then resumes close to where it was. */
  private worthStoring(stored: Shown, status: NormalizedStatus): boolean {
    if (status.state !== stored.state) return true;
    if (status.progress === null || stored.progress === null) return status.progress !== stored.progress;
    return Math.abs(status.progress - stored.progress) >= this.opts.policy.progressStep;
  }

  /**
   * A failed read is no verdict on the job (5xx, timeouts and malformed answers outlast the
   * client's own retries now and then): back off and read again, and give up only after
   * `giveUpAfterMs` (30 minutes by default) of nothing but failures, or `giveUpPermanentAfterMs`
   * (3 minutes) for answers that waiting does not mend (see `lasting`).
   */
  private onReadError(entry: Polled, error: unknown): void {
    if (!this.isPolling(entry)) return;
    const { policy, log, incidents } = this.opts;
    const now = this.opts.now();
    const { job } = entry;
    const errors = entry.errors ?? { count: 0, since: now };
    errors.count += 1;
    entry.errors = errors;
    const limit = lasting(error) ? policy.giveUpPermanentAfterMs : policy.giveUpAfterMs;
    if (now - errors.since >= limit) {
      log.error({ err: error, jobId: job.id, failures: errors.count }, "job status unreadable: giving up");
      incidents.ended(`status:${job.id}`);
      this.tasks.hold(this.end(entry, unreadableOutcome(entry.seen.progress, limit, error)));
      return;
    }
    incidents.failed(`status:${job.id}`, { err: error, jobId: job.id }, "job status read failed; will retry");
    const { errorBaseMs, errorMaxMs } = policy;
    const wait = Math.max(
      backoff(errors.count, errorBaseMs, errorMaxMs),
      error instanceof RateLimitedError ? (error.retryAfterMs ?? 0) : 0,
      pollDelay(policy, { kind: job.kind, ageMs: now - job.createdAt, remainingMs: undefined }),
    );
    this.scheduler.schedule(job.id, now + wait);
  }

  /** The job ended (an outcome read, or decided here): let it go, on to its delivery. */
  private async end(entry: Polled, outcome: Outcome | undefined): Promise<void> {
    this.ctx.ended(entry.job);
    const job = await this.letGo(entry);
    await this.ctx.left(job, { to: "delivery", outcome });
  }

  /** Out of polling: the outcome supersedes progress not yet written, the last edit lands first. */
  private async letGo(entry: Polled): Promise<JobRecord> {
    const { id } = entry.job;
    if (this.polled.get(id) === entry) this.polled.delete(id);
    if (this.choosing.get(id) === entry) this.choosing.delete(id);
    entry.pending = undefined;
    this.scheduler.cancel(id);
    await this.throttle.settle(id);
    return entry.job;
  }

  /**
   * The user chooses (photo-avatar variants): store and show the choice once, then hand the job on
   * to wait for a click (beginChoice, finish) or for the choice to expire.
   */
  private async awaitChoice(entry: Polled, status: NormalizedStatus): Promise<void> {
    const id = entry.job.id;
    this.polled.delete(id);
    this.choosing.set(id, entry);
    entry.pending = undefined;
    this.scheduler.cancel(id);
    // Written before the buttons show, so a click (beginChoice, finish) finds the job waiting.
    const waiting = await updateJob(this.ctx.store, entry.job, (now) =>
      isTerminal(now.state) || now.delivery !== "pending"
        ? undefined
        : { state: "needs_choice", progress: status.progress, result: status.result ?? null },
    ).catch((error: unknown) =>
      this.opts.log.warn({ err: error, jobId: id }, "could not store the choice to make"),
    );
    if (waiting) entry.job = waiting;
    await this.throttle.force(id, status, () => this.show(entry, status));
    await this.throttle.settle(id);
    if (this.choosing.get(id) !== entry) return;
    this.choosing.delete(id);
    if (waiting?.state === "needs_choice") await this.ctx.left(waiting, { to: "choice" });
  }

  private async show(entry: Polled, status: NormalizedStatus): Promise<void> {
    const { incidents } = this.opts;
    const key = `progress:${entry.job.id}`;
    try {
      await this.ctx.hooks.showProgress(entry.job, status);
      incidents.ended(key, {
        fields: { jobId: entry.job.id },
        msg: "progress edits go through again",
      });
    } catch (error) {
      // A lost progress edit is cosmetic: the next change, or the result, replaces it.
      incidents.failed(key, { err: error, jobId: entry.job.id }, "progress edit failed");
    }
  }

  /**
   * Records a change in the background lane. A change made while the previous one still waits
   * for the store merges into it, so a slow store gets fewer, newer writes instead of a backlog.
   * A failed write is retried by the next change.
   */
  private write(entry: Polled, patch: Patch): void {
    entry.pending = { ...entry.pending, ...patch };
    entry.stored = {
      state: patch.state ?? entry.stored.state,
      progress: patch.progress === undefined ? entry.stored.progress : patch.progress,
    };
    this.flush(entry);
  }

  private flush(entry: Polled): void {
    if (entry.flushing || !entry.pending) return;
    entry.flushing = true;
    this.background.add(entry);
  }

  /** The lane's turn of a job: its pending change, then any made meanwhile, at the back of the lane. */
  private async writeNext(entry: Polled): Promise<void> {
    await this.writePending(entry);
    entry.flushing = false;
    this.flush(entry);
  }

  private async writePending(entry: Polled): Promise<void> {
    const patch = entry.pending;
    entry.pending = undefined;
    if (!patch) return;
    const id = entry.job.id;
    try {
      // Checked at every try: a job that left polling meanwhile (an outcome, a choice) keeps that.
      const stored = await updateJob(this.ctx.store, entry.job, (now) =>
        !this.isPolling(entry) || isTerminal(now.state) || now.delivery !== "pending" ? undefined : patch,
      );
      if (!stored) {
        if (this.polled.get(id) === entry) this.drop(id);
        return;
      }
      entry.job = stored;
      // Someone else recorded an outcome (another engine's finish()): it gets delivered from there.
      if (isTerminal(stored.state) && this.polled.get(id) === entry)
        this.tasks.hold(this.end(entry, undefined));
    } catch (error) {
      this.opts.log.warn({ err: error, jobId: id }, "could not store the job's progress");
    }
  }
}

/**
 * Reads handed to the caps queue ahead of room to start them. A few, so that one starts as soon as
 * another ends (and a rate cap's window opens), while the choice of which stays with `DueReads`.
 */
const READS_AHEAD = 8;
