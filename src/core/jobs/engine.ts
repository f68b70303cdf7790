import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import PQueue from "p-queue";
import type { Claims, JobRecord, JobStore } from "../../store/index.js";
import type { JobState, NormalizedStatus } from "../api/job-status.js";
import { RateLimitedError, ServiceError, ServiceFailureError, userMessageOf } from "../errors.js";
import type { Logger } from "../log.js";
import type { Actor } from "../ports.js";
import type { JobHooks, TrackRequest } from "./contract.js";
import { Delivery } from "./delivery.js";
import { Pace } from "./pace.js";
import {
  backoff,
  jittered,
  type PolicyOverrides,
  type PollPolicy,
  pollDelay,
  resolvePolicy,
  resumeDelay,
} from "./policy.js";
import { isTerminal, type Outcome, type Patch, updateJob } from "./records.js";
import { Scheduler } from "./scheduler.js";
import { EditThrottle } from "./throttle.js";

export interface JobEngineOptions {
  store: JobStore;
  claims: Claims;
  hooks: JobHooks<JobRecord>;
  logger: Logger;
  /** Time for ages, stuck limits and edit intervals; timers still wait in real time. */
  clock?: { now(): number };
  /** Defaults of policy.ts, changed field by field (durations scaled with `scaledPolicy` in tests). */
  policy?: PolicyOverrides;
  /** Owner name on this engine's claims; unique per process (two engines must never share one). */
  instanceId?: string;
}

export interface JobEngine {
  /** Persists the job (state queued) and, once started, polls it soon. */
  track(req: TrackRequest): Promise<JobRecord>;
  /**
   * A flow learned the outcome itself (a confirm answer, a synchronous mockup, a selfie avatar):
   * records it and delivers it exactly once, however often and wherever it is called. `status`
   * must be done or failed. A delivery that fails is retried by the engine; this does not throw.
   */
  finish(jobId: string, status: NormalizedStatus): Promise<void>;
  /** Polls a job again, typically one that waited in needs_choice. */
  resume(jobId: string): Promise<void>;
  get(jobId: string): Promise<JobRecord | undefined>;
  listFor(actor: Actor, limit: number): Promise<JobRecord[]>;
  countActive(actor: Actor): Promise<number>;
  /** Takes up every unfinished job and every undelivered result of the store. */
  start(): Promise<void>;
  /** Stops timers, waits for the reads, edits and deliveries in flight, and releases the claims. */
  stop(): Promise<void>;
}

function isRunning(state: JobState): boolean {
  return state === "queued" || state === "working" || state === "retrying";
}

export function createJobEngine(opts: JobEngineOptions): JobEngine {
  return new Engine(opts);
}

interface Shown {
  state: JobState;
  progress: number | null;
}

/** One job this engine looks after: it holds the job's poll lease, or delivers it. */
interface Tracked {
  /** The stored record, as last read or written: what the hooks see. */
  job: JobRecord;
  mode: "poll" | "deliver";
  /** The last status read, stored or not: what "no change" and "stuck" compare with. */
  seen: Shown;
  /** What was last sent to the store (written, or queued behind other writes). */
  stored: Shown;
  lastMoveAt: number;
  pace: Pace;
  /** Consecutive failed status reads. */
  errors: { count: number; since: number } | undefined;
  /** Changes not yet written: later ones merge into it while it waits for the store. */
  pending: Patch | undefined;
  /** The write of `pending` under way or queued, if any. */
  flushing: Promise<void> | undefined;
  /** The outcome to deliver, until it is stored. */
  outcome?: Outcome;
}

/**
 * Double work between engines sharing a store is prevented by claims, never by partitioning
 * (which would need to know who else is alive):
 * - polling: an engine polls a job only while it holds the job's `poll:<id>` lease; it renews all
 *   its leases together every third of their life and releases them on stop, and a crashed
 *   engine's leases expire so that another engine's sweep (or its own restart) takes the jobs.
 * - delivering: the `deliver:<id>` claim plus the record's delivery state (see delivery.ts).
 */
class Engine implements JobEngine {
  private readonly policy: PollPolicy;
  private readonly now: () => number;
  private readonly owner: string;
  private readonly store: JobStore;
  private readonly claims: Claims;
  private readonly hooks: JobHooks<JobRecord>;
  private readonly log: Logger;
  /** The caps toward the service: every status read goes through it. */
  private readonly reads: PQueue;
  /**
   * Store writes off the critical path (progress, leases), a few at a time: the store runs its
   * statements in order, and a burst of these must not stand between a finished job and its post.
   */
  private readonly background = new PQueue({ concurrency: 2 });
  private readonly scheduler: Scheduler;
  private readonly throttle: EditThrottle;
  private readonly delivery: Delivery;
  private readonly jobs = new Map<string, Tracked>();
  /** Deliveries under way in this engine, so a second finish() joins the first. */
  private readonly delivering = new Map<string, Promise<void>>();
  /** Aborted on stop: the status reads in flight. */
  private readonly readControllers = new Set<AbortController>();
  /** Everything stop() must wait for. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private running = false;
  private timers: NodeJS.Timeout[] = [];
  private sweeping: Promise<void> | undefined;
  private renewing: Promise<void> | undefined;

  constructor(opts: JobEngineOptions) {
    this.policy = resolvePolicy(opts.policy);
    const clock = opts.clock;
    this.now = clock ? () => clock.now() : Date.now;
    this.owner = opts.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.store = opts.store;
    this.claims = opts.claims;
    this.hooks = opts.hooks;
    this.log = opts.logger.child({ component: "jobs" });
    const { maxConcurrentRequests, maxRequestsPerSecond } = this.policy;
    this.reads = new PQueue({
      concurrency: maxConcurrentRequests,
      ...(Number.isFinite(maxRequestsPerSecond)
        ? { intervalCap: maxRequestsPerSecond, interval: 1_000, strict: true }
        : {}),
    });
    this.scheduler = new Scheduler(this.now, (id) => this.due(id));
    this.throttle = new EditThrottle(this.policy.minEditIntervalMs, this.now);
    this.delivery = new Delivery({
      store: this.store,
      claims: this.claims,
      hooks: this.hooks,
      logger: this.log,
      owner: this.owner,
      claimMs: this.policy.deliveryClaimMs,
      undeliverableTries: this.policy.undeliverableTries,
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The API
  // ---------------------------------------------------------------------------------------------

  async track(req: TrackRequest): Promise<JobRecord> {
    const { platform, tenantId, userId } = req.requester;
    const job = await this.store.create({
      kind: req.kind,
      command: req.command,
      serviceJobId: req.serviceJobId,
      requester: { platform, tenantId, userId },
      conversation: req.conversation,
      message: req.message,
      inputs: req.inputs,
    });
    // Before start() (or after stop()) the record is all: start() takes it up.
    if (this.running) await this.takeUp(job, "soon");
    return job;
  }

  async finish(jobId: string, status: NormalizedStatus): Promise<void> {
    if (!isTerminal(status.state))
      throw new TypeError(`finish() takes a done or failed status, not ${status.state}`);
    const under = this.delivering.get(jobId);
    if (under) return under;
    const tracked = this.jobs.get(jobId);
    const job = tracked ? await this.leavePolling(tracked) : await this.store.get(jobId);
    if (!job) throw new Error(`finish(): no job ${jobId}`);
    return this.deliver(jobId, job, outcomeOf(status));
  }

  async resume(jobId: string): Promise<void> {
    const tracked = this.jobs.get(jobId);
    if (tracked) {
      if (tracked.mode === "poll") this.scheduler.schedule(jobId, this.now() + this.policy.firstPollMs);
      return;
    }
    let job = await this.store.get(jobId);
    if (!job) throw new Error(`resume(): no job ${jobId}`);
    if (job.state === "needs_choice") {
      // The choice is made: the job is running again, for a restart as much as for this engine.
      job = await updateJob(this.store, job, (now) =>
        now.state === "needs_choice" ? { state: "working" } : undefined,
      );
    }
    if (job && this.running) await this.takeUp(job, "soon");
  }

  get(jobId: string): Promise<JobRecord | undefined> {
    return this.store.get(jobId);
  }

  listFor(actor: Actor, limit: number): Promise<JobRecord[]> {
    return this.store.listByRequester(requesterOf(actor), limit);
  }

  countActive(actor: Actor): Promise<number> {
    return this.store.countActiveByRequester(requesterOf(actor));
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.timers = [
      setInterval(() => this.hold(this.sweep()), this.policy.sweepIntervalMs),
      setInterval(() => this.hold(this.renewLeases()), this.policy.pollLeaseMs / 3),
    ];
    await this.sweep();
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.scheduler.stop();
    this.reads.clear();
    for (const controller of this.readControllers) controller.abort(new Error("job engine stopping"));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.throttle.idle();
    const polled = [...this.jobs.values()].filter((t) => t.mode === "poll");
    this.jobs.clear();
    await Promise.all(polled.map((t) => this.releaseLease(t.job.id)));
  }

  // ---------------------------------------------------------------------------------------------
  // Taking jobs up
  // ---------------------------------------------------------------------------------------------

  /** Every unfinished job of the store that nobody looks after becomes this engine's. */
  private sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        for await (const page of this.store.listUnfinished()) {
          await Promise.all(page.map((job) => this.takeUp(job, "spread")));
        }
      } catch (error) {
        this.log.error({ err: error }, "could not scan the store for unfinished jobs");
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /** `soon` for a job someone waits on (just tracked, just resumed); `spread` for jobs found in the store. */
  private async takeUp(job: JobRecord, first: "soon" | "spread"): Promise<void> {
    const known = this.jobs.get(job.id);
    if (known) {
      // Another engine recorded an outcome (a flow's finish() there): stop polling, make sure it is delivered.
      if (known.mode === "poll" && job.version > known.job.version && isTerminal(job.state)) {
        this.hold(this.leavePolling(known).then(() => this.deliver(job.id, job)));
      }
      return;
    }
    if (job.delivery === "delivered" || job.state === "needs_choice") return;
    if (isTerminal(job.state)) {
      this.enterDelivery(job, undefined, 0);
      return;
    }
    if (!(await this.claims.acquire(leaseKey(job.id), this.owner, this.policy.pollLeaseMs))) return;
    // Read again under the lease: a sweep's list may predate the last holder's final write (a
    // choice to wait for, an outcome), and polling from that snapshot would redo what it did.
    const fresh = await this.store.get(job.id).catch((error: unknown) => {
      this.log.warn({ err: error, jobId: job.id }, "could not read the job to take it up");
      return undefined;
    });
    if (!fresh || !this.running || this.jobs.has(job.id) || !isRunning(fresh.state)) {
      await this.releaseLease(job.id);
      if (fresh && this.running && isTerminal(fresh.state) && fresh.delivery !== "delivered") {
        this.enterDelivery(fresh, undefined, 0);
      }
      return;
    }
    const now = this.now();
    this.jobs.set(job.id, tracking(fresh, "poll"));
    this.throttle.seed(job.id, fresh.state, fresh.progress, now);
    const delay =
      first === "soon"
        ? jittered(this.policy.firstPollMs, this.policy.jitter)
        : resumeDelay(this.policy, fresh.kind, now - fresh.createdAt);
    this.scheduler.schedule(job.id, now + delay);
  }

  /** Ends polling of a job here (its outcome is known); resolves with its latest stored record. */
  private async leavePolling(tracked: Tracked): Promise<JobRecord> {
    const id = tracked.job.id;
    const wasPolling = tracked.mode === "poll";
    tracked.mode = "deliver";
    // The outcome supersedes progress not yet written; the delivery writes it under its claim.
    tracked.pending = undefined;
    this.scheduler.cancel(id);
    await this.throttle.settle(id);
    if (wasPolling) this.hold(this.background.add(() => this.releaseLease(id)));
    return tracked.job;
  }

  // ---------------------------------------------------------------------------------------------
  // Polling
  // ---------------------------------------------------------------------------------------------

  private due(id: string): void {
    const tracked = this.jobs.get(id);
    if (!tracked || !this.running) return;
    if (tracked.mode === "deliver") {
      this.hold(this.deliver(id, tracked.job, tracked.outcome));
      return;
    }
    void this.reads.add(() => this.read(tracked));
  }

  /** One status read, run by the queue of caps; resolves when the read is over, not its handling. */
  private async read(tracked: Tracked): Promise<void> {
    if (!this.isPolling(tracked)) return;
    const controller = new AbortController();
    const timeout = setTimeout(
      () => controller.abort(new Error("status read timed out")),
      this.policy.requestTimeoutMs,
    );
    this.readControllers.add(controller);
    const read = this.fetchStatus(tracked.job, controller.signal).finally(() => {
      clearTimeout(timeout);
      this.readControllers.delete(controller);
    });
    this.hold(
      read.then(
        (status) => this.onStatus(tracked, status),
        (error: unknown) => this.onReadError(tracked, error),
      ),
    );
    await read.catch(() => undefined);
  }

  /** The hook, with a synchronous throw turned into a rejection like any other failed read. */
  private async fetchStatus(job: JobRecord, signal: AbortSignal): Promise<NormalizedStatus> {
    return this.hooks.fetchStatus(job, signal);
  }

  private isPolling(tracked: Tracked): boolean {
    return this.running && tracked.mode === "poll" && this.jobs.get(tracked.job.id) === tracked;
  }

  private async onStatus(tracked: Tracked, status: NormalizedStatus): Promise<void> {
    if (!this.isPolling(tracked)) return;
    const now = this.now();
    const { job } = tracked;
    tracked.errors = undefined;
    if (status.state !== tracked.seen.state || status.progress !== tracked.seen.progress) {
      tracked.seen = { state: status.state, progress: status.progress };
      tracked.lastMoveAt = now;
    }
    tracked.pace.observe(status.state, status.progress, now);

    if (status.state === "needs_choice") return this.awaitChoice(tracked, status);
    if (status.terminal || isTerminal(status.state)) return this.settle(tracked, outcomeOf(status));
    const stuckAfterMs = this.policy.kinds[job.kind].stuckAfterMs;
    if (now - tracked.lastMoveAt >= stuckAfterMs) {
      const at = status.progress === null ? "" : ` at ${Math.round(status.progress)}%`;
      return this.settle(tracked, {
        status: { ...status, state: "failed", terminal: true },
        error: {
          code: "job.stuck",
          message: `The job made no progress for ${duration(stuckAfterMs)} (stuck${at}), so the bot stopped waiting for it. Try again; if it happens again, the media service may be having trouble.`,
        },
      });
    }

    if (this.worthStoring(tracked.stored, status))
      this.write(tracked, { state: status.state, progress: status.progress });
    this.throttle.offer(job.id, status, () => this.show(tracked, status));
    const delay = pollDelay(this.policy, {
      kind: job.kind,
      ageMs: now - job.createdAt,
      remainingMs: tracked.pace.remainingMs(now),
    });
    this.scheduler.schedule(job.id, now + delay);
  }

  /** A state change, or progress moved by a step: a restart then resumes close to where it was. */
  private worthStoring(stored: Shown, status: NormalizedStatus): boolean {
    if (status.state !== stored.state) return true;
    if (status.progress === null || stored.progress === null) return status.progress !== stored.progress;
    return Math.abs(status.progress - stored.progress) >= this.policy.progressStep;
  }

  /**
   * A failed read is no verdict on the job (5xx, timeouts and malformed answers outlast the
   * client's own retries now and then): back off and read again, and give up only after
   * `giveUpAfterMs` (30 minutes by default) of nothing but failures, or `giveUpPermanentAfterMs`
   * (3 minutes) for answers that waiting does not mend (see `lasting`).
   */
  private onReadError(tracked: Tracked, error: unknown): void {
    if (!this.isPolling(tracked)) return;
    const now = this.now();
    const { job } = tracked;
    const errors = tracked.errors ?? { count: 0, since: now };
    errors.count += 1;
    tracked.errors = errors;
    const limit = lasting(error) ? this.policy.giveUpPermanentAfterMs : this.policy.giveUpAfterMs;
    if (now - errors.since >= limit) {
      this.log.error(
        { err: error, jobId: job.id, failures: errors.count },
        "job status unreadable: giving up",
      );
      this.hold(
        this.settle(tracked, {
          status: { state: "failed", progress: tracked.seen.progress, terminal: true },
          error: {
            code: "job.unreachable",
            message: `The bot could not read this job's status for ${duration(limit)}, so it stopped waiting: ${userMessageOf(error)}`,
          },
        }),
      );
      return;
    }
    const level = errors.count === 1 ? "warn" : "debug";
    this.log[level](
      { err: error, jobId: job.id, failures: errors.count },
      "job status read failed; will retry",
    );
    const { errorBaseMs, errorMaxMs } = this.policy;
    const wait = Math.max(
      backoff(errors.count, errorBaseMs, errorMaxMs),
      error instanceof RateLimitedError ? (error.retryAfterMs ?? 0) : 0,
      pollDelay(this.policy, { kind: job.kind, ageMs: now - job.createdAt, remainingMs: undefined }),
    );
    this.scheduler.schedule(job.id, now + wait);
  }

  /** The user chooses (photo-avatar variants): show the choice once, then wait for resume() or finish(). */
  private async awaitChoice(tracked: Tracked, status: NormalizedStatus): Promise<void> {
    const id = tracked.job.id;
    this.jobs.delete(id);
    tracked.pending = undefined;
    // Written before the buttons show, so a click (resume, finish) finds the job waiting.
    const waiting = await updateJob(this.store, tracked.job, (now) =>
      isTerminal(now.state) || now.delivery !== "pending"
        ? undefined
        : { state: "needs_choice", progress: status.progress, result: status.result ?? null },
    ).catch((error: unknown) =>
      this.log.warn({ err: error, jobId: id }, "could not store the choice to make"),
    );
    if (waiting) tracked.job = waiting;
    await this.throttle.force(id, status, () => this.show(tracked, status));
    await this.throttle.settle(id);
    await this.releaseLease(id);
  }

  private async show(tracked: Tracked, status: NormalizedStatus): Promise<void> {
    try {
      await this.hooks.showProgress(tracked.job, status);
    } catch (error) {
      // A lost progress edit is cosmetic: the next change, or the result, replaces it.
      this.log.warn({ err: error, jobId: tracked.job.id }, "progress edit failed");
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
    tracked.flushing = this.background
      .add(() => this.writePending(tracked))
      .finally(() => {
        tracked.flushing = undefined;
        this.flush(tracked);
      });
    this.hold(tracked.flushing);
  }

  private async writePending(tracked: Tracked): Promise<void> {
    const patch = tracked.pending;
    tracked.pending = undefined;
    if (!patch) return;
    const id = tracked.job.id;
    try {
      // Checked at every try: a job that left polling meanwhile (an outcome, a choice) keeps that.
      const stored = await updateJob(this.store, tracked.job, (now) =>
        !this.isPolling(tracked) || isTerminal(now.state) || now.delivery !== "pending" ? undefined : patch,
      );
      if (!stored) {
        this.forget(id);
        return;
      }
      tracked.job = stored;
      // Someone else recorded an outcome (another engine's finish()): it gets delivered from there.
      if (isTerminal(stored.state) && tracked.mode === "poll") this.hold(this.takeOver(tracked));
    } catch (error) {
      this.log.warn({ err: error, jobId: id }, "could not store the job's progress");
    }
  }

  private async takeOver(tracked: Tracked): Promise<void> {
    const latest = await this.leavePolling(tracked);
    await this.deliver(latest.id, latest);
  }

  // ---------------------------------------------------------------------------------------------
  // Ending and delivering
  // ---------------------------------------------------------------------------------------------

  private async settle(tracked: Tracked, outcome: Outcome): Promise<void> {
    const latest = await this.leavePolling(tracked);
    await this.deliver(latest.id, latest, outcome);
  }

  /** One delivery per job at a time in this engine; the claim takes care of the other engines. */
  private deliver(id: string, job: JobRecord, outcome?: Outcome): Promise<void> {
    const under = this.delivering.get(id);
    if (under) return under;
    const attempt = (async () => {
      const result = await this.delivery.run(job, outcome);
      switch (result.kind) {
        case "delivered":
        case "settled":
        case "abandoned":
          this.forget(id);
          return;
        case "busy":
          // Whoever holds the claim delivers; if it crashed, its claim expires within this wait.
          this.enterDelivery(job, outcome, this.policy.deliveryClaimMs);
          return;
        case "retry": {
          const { deliveryBaseMs, deliveryMaxMs } = this.policy;
          const wait = backoff(result.attempts, deliveryBaseMs, deliveryMaxMs);
          this.log.warn(
            { err: result.error, jobId: id, attempts: result.attempts, retryInMs: Math.round(wait) },
            "delivery failed; will retry",
          );
          this.enterDelivery({ ...job, attempts: result.attempts }, outcome, wait);
        }
      }
    })().finally(() => this.delivering.delete(id));
    this.delivering.set(id, attempt);
    this.hold(attempt);
    return attempt;
  }

  /** Keeps a job whose delivery waits (for a retry, a claim, or the first try after start). */
  private enterDelivery(job: JobRecord, outcome: Outcome | undefined, waitMs: number): void {
    if (!this.running) return;
    const tracked = this.jobs.get(job.id);
    if (tracked && tracked.mode === "poll") return;
    this.jobs.set(job.id, { ...tracking(job, "deliver"), ...(outcome ? { outcome } : {}) });
    this.scheduler.schedule(job.id, this.now() + waitMs);
  }

  private forget(id: string): void {
    this.jobs.delete(id);
    this.scheduler.cancel(id);
  }

  // ---------------------------------------------------------------------------------------------
  // Leases and bookkeeping
  // ---------------------------------------------------------------------------------------------

  /**
   * Every lease, well before it lapses, through the background lane (ten thousand renewals at once
   * would queue ahead of everything else in the store). One that is lost means another engine has
   * the job.
   */
  private renewLeases(): Promise<void> {
    this.renewing ??= this.renewAll().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renewAll(): Promise<void> {
    const polled = [...this.jobs.values()].filter((t) => t.mode === "poll");
    await Promise.all(
      polled.map((tracked) =>
        this.background.add(async () => {
          if (!this.isPolling(tracked)) return; // stopped, or the job left meanwhile
          const id = tracked.job.id;
          try {
            if (await this.claims.renew(leaseKey(id), this.owner, this.policy.pollLeaseMs)) return;
            if (await this.claims.acquire(leaseKey(id), this.owner, this.policy.pollLeaseMs)) return;
            this.log.warn({ jobId: id }, "poll lease lost to another engine; leaving the job to it");
            if (this.isPolling(tracked)) this.forget(id);
          } catch (error) {
            this.log.warn({ err: error, jobId: id }, "poll lease renewal failed");
          }
        }),
      ),
    );
  }

  private async releaseLease(id: string): Promise<void> {
    // Not released (store down): it expires on its own, and the job waits that long at worst.
    await this.claims.release(leaseKey(id), this.owner).catch(() => false);
  }

  private hold(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => this.log.error({ err: error }, "job engine task failed"));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }
}

function tracking(job: JobRecord, mode: Tracked["mode"]): Tracked {
  const shown = { state: job.state, progress: job.progress };
  return {
    job,
    mode,
    seen: shown,
    stored: shown,
    lastMoveAt: job.lastProgressAt,
    pace: new Pace(),
    errors: undefined,
    pending: undefined,
    flushing: undefined,
  };
}

/**
 * Answers that waiting does not mend: the key, or the job, is not (or no longer) valid - a 4xx
 * other than 429, or the service's failure envelope ("video job not found"). Everything else
 * (5xx, timeouts, malformed answers, anything unknown) is transient.
 */
function lasting(error: unknown): boolean {
  if (error instanceof ServiceFailureError) return true;
  const status = error instanceof ServiceError ? error.status : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 429;
}

function leaseKey(id: string): string {
  return `poll:${id}`;
}

function requesterOf(actor: Actor) {
  return { platform: actor.platform, tenantId: actor.tenantId, userId: actor.userId };
}

function outcomeOf(status: NormalizedStatus): Outcome {
  if (status.state !== "failed") return { status, error: null };
  return {
    status,
    error: {
      code: "job.failed",
      message: status.message ?? "The media service reported that the job failed.",
    },
  };
}

/** "30 minutes", "2 minutes", "45 seconds": for messages people read. */
function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 2) return `${minutes} minutes`;
  const seconds = Math.max(1, Math.round(ms / 1_000));
  return seconds === 60 ? "1 minute" : `${seconds} seconds`;
}
