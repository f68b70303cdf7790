import PQueue from "p-queue";
import type { JobRecord, JobStore } from "../../store/index.js";
import type { NormalizedStatus } from "../api/job-status.js";
import { RateLimitedError } from "../errors.js";
import type { Incidents } from "../incidents.js";
import type { Logger } from "../log.js";
import type { JobHooks } from "./contract.js";
import { DueReads } from "./due-reads.js";
import { Lane } from "./lane.js";
import { lasting, outcomeOf, stuckOutcome, unreadableOutcome } from "./outcomes.js";
import { backoff, type PollPolicy, pollDelay } from "./policy.js";
import { isTerminal, type Outcome, type Patch, updateJob } from "./records.js";
import type { Scheduler } from "./scheduler.js";
import type { EditThrottle } from "./throttle.js";
import type { Shown, Tracked } from "./tracked.js";

export interface PollerDeps {
  policy: PollPolicy;
  now(): number;
  store: JobStore;
  hooks: JobHooks<JobRecord>;
  log: Logger;
  /** Status reads and progress edits that keep failing are logged once with a count. */
  incidents: Incidents;
  scheduler: Scheduler;
  throttle: EditThrottle;
  /** The engine's jobs: one is polled while it is its id's entry, in mode `poll`. */
  jobs: Map<string, Tracked>;
  running(): boolean;
  /**
   * Whether this instance's jobs are surely still its own: its heartbeat renewed within the lapse
   * and not being reclaimed after one (see liveness.ts).
   */
  owns(): boolean;
  /** Resolves once the bot's incoming requests leave room: a read waits while a burst is acknowledged. */
  yielded(): Promise<void>;
  /** Work the engine's stop must wait for. */
  hold(work: Promise<unknown>): void;
  /** The job ended (an outcome read or decided here): stop polling it and deliver the outcome. */
  settle(tracked: Tracked, outcome: Outcome): Promise<void>;
  /** Another engine recorded the job's outcome: deliver what is stored. */
  takeOver(tracked: Tracked): Promise<void>;
  forget(id: string): void;
}

/**
 * Status reads of the jobs the engine polls, under the global caps toward the service, and what
 * follows each: the next poll, a progress edit, a write to the store (in the background, merged
 * while the store is busy), the end of the job, or the choice it waits for.
 */
export class Poller {
  /** The caps toward the service: every status read goes through it. */
  private readonly reads: PQueue;
  /** Reads that fell due, handed to the caps queue a few at a time, the most urgent first. */
  private readonly due = new DueReads();
  private feeding = false;
  /**
   * Store writes off the critical path (progress), a few at a time: the store runs its statements
   * in order, and a burst of these must not stand between a finished job and its post.
   */
  private readonly background: Lane<Tracked>;
  /** Aborted on stop: the status reads in flight. */
  private readonly readControllers = new Set<AbortController>();

  constructor(private readonly deps: PollerDeps) {
    const { maxConcurrentRequests, maxRequestsPerSecond } = deps.policy;
    this.reads = new PQueue({
      concurrency: maxConcurrentRequests,
      ...(Number.isFinite(maxRequestsPerSecond)
        ? { intervalCap: maxRequestsPerSecond, interval: 1_000, strict: true }
        : {}),
    });
    // A read that starts or ends leaves room: the most urgent due read takes it.
    this.reads.on("active", () => this.feed());
    this.reads.on("next", () => this.feed());
    this.background = new Lane(2, (tracked) => this.writeNext(tracked), deps.hold);
  }

  /** Queues a status read of the job (it is due). */
  poll(tracked: Tracked): void {
    this.due.add(tracked, this.deps.now());
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
      const now = this.deps.now();
      while (this.reads.size < READS_AHEAD) {
        const tracked = this.due.take(now);
        if (!tracked) return;
        if (this.isPolling(tracked)) void this.reads.add(() => this.read(tracked));
      }
    } finally {
      this.feeding = false;
    }
  }

  /** Drops the queued reads and aborts those in flight. */
  stop(): void {
    this.due.clear();
    this.background.clear();
    this.reads.clear();
    for (const controller of this.readControllers) controller.abort(new Error("job engine stopping"));
  }

  /** One status read, run by the queue of caps; resolves when the read is over, not its handling. */
  private async read(tracked: Tracked): Promise<void> {
    await this.deps.yielded();
    if (!this.isPolling(tracked)) return;
    if (!this.deps.owns()) {
      // After a stall another instance may be taking the job over: read it after the next beat.
      this.deps.scheduler.schedule(tracked.job.id, this.deps.now() + this.deps.policy.heartbeatMs);
      return;
    }
    const controller = new AbortController();
    const timeout = setTimeout(
      () => controller.abort(new Error("status read timed out")),
      this.deps.policy.requestTimeoutMs,
    );
    this.readControllers.add(controller);
    const read = this.fetchStatus(tracked.job, controller.signal).finally(() => {
      clearTimeout(timeout);
      this.readControllers.delete(controller);
    });
    this.deps.hold(
      read.then(
        (status) => this.onStatus(tracked, status),
        (error: unknown) => this.onReadError(tracked, error),
      ),
    );
    await read.catch(() => undefined);
  }

  /** The hook, with a synchronous throw turned into a rejection like any other failed read. */
  private async fetchStatus(job: JobRecord, signal: AbortSignal): Promise<NormalizedStatus> {
    return this.deps.hooks.fetchStatus(job, signal);
  }

  isPolling(tracked: Tracked): boolean {
    return this.deps.running() && tracked.mode === "poll" && this.deps.jobs.get(tracked.job.id) === tracked;
  }

  private async onStatus(tracked: Tracked, status: NormalizedStatus): Promise<void> {
    if (!this.isPolling(tracked)) return;
    const now = this.deps.now();
    const { job } = tracked;
    if (tracked.errors) {
      this.deps.incidents.ended(`status:${job.id}`, {
        fields: { jobId: job.id },
        msg: "job status read again after failures",
      });
    }
    tracked.errors = undefined;
    if (status.state !== tracked.seen.state || status.progress !== tracked.seen.progress) {
      tracked.seen = { state: status.state, progress: status.progress };
      tracked.lastMoveAt = now;
    }
    tracked.pace.observe(status.state, status.progress, now);

    if (status.state === "needs_choice") return this.awaitChoice(tracked, status);
    if (status.terminal || isTerminal(status.state)) return this.deps.settle(tracked, outcomeOf(status));
    const stuckAfterMs = this.deps.policy.kinds[job.kind].stuckAfterMs;
    if (now - tracked.lastMoveAt >= stuckAfterMs)
      return this.deps.settle(tracked, stuckOutcome(status, stuckAfterMs));

    if (this.worthStoring(tracked.stored, status))
      this.write(tracked, { state: status.state, progress: status.progress });
    this.deps.throttle.offer(job.id, status, () => this.show(tracked, status));
    const delay = pollDelay(this.deps.policy, {
      kind: job.kind,
      ageMs: now - job.createdAt,
      remainingMs: tracked.pace.remainingMs(now),
    });
    this.deps.scheduler.schedule(job.id, now + delay);
  }

  /** A state change, or progress moved by a step: a restart then resumes close to where it was. */
  private worthStoring(stored: Shown, status: NormalizedStatus): boolean {
    if (status.state !== stored.state) return true;
    if (status.progress === null || stored.progress === null) return status.progress !== stored.progress;
    return Math.abs(status.progress - stored.progress) >= this.deps.policy.progressStep;
  }

  /**
   * A failed read is no verdict on the job (5xx, timeouts and malformed answers outlast the
   * client's own retries now and then): back off and read again, and give up only after
   * `giveUpAfterMs` (30 minutes by default) of nothing but failures, or `giveUpPermanentAfterMs`
   * (3 minutes) for answers that waiting does not mend (see `lasting`).
   */
  private onReadError(tracked: Tracked, error: unknown): void {
    if (!this.isPolling(tracked)) return;
    const now = this.deps.now();
    const { job } = tracked;
    const errors = tracked.errors ?? { count: 0, since: now };
    errors.count += 1;
    tracked.errors = errors;
    const limit = lasting(error) ? this.deps.policy.giveUpPermanentAfterMs : this.deps.policy.giveUpAfterMs;
    if (now - errors.since >= limit) {
      this.deps.log.error(
        { err: error, jobId: job.id, failures: errors.count },
        "job status unreadable: giving up",
      );
      this.deps.incidents.ended(`status:${job.id}`);
      this.deps.hold(this.deps.settle(tracked, unreadableOutcome(tracked.seen.progress, limit, error)));
      return;
    }
    this.deps.incidents.failed(
      `status:${job.id}`,
      { err: error, jobId: job.id },
      "job status read failed; will retry",
    );
    const { errorBaseMs, errorMaxMs } = this.deps.policy;
    const wait = Math.max(
      backoff(errors.count, errorBaseMs, errorMaxMs),
      error instanceof RateLimitedError ? (error.retryAfterMs ?? 0) : 0,
      pollDelay(this.deps.policy, { kind: job.kind, ageMs: now - job.createdAt, remainingMs: undefined }),
    );
    this.deps.scheduler.schedule(job.id, now + wait);
  }

  /**
   * The user chooses (photo-avatar variants): show the choice once, then wait for a click
   * (beginChoice, finish) or for the choice to expire.
   */
  private async awaitChoice(tracked: Tracked, status: NormalizedStatus): Promise<void> {
    const id = tracked.job.id;
    tracked.mode = "choice";
    tracked.pending = undefined;
    this.deps.scheduler.cancel(id);
    // Written before the buttons show, so a click (beginChoice, finish) finds the job waiting.
    const waiting = await updateJob(this.deps.store, tracked.job, (now) =>
      isTerminal(now.state) || now.delivery !== "pending"
        ? undefined
        : { state: "needs_choice", progress: status.progress, result: status.result ?? null },
    ).catch((error: unknown) =>
      this.deps.log.warn({ err: error, jobId: id }, "could not store the choice to make"),
    );
    if (waiting) tracked.job = waiting;
    await this.deps.throttle.force(id, status, () => this.show(tracked, status));
    await this.deps.throttle.settle(id);
    if (this.deps.jobs.get(id) === tracked && waiting?.state === "needs_choice") {
      this.deps.scheduler.schedule(id, waiting.lastProgressAt + this.deps.policy.choiceExpiresAfterMs);
    }
  }

  private async show(tracked: Tracked, status: NormalizedStatus): Promise<void> {
    const key = `progress:${tracked.job.id}`;
    try {
      await this.deps.hooks.showProgress(tracked.job, status);
      this.deps.incidents.ended(key, {
        fields: { jobId: tracked.job.id },
        msg: "progress edits go through again",
      });
    } catch (error) {
      // A lost progress edit is cosmetic: the next change, or the result, replaces it.
      this.deps.incidents.failed(key, { err: error, jobId: tracked.job.id }, "progress edit failed");
    }
  }

  /**
   * Records a change in the background lane. A change made while the previous one still waits
   * for the store merges into it, so a slow store gets fewer, newer writes instead of a backlog.
   * A failed write is retried by the next change.
   */
  private write(tracked: Tracked, patch: Patch): void {
    tracked.pending = { ...tracked.pending, ...patch };
    tracked.stored = {
      state: patch.state ?? tracked.stored.state,
      progress: patch.progress === undefined ? tracked.stored.progress : patch.progress,
    };
    this.flush(tracked);
  }

  private flush(tracked: Tracked): void {
    if (tracked.flushing || !tracked.pending) return;
    tracked.flushing = true;
    this.background.add(tracked);
  }

  /** The lane's turn of a job: its pending change, then any made meanwhile, at the back of the lane. */
  private async writeNext(tracked: Tracked): Promise<void> {
    await this.writePending(tracked);
    tracked.flushing = false;
    this.flush(tracked);
  }

  private async writePending(tracked: Tracked): Promise<void> {
    const patch = tracked.pending;
    tracked.pending = undefined;
    if (!patch) return;
    const id = tracked.job.id;
    try {
      // Checked at every try: a job that left polling meanwhile (an outcome, a choice) keeps that.
      const stored = await updateJob(this.deps.store, tracked.job, (now) =>
        !this.isPolling(tracked) || isTerminal(now.state) || now.delivery !== "pending" ? undefined : patch,
      );
      if (!stored) {
        this.deps.forget(id);
        return;
      }
      tracked.job = stored;
      // Someone else recorded an outcome (another engine's finish()): it gets delivered from there.
      if (isTerminal(stored.state) && tracked.mode === "poll") this.deps.hold(this.deps.takeOver(tracked));
    } catch (error) {
      this.deps.log.warn({ err: error, jobId: id }, "could not store the job's progress");
    }
  }
}

/**
 * Reads handed to the caps queue ahead of room to start them. A few, so that one starts as soon as
 * another ends (and a rate cap's window opens), while the choice of which stays with `DueReads`.
 */
const READS_AHEAD = 8;
