import { setTimeout as sleep } from "node:timers/promises";
import {
  type Claims,
  type Indexes,
  type JobRecord,
  type JobStore,
  newJobId,
  type StoreAvailability,
} from "../../store/index.js";
import type { JobState, NormalizedStatus } from "../api/job-status.js";
import type { Intake } from "../intake.js";
import type { Logger } from "../log.js";
import type { Actor } from "../ports.js";
import type { Announce, JobHooks, TrackRequest } from "./contract.js";
import { Delivery } from "./delivery.js";
import { despiteOutage } from "./despite-outage.js";
import { defaultInstanceId, Liveness } from "./liveness.js";
import { expiredChoiceOutcome, outcomeOf } from "./outcomes.js";
import { Ownership } from "./ownership.js";
import {
  backoff,
  jittered,
  type PolicyOverrides,
  type PollPolicy,
  resolvePolicy,
  resumeDelay,
} from "./policy.js";
import { Poller } from "./poller.js";
import { isTerminal, type Outcome, statusOf, updateJob } from "./records.js";
import { Recovery } from "./recovery.js";
import { Scheduler } from "./scheduler.js";
import { EditThrottle } from "./throttle.js";
import { type Tracked, tracking } from "./tracked.js";

export interface JobEngineOptions {
  store: JobStore;
  claims: Claims;
  indexes: Indexes;
  hooks: JobHooks<JobRecord>;
  logger: Logger;
  /** What else to answer for when an instance's last process is gone (its own after a restart, or a lapsed one's). */
  leftBehind?: (instanceId: string) => Promise<void>;
  /** Time for ages, stuck limits and edit intervals; timers still wait in real time. */
  clock?: { now(): number };
  /** Defaults of policy.ts, changed field by field (durations scaled with `scaledPolicy` in tests). */
  policy?: PolicyOverrides;
  /**
   * The instance's stable name (INSTANCE_ID): a restart under the same name takes its jobs back
   * at once. Default: host name plus working directory, suffixed when a live process has it.
   */
  instanceId?: string;
  /** The bot's incoming requests: status reads and deliveries wait while a burst of them arrives. */
  intake?: Pick<Intake, "settled">;
  /**
   * The store's outages: a job the service accepted while the store is away is recorded once it
   * is back, and the work that waited resumes at once then rather than at its next backoff.
   */
  availability?: Pick<StoreAvailability, "whenAvailable" | "onBack">;
}

export interface JobEngine {
  /**
   * Persists the job (state queued) and, once started, polls it soon. With `announce`, the job's
   * message is posted after the record is stored (a crash between the service's answer and the
   * record would forget a paid job) and recorded before polling starts.
   */
  track(req: TrackRequest, announce?: Announce): Promise<JobRecord>;
  /**
   * A flow learned the outcome itself (a confirm answer, a synchronous mockup, a selfie avatar):
   * records it and delivers it exactly once, however often and wherever it is called. `status`
   * must be done or failed. A delivery that fails is retried by the engine; this does not throw.
   */
  finish(jobId: string, status: NormalizedStatus): Promise<void>;
  /**
   * Polls a job again, here: one that waited in needs_choice, or whose choice was sent without a
   * definite answer (the service's status then says what it did).
   */
  resume(jobId: string): Promise<void>;
  /**
   * A choice is about to be sent to the service: the job leaves needs_choice for polling's state
   * (working) and becomes this instance's, so that if the answer is lost, or this process dies
   * before recording it, the job's status is read again instead of the choice being forgotten.
   * Undefined when the job no longer waits for a choice.
   */
  beginChoice(jobId: string): Promise<JobRecord | undefined>;
  get(jobId: string): Promise<JobRecord | undefined>;
  listFor(actor: Actor, limit: number): Promise<JobRecord[]>;
  countActive(actor: Actor): Promise<number>;
  /** Starts the heartbeat; takes up this instance's jobs, those of lapsed instances and orphans. */
  start(): Promise<void>;
  /**
   * Stops timers, waits (up to `deadlineMs`) for the reads, edits and deliveries in flight, then
   * hands the jobs back: the heartbeat is released, so another instance, or this one's restart,
   * takes them at once.
   */
  stop(options?: { deadlineMs?: number }): Promise<void>;
  /** Who this instance is, and claims that a crash of the holder frees at once. */
  readonly liveness: Liveness;
}

function isRunning(state: JobState): boolean {
  return state === "queued" || state === "working" || state === "retrying";
}

export function createJobEngine(opts: JobEngineOptions): JobEngine {
  return new Engine(opts);
}

/**
 * Double work between engines sharing a store is prevented by ownership and claims:
 * - polling: each unfinished job is owned by one instance (ownership.ts), which alone polls it;
 *   an instance's jobs stay its own while its heartbeat lives (liveness.ts), and are taken over
 *   by a live instance, or by its own restart, once it lapses (recovery.ts). Nothing per job is
 *   renewed, so staying alive costs the same whatever the number of jobs.
 * - delivering: the `deliver:<id>` claim plus the record's delivery state (see delivery.ts).
 */
class Engine implements JobEngine {
  readonly liveness: Liveness;
  private readonly policy: PollPolicy;
  private readonly now: () => number;
  private readonly store: JobStore;
  private readonly ownership: Ownership;
  private readonly recovery: Recovery;
  private readonly hooks: JobHooks<JobRecord>;
  private readonly log: Logger;
  private readonly poller: Poller;
  private readonly scheduler: Scheduler;
  private readonly throttle: EditThrottle;
  private readonly delivery: Delivery;
  private readonly jobs = new Map<string, Tracked>();
  /** Deliveries under way in this engine, so a second finish() joins the first. */
  private readonly delivering = new Map<string, Promise<void>>();
  /** Resolves once a burst of incoming requests has been acknowledged (intake.ts). */
  private readonly yielded: () => Promise<void>;
  /** Everything stop() must wait for. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private running = false;
  /** The heartbeat lapsed and is held again: jobs taken over meanwhile are being dropped. */
  private reclaiming = false;
  private timers: NodeJS.Timeout[] = [];
  /** At most one of each recurring scan at a time. */
  private readonly scanning = new Map<string, Promise<void>>();
  private readonly availability: JobEngineOptions["availability"];

  constructor(opts: JobEngineOptions) {
    this.policy = resolvePolicy(opts.policy);
    const clock = opts.clock;
    this.now = clock ? () => clock.now() : Date.now;
    this.store = opts.store;
    this.availability = opts.availability;
    opts.availability?.onBack(() => this.storeBack());
    this.hooks = opts.hooks;
    const intake = opts.intake;
    this.yielded = intake ? () => intake.settled() : () => Promise.resolve();
    this.log = opts.logger.child({ component: "jobs" });
    this.liveness = new Liveness({
      claims: opts.claims,
      indexes: opts.indexes,
      instanceId: opts.instanceId ?? defaultInstanceId(),
      explicit: opts.instanceId !== undefined,
      heartbeatMs: this.policy.heartbeatMs,
      lapseMs: this.policy.lapseMs,
      logger: opts.logger,
      availability: opts.availability,
    });
    this.ownership = new Ownership(opts.claims, opts.indexes);
    this.recovery = new Recovery({
      liveness: this.liveness,
      ownership: this.ownership,
      store: this.store,
      logger: this.log,
      leftBehind: opts.leftBehind ?? (async () => undefined),
      adopt: (job) => this.takeUp(job, "spread"),
      gateMs: this.policy.lapseMs * 4,
      orphanScanMs: this.policy.orphanScanMs,
    });
    this.scheduler = new Scheduler(this.now, (id) => this.due(id));
    this.throttle = new EditThrottle(this.policy.minEditIntervalMs, this.now);
    this.poller = new Poller({
      policy: this.policy,
      now: this.now,
      store: this.store,
      hooks: this.hooks,
      log: this.log,
      scheduler: this.scheduler,
      throttle: this.throttle,
      jobs: this.jobs,
      running: () => this.running,
      owns: () => this.liveness.fresh && !this.reclaiming,
      yielded: this.yielded,
      hold: (work) => this.hold(work),
      settle: (tracked, outcome) => this.settle(tracked, outcome),
      takeOver: (tracked) => this.takeOver(tracked),
      forget: (id) => this.forget(id),
    });
    this.delivery = new Delivery({
      store: this.store,
      liveness: this.liveness,
      claims: opts.claims,
      hooks: this.hooks,
      logger: this.log,
      claimMs: this.policy.deliveryClaimMs,
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The API
  // ---------------------------------------------------------------------------------------------

  async track(req: TrackRequest, announce?: Announce): Promise<JobRecord> {
    const { platform, tenantId, userId } = req.requester;
    const id = newJobId();
    // The service has the job and its credits: a store away now delays the record, never loses it.
    const created = await despiteOutage(this.availability, () =>
      this.store.create({
        id,
        kind: req.kind,
        command: req.command,
        serviceJobId: req.serviceJobId,
        requester: { platform, tenantId, userId },
        conversation: req.conversation,
        message: req.message,
        inputs: req.inputs,
      }),
    );
    // Before start() (or after stop()) the record is all: start() takes it up, as an orphan.
    const owned =
      this.running &&
      (await despiteOutage(this.availability, () => this.ownership.take(created.id, this.liveness.id)));
    const job = announce ? await this.attach(created, announce) : created;
    if (owned) await this.takeUp(job, "soon");
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

  /**
   * Posts the job's message once its record exists, and records the message before polling
   * starts, so that the result edits it. A crash in between leaves a job without a message,
   * which its restart polls and whose outcome gets a post of its own: never a paid job forgotten.
   */
  private async attach(job: JobRecord, announce: Announce): Promise<JobRecord> {
    const message = await announce();
    if (!message) return job;
    try {
      return (
        (await despiteOutage(this.availability, () => updateJob(this.store, job, () => ({ message })))) ?? job
      );
    } catch (error) {
      this.log.warn(
        { err: error, jobId: job.id },
        "job message posted but not recorded; its outcome gets a post",
      );
      return job;
    }
  }

  async resume(jobId: string): Promise<void> {
    const tracked = this.jobs.get(jobId);
    if (tracked?.mode === "poll") {
      this.scheduler.schedule(jobId, this.now() + this.policy.firstPollMs);
      return;
    }
    if (tracked?.mode === "deliver") return;
    const job = await this.beginChoice(jobId);
    if (job && this.running) await this.takeUp(job, "soon");
  }

  async beginChoice(jobId: string): Promise<JobRecord | undefined> {
    const job = await this.store.get(jobId);
    if (!job) throw new Error(`no job ${jobId}`);
    // Ours before it leaves needs_choice: whoever owns a running job polls it, so a crash from
    // here on is recovered by this instance's restart or by whoever takes over its jobs.
    await this.ownership.seize(jobId, this.liveness.id);
    if (this.jobs.get(jobId)?.mode === "choice") this.forget(jobId);
    const running = await updateJob(this.store, job, (now) =>
      now.state === "needs_choice" ? { state: "working" } : undefined,
    );
    return running && isRunning(running.state) ? running : undefined;
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
    await this.liveness.start();
    this.running = true;
    this.liveness.onTaken(() => this.dropPolling());
    this.liveness.onRegained(() => this.hold(this.scan("own", () => this.reclaim())));
    this.timers = [
      setInterval(
        () => this.hold(this.scan("dead", () => this.recovery.deadInstances())),
        this.policy.instanceCheckMs,
      ),
      setInterval(
        () => this.hold(this.scan("orphans", () => this.recovery.orphans({ gated: true }))),
        this.policy.orphanScanMs,
      ),
    ];
    // Every job found now is taken up before any is polled: the answers of the first polls would
    // compete with the take-up for the store and the event loop, and with fifty thousand jobs that
    // took it from 4 s to 99 s (bench/results/jobs-50k.md), jobs finishing meanwhile unseen.
    this.scheduler.pause();
    try {
      await this.recovery.ownJobs({ restarted: true });
      await this.recovery.deadInstances();
      await this.recovery.orphans({ gated: false });
    } finally {
      this.scheduler.resume();
    }
  }

  async stop({ deadlineMs = Number.POSITIVE_INFINITY }: { deadlineMs?: number } = {}): Promise<void> {
    const wasRunning = this.running;
    this.running = false;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.scheduler.stop();
    this.poller.stop();
    const deadline = Date.now() + deadlineMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) {
      const settled = Promise.allSettled([...this.inFlight]);
      await (Number.isFinite(deadlineMs)
        ? Promise.race([settled, sleep(Math.max(0, deadline - Date.now()), undefined, { ref: false })])
        : settled);
    }
    if (this.inFlight.size > 0)
      this.log.warn({ tasks: this.inFlight.size }, "stopped with work still in flight");
    await this.throttle.idle();
    this.jobs.clear();
    if (wasRunning) await this.liveness.stop({ handBack: true });
  }

  // ---------------------------------------------------------------------------------------------
  // Taking jobs up
  // ---------------------------------------------------------------------------------------------

  /** One run of a recurring scan at a time; a failed one is logged and tried at the next tick. */
  private scan(name: string, work: () => Promise<void>): Promise<void> {
    let running = this.scanning.get(name);
    if (!running) {
      running = work()
        .catch((error: unknown) => this.log.error({ err: error, scan: name }, "job recovery scan failed"))
        .finally(() => this.scanning.delete(name));
      this.scanning.set(name, running);
    }
    return running;
  }

  /**
   * A job this instance owns (just tracked, resumed, or found by recovery, which read it after
   * taking it): polled, delivered, or left waiting for its choice. `soon` for a job someone waits
   * on; `spread` for jobs found in the store.
   */
  private async takeUp(job: JobRecord, first: "soon" | "spread"): Promise<void> {
    const known = this.jobs.get(job.id);
    // A click on another instance took the choice this one waited for (beginChoice there): the
    // job runs again, and is this instance's to poll if it comes back to it (that one died).
    if (known?.mode === "choice" && job.state !== "needs_choice") this.forget(job.id);
    else if (known) {
      // Another engine recorded an outcome (a flow's finish() there): stop polling, make sure it is delivered.
      if (known.mode === "poll" && job.version > known.job.version && isTerminal(job.state)) {
        this.hold(this.leavePolling(known).then(() => this.deliver(job.id, job)));
      }
      return;
    }
    if (!this.running) return;
    if (job.delivery === "delivered") {
      this.hold(this.disown(job.id));
      return;
    }
    if (isTerminal(job.state)) {
      this.enterDelivery(job, undefined, 0);
      return;
    }
    const now = this.now();
    if (job.state === "needs_choice") {
      this.jobs.set(job.id, tracking(job, "choice"));
      this.scheduler.schedule(job.id, job.lastProgressAt + this.policy.choiceExpiresAfterMs);
      // The choice is stored before it is shown: a crash in between would leave nothing to click.
      // Showing it again is an edit of the same message, harmless when it was shown.
      if (first === "spread") this.hold(this.showChoice(job));
      return;
    }
    this.jobs.set(job.id, tracking(job, "poll"));
    this.throttle.seed(job.id, job.state, job.progress, now);
    const delay =
      first === "soon"
        ? jittered(this.policy.firstPollMs, this.policy.jitter)
        : Math.min(this.policy.maxResumeSpreadMs, resumeDelay(this.policy, job.kind, now - job.createdAt));
    this.scheduler.schedule(job.id, now + delay);
  }

  private async showChoice(job: JobRecord): Promise<void> {
    try {
      await this.hooks.showProgress(job, statusOf(job));
    } catch (error) {
      this.log.warn({ err: error, jobId: job.id }, "the choice to make could not be shown again");
    }
  }

  /** Another process has this instance's name: it polls these jobs now. */
  private dropPolling(): void {
    for (const [id, tracked] of this.jobs) if (tracked.mode !== "deliver") this.forget(id);
  }

  /**
   * The heartbeat lapsed and is back: drop the jobs another instance took over meanwhile (once a
   * takeover under way is done), and take up what is still this instance's but not tracked here.
   * No status is read until then: the other instance may be polling some of them already.
   */
  private async reclaim(): Promise<void> {
    this.reclaiming = true;
    try {
      await this.recovery.ownJobs({
        restarted: false,
        held: {
          ids: () => [...this.jobs].filter(([, tracked]) => tracked.mode !== "deliver").map(([id]) => id),
          drop: (ids) => {
            for (const id of ids) this.forget(id);
          },
        },
      });
    } finally {
      this.reclaiming = false;
    }
  }

  /** Ends polling of a job here (its outcome is known); resolves with its latest stored record. */
  private async leavePolling(tracked: Tracked): Promise<JobRecord> {
    const id = tracked.job.id;
    tracked.mode = "deliver";
    // The outcome supersedes progress not yet written; the delivery writes it under its claim.
    tracked.pending = undefined;
    this.scheduler.cancel(id);
    await this.throttle.settle(id);
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
    if (tracked.mode === "choice") {
      this.hold(this.expireChoice(tracked));
      return;
    }
    this.poller.poll(tracked);
  }

  /**
   * Nobody chose in time: the job ends, its buttons give way to a line saying why. Under the
   * choice claim, so that a click arriving now either wins (and this does nothing) or is refused.
   */
  private async expireChoice(tracked: Tracked): Promise<void> {
    const id = tracked.job.id;
    const key = choiceKey(id);
    if (!(await this.liveness.claim(key, this.policy.lapseMs * 4))) {
      this.scheduler.schedule(id, this.now() + this.policy.lapseMs);
      return;
    }
    try {
      const fresh = await this.store.get(id);
      if (fresh?.state !== "needs_choice" || this.jobs.get(id) !== tracked) {
        if (this.jobs.get(id) === tracked) this.forget(id);
        return;
      }
      tracked.job = fresh;
      await this.settle(tracked, expiredChoiceOutcome(fresh.progress, this.policy.choiceExpiresAfterMs));
    } finally {
      await this.liveness.release(key);
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
      await this.yielded();
      const result = await this.delivery.run(job, outcome);
      switch (result.kind) {
        case "delivered":
        case "settled":
        case "abandoned":
          this.forget(id);
          await this.disown(id);
          return;
        case "busy":
          // Whoever holds the claim delivers; if its process dies, the claim is free within this wait.
          this.enterDelivery(job, outcome, this.policy.lapseMs);
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

  /**
   * A finished job belongs to nobody; if this fails, the next recovery scan finds it finished.
   * Batched with the others finishing now (ownership.ts), so not in the poller's background lane,
   * whose few at a time would keep the batch from gathering them.
   */
  private async disown(id: string): Promise<void> {
    await this.ownership
      .release(id)
      .catch((error: unknown) =>
        this.log.warn({ err: error, jobId: id }, "could not release a finished job"),
      );
  }

  /**
   * The store answers again: renew the heartbeat now (its lapse during the outage made this
   * instance's polls wait), and run what waited on the store's backoffs (deliveries, reads)
   * within the next second rather than at the end of their waits.
   */
  private storeBack(): void {
    if (!this.running) return;
    this.liveness.storeReturned();
    const now = this.now();
    for (const [id, tracked] of this.jobs) {
      if (tracked.mode === "deliver" || tracked.errors)
        this.scheduler.schedule(id, now + Math.random() * 1_000);
    }
  }

  private hold(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => this.log.error({ err: error }, "job engine task failed"));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }
}

/** The claim of a variant choice being made (flows/actions.ts) or expiring (here). */
export function choiceKey(jobId: string): string {
  return `choice:${jobId}`;
}

function requesterOf(actor: Actor) {
  return { platform: actor.platform, tenantId: actor.tenantId, userId: actor.userId };
}
