import {
  type Claims,
  type Indexes,
  type JobRecord,
  type JobStore,
  newJobId,
  replicatedWrite,
  type StoreAvailability,
} from "../../store/index.js";
import type { JobState, NormalizedStatus } from "../api/job-status.js";
import { Incidents } from "../base/incidents.js";
import type { Logger } from "../base/log.js";
import type { Actor } from "../base/ports.js";
import type { Intake } from "../intake/intake.js";
import { Choices } from "./choices.js";
import type { Announce, JobHooks, TrackRequest } from "./contract.js";
import { Deliveries } from "./deliveries.js";
import { Delivery } from "./delivery.js";
import { despiteOutage, duringOutage } from "./despite-outage.js";
import { defaultInstanceId, Liveness } from "./liveness.js";
import { outcomeOf } from "./outcomes.js";
import { Ownership } from "./ownership.js";
import { type PolicyOverrides, type PollPolicy, resolvePolicy } from "./policy.js";
import { type Leaving, Poller } from "./poller.js";
import { isTerminal, type Outcome, updateJob } from "./records.js";
import { type Findings, Recovery } from "./recovery.js";
import { Tasks } from "./tasks.js";

export { choiceKey } from "./choices.js";

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
  intake?: Pick<Intake, "settled" | "heldFor">;
  /**
   * The store's outages: a job the service accepted while the store is away is recorded once it
   * is back, and the work that waited resumes at once then rather than at its next backoff.
   */
  availability?: Pick<StoreAvailability, "whenAvailable" | "onBack" | "available">;
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
  /**
   * `listener` hears of each job whose outcome this engine learned (the service said done or
   * failed, a flow finished it, or the engine gave up on it), or found recorded and not yet
   * delivered, before the delivery starts (and before the job's last progress edit lands):
   * whatever waited for the job to end (a running place it held) need not wait for its result to
   * be posted. The delivery goes on whatever the listener does, and is durable: a crash from here
   * on posts the outcome once all the same (delivery.ts). The record given may not say the outcome
   * yet (it is recorded as the delivery starts). A job may be told of more than once (two engines
   * finishing it, a restart reading its status again), so a listener must not mind hearing it
   * twice.
   */
  onOutcome(listener: (job: JobRecord) => void): void;
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
 * The engine's parts, each keeping its own jobs: the poller reads the running ones, `choices`
 * keeps those waiting for a person's choice, `deliveries` those whose outcome is known; recovery
 * finds the ones this instance must take up. The engine routes a job found or resumed to its part,
 * and is the one door from polling (or a choice) to delivery: `handOff`.
 *
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
  private readonly store: JobStore;
  private readonly ownership: Ownership;
  private readonly recovery: Recovery;
  private readonly log: Logger;
  private readonly poller: Poller;
  private readonly choices: Choices;
  private readonly deliveries: Deliveries;
  /** The engine's own work in the background: releases of finished jobs, recovery scans. */
  private readonly tasks: Tasks;
  private readonly outcomeListeners: ((job: JobRecord) => void)[] = [];
  private running = false;
  /** The heartbeat lapsed and is held again: jobs taken over meanwhile are being dropped. */
  private reclaiming = false;
  private timers: NodeJS.Timeout[] = [];
  /** At most one of each recurring scan at a time. */
  private readonly scanning = new Map<string, Promise<void>>();
  private readonly availability: JobEngineOptions["availability"];
  private readonly claims: Claims;

  constructor(opts: JobEngineOptions) {
    const policy = resolvePolicy(opts.policy);
    const clock = opts.clock;
    const now = clock ? () => clock.now() : Date.now;
    const log = opts.logger.child({ component: "jobs" });
    this.policy = policy;
    this.store = opts.store;
    this.log = log;
    this.tasks = new Tasks(log);
    this.availability = opts.availability;
    this.claims = opts.claims;
    opts.availability?.onBack(() => this.storeBack());
    this.liveness = new Liveness({
      claims: opts.claims,
      indexes: opts.indexes,
      instanceId: opts.instanceId ?? defaultInstanceId(),
      explicit: opts.instanceId !== undefined,
      heartbeatMs: policy.heartbeatMs,
      lapseMs: policy.lapseMs,
      logger: opts.logger,
      availability: opts.availability,
    });
    this.ownership = new Ownership(opts.claims, opts.indexes);
    this.recovery = new Recovery(
      { liveness: this.liveness, ownership: this.ownership, store: this.store },
      {
        log,
        leftBehind: opts.leftBehind ?? (async () => undefined),
        gateMs: policy.lapseMs * 4,
        orphanScanMs: policy.orphanScanMs,
      },
    );
    // A failure retried again and again is logged once with its count (base/incidents.ts).
    const shared = { policy, now, log, incidents: new Incidents(log, { now }), intake: opts.intake };
    this.poller = new Poller(
      {
        hooks: opts.hooks,
        store: this.store,
        owns: () => this.liveness.fresh && !this.reclaiming,
        left: (job, next) => this.left(job, next),
        ended: (job) => this.tellOutcome(job),
      },
      shared,
    );
    this.choices = new Choices(
      {
        store: this.store,
        claims: this.liveness,
        show: (job, status) => opts.hooks.showProgress(job, status),
        expired: (job, outcome) => this.handOff(job.id, outcome, job),
      },
      shared,
    );
    const delivery = new Delivery({
      store: this.store,
      liveness: this.liveness,
      claims: opts.claims,
      hooks: opts.hooks,
      logger: log,
      claimMs: policy.deliveryClaimMs,
    });
    // A job whose delivery is over for good belongs to nobody.
    this.deliveries = new Deliveries({ delivery, closed: (id) => this.disown(id) }, shared);
  }

  // ---------------------------------------------------------------------------------------------
  // The API
  // ---------------------------------------------------------------------------------------------

  async track(req: TrackRequest, announce?: Announce): Promise<JobRecord> {
    const { platform, tenantId, userId } = req.requester;
    const id = req.id ?? newJobId();
    // The service has the job and its credits: a store away now delays the record, never loses
    // it, and a replica holds it before anything follows (a failover cannot forget the job).
    const created = await despiteOutage(this.availability, () =>
      replicatedWrite(this.claims, () =>
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
      ),
    );
    // Before start() (or after stop()) the record is all: start() takes it up, as an orphan.
    const owned =
      this.running &&
      (await despiteOutage(this.availability, () => this.ownership.take(created.id, this.liveness.id)));
    const job = announce ? await this.attach(created, announce) : created;
    if (owned) this.takeUp(job, "soon");
    return job;
  }

  async finish(jobId: string, status: NormalizedStatus): Promise<void> {
    if (!isTerminal(status.state))
      throw new TypeError(`finish() takes a done or failed status, not ${status.state}`);
    return this.deliveries.joining(jobId) ?? this.handOff(jobId, outcomeOf(status));
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
      // Kept by a replica: a job whose message were forgotten would post its result apart from it.
      const attached = await despiteOutage(this.availability, () =>
        replicatedWrite(this.claims, () => updateJob(this.store, job, () => ({ message }))),
      );
      return attached ?? job;
    } catch (error) {
      this.log.warn(
        { err: error, jobId: job.id },
        "job message posted but not recorded; its outcome gets a post",
      );
      return job;
    }
  }

  async resume(jobId: string): Promise<void> {
    if (this.poller.polls(jobId)) {
      this.poller.pollSoon(jobId);
      return;
    }
    if (this.deliveries.has(jobId)) return;
    const job = await this.beginChoice(jobId);
    if (job && this.running) this.takeUp(job, "soon");
  }

  async beginChoice(jobId: string): Promise<JobRecord | undefined> {
    const job = await this.store.get(jobId);
    if (!job) throw new Error(`no job ${jobId}`);
    // Ours before it leaves needs_choice: whoever owns a running job polls it, so a crash from
    // here on is recovered by this instance's restart or by whoever takes over its jobs.
    await this.ownership.seize(jobId, this.liveness.id);
    this.forgetChoice(jobId);
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

  onOutcome(listener: (job: JobRecord) => void): void {
    this.outcomeListeners.push(listener);
  }

  async start(): Promise<void> {
    if (this.running) return;
    await this.liveness.start();
    this.running = true;
    this.liveness.onTaken(() => this.dropHeld());
    this.liveness.onRegained(() => this.tasks.hold(this.scan("own", () => this.reclaim())));
    this.timers = [
      setInterval(
        () => this.tasks.hold(this.scan("dead", () => this.takeUpAll(this.recovery.deadInstances()))),
        this.policy.instanceCheckMs,
      ),
      setInterval(
        () =>
          this.tasks.hold(this.scan("orphans", () => this.takeUpAll(this.recovery.orphans({ gated: true })))),
        this.policy.orphanScanMs,
      ),
    ];
    // Every job found now is taken up before any is polled: the answers of the first polls would
    // compete with the take-up for the store and the event loop, and with fifty thousand jobs that
    // took it from 4 s to 99 s (bench/results/jobs-50k.md), jobs finishing meanwhile unseen.
    const parts = [this.poller, this.choices, this.deliveries];
    for (const part of parts) part.start();
    try {
      await this.takeUpAll(this.recovery.ownJobs({ restarted: true }));
      await this.takeUpAll(this.recovery.deadInstances());
      await this.takeUpAll(this.recovery.orphans({ gated: false }));
    } finally {
      for (const part of parts) part.resume();
    }
  }

  async stop({ deadlineMs = Number.POSITIVE_INFINITY }: { deadlineMs?: number } = {}): Promise<void> {
    const wasRunning = this.running;
    this.running = false;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.poller.stop();
    this.choices.stop();
    this.deliveries.stop();
    const all = [this.tasks, this.poller.tasks, this.choices.tasks, this.deliveries.tasks];
    const left = await Tasks.drain(all, deadlineMs);
    if (left > 0) this.log.warn({ tasks: left }, "stopped with work still in flight");
    await this.poller.idle();
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
        .catch((error: unknown) => {
          if (duringOutage(this.availability, error))
            this.log.debug({ err: error, scan: name }, "scan waits for the store");
          else this.log.error({ err: error, scan: name }, "job recovery scan failed");
        })
        .finally(() => this.scanning.delete(name));
      this.scanning.set(name, running);
    }
    return running;
  }

  /** Acts on what a recovery scan finds, while the scan holds its gate. */
  private async takeUpAll(findings: Findings): Promise<void> {
    for await (const found of findings) {
      if ("drop" in found) for (const id of found.drop) this.forget(id);
      else for (const job of found.take) this.takeUp(job, "spread");
    }
  }

  /**
   * A job this instance owns (just tracked, resumed, or found by recovery, which read it after
   * taking it), handed to the part that looks after it: polled, delivered, or left waiting for its
   * choice. `soon` for a job someone waits on; `spread` for jobs found in the store.
   */
  private takeUp(job: JobRecord, first: "soon" | "spread"): void {
    const { id } = job;
    // A click on another instance took the choice this one waited for (beginChoice there): the
    // job runs again, and is this instance's to poll if it comes back to it (that one died).
    if (this.waitsForChoice(id) && job.state !== "needs_choice") this.forgetChoice(id);
    else if (this.poller.polls(id) || this.waitsForChoice(id) || this.deliveries.has(id)) {
      // Another engine recorded an outcome (a flow's finish() there): stop polling, make sure it is delivered.
      const polled = this.poller.record(id);
      if (polled && job.version > polled.version && isTerminal(job.state))
        this.tasks.hold(this.handOff(id, undefined, job));
      return;
    }
    if (!this.running) return;
    if (job.delivery === "delivered") this.tasks.hold(this.disown(id));
    else if (isTerminal(job.state)) {
      this.tellOutcome(job);
      this.deliveries.take(job);
    } else if (job.state === "needs_choice") this.choices.wait(job, { show: first === "spread" });
    else this.poller.take(job, first);
  }

  /** Another process has this instance's name: it polls these jobs now, and waits for their choices. */
  private dropHeld(): void {
    this.poller.dropAll();
    this.choices.dropAll();
  }

  /**
   * The heartbeat lapsed and is back: drop the jobs another instance took over meanwhile (once a
   * takeover under way is done), and take up what is still this instance's but not held here.
   * No status is read until then: the other instance may be polling some of them already.
   */
  private async reclaim(): Promise<void> {
    this.reclaiming = true;
    try {
      const held = [...this.poller.ids(), ...this.choices.ids()];
      await this.takeUpAll(this.recovery.ownJobs({ restarted: false, held }));
    } finally {
      this.reclaiming = false;
    }
  }

  private waitsForChoice(id: string): boolean {
    return this.choices.has(id) || this.poller.awaitsChoice(id);
  }

  private forgetChoice(id: string): void {
    this.choices.drop(id);
    if (this.poller.awaitsChoice(id)) this.poller.drop(id);
  }

  private forget(id: string): void {
    this.poller.drop(id);
    this.choices.drop(id);
  }

  // ---------------------------------------------------------------------------------------------
  // From polling to delivery
  // ---------------------------------------------------------------------------------------------

  /** Where the poller sends a job it let go. */
  private async left(job: JobRecord, next: Leaving): Promise<void> {
    if (next.to === "choice") this.choices.wait(job, { show: false });
    // Its outcome was told as the poller read it (ended).
    else await this.handOff(job.id, next.outcome, job, true);
  }

  /**
   * The one door from polling, or from waiting for a choice, to delivery (bullmq's
   * `moveToCompleted`): whichever part held the job lets it go (its last progress edit landing
   * first), then the deliveries take it, with the newest record known. `outcome` is recorded
   * unless the job has one; without it, the stored outcome is delivered. Resolves once delivered,
   * or left to retry.
   */
  private async handOff(
    id: string,
    outcome: Outcome | undefined,
    known?: JobRecord,
    told = false,
  ): Promise<void> {
    // Told at once when the job is known here: not after its last progress edit lands (a chat
    // platform's pacing), nor after a store read.
    const early = told ? undefined : (known ?? this.poller.record(id));
    if (early) this.tellOutcome(early);
    const held = (await this.poller.release(id)) ?? this.choices.release(id);
    const job = newest(held, known) ?? (await this.store.get(id));
    if (!job) throw new Error(`no job ${id} to deliver`);
    if (!told && !early) this.tellOutcome(job);
    return this.deliveries.deliver(job, outcome);
  }

  /** Whoever waits for the job's end hears of it before its delivery, which a listener's fault never stops. */
  private tellOutcome(job: JobRecord): void {
    for (const listener of this.outcomeListeners) {
      try {
        listener(job);
      } catch (error) {
        this.log.error({ err: error, jobId: job.id }, "a listener of jobs' outcomes failed");
      }
    }
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
    this.poller.retrySoon();
    this.deliveries.retrySoon();
  }
}

/** The record written last, of two that may be missing. */
function newest(a: JobRecord | undefined, b: JobRecord | undefined): JobRecord | undefined {
  if (!a || !b) return a ?? b;
  return b.version > a.version ? b : a;
}

function requesterOf(actor: Actor) {
  return { platform: actor.platform, tenantId: actor.tenantId, userId: actor.userId };
}
