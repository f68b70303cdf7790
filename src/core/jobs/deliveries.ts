import type { JobRecord } from "../../store/index.js";
import type { Incidents } from "../base/incidents.js";
import type { Logger } from "../base/log.js";
import type { Intake } from "../intake/intake.js";
import type { Delivery, DeliveryResult } from "./delivery.js";
import { backoff, type PollPolicy } from "./policy.js";
import type { Outcome } from "./records.js";
import { ScheduledPart } from "./scheduled.js";

/** A delivery that is over for good: posted, closed as not posted, or nothing was left to do. */
export type Closed = Extract<DeliveryResult, { kind: "delivered" | "settled" | "abandoned" }>;

/** All the deliveries need from the engine around them. */
export interface DeliveriesContext {
  /** One try at delivering a job (delivery.ts). */
  delivery: Pick<Delivery, "run">;
  /** The job's delivery is over for good; awaited before the next delivery of the job may start. */
  closed(id: string, result: Closed): Promise<void>;
}

export interface DeliveriesOptions {
  policy: Pick<PollPolicy, "deliveryBaseMs" | "deliveryMaxMs" | "lapseMs">;
  now(): number;
  log: Logger;
  /** A delivery that keeps failing is logged once with a count. */
  incidents: Incidents;
  /** The bot's incoming requests: a delivery waits while a burst of them is acknowledged. */
  intake?: Pick<Intake, "settled"> | undefined;
}

interface Waiting {
  job: JobRecord;
  /** The outcome to deliver, until it is stored. */
  outcome: Outcome | undefined;
}

/**
 * The deliveries of this instance's finished jobs: one at a time per job (a second call joins the
 * first), and those that wait, for a retry after a failure (with backoff, forever: a chat platform's
 * outage delays results, it never loses them), for another engine's claim, or for the first try
 * after start. The claim (delivery.ts) takes care of the other engines.
 */
export class Deliveries extends ScheduledPart {
  /** Each one is tried again when it falls due. */
  private readonly waiting = new Map<string, Waiting>();
  private readonly underWay = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: DeliveriesContext,
    private readonly opts: DeliveriesOptions,
  ) {
    super(opts);
  }

  /**
   * Delivers the job now, first recording `outcome` when it has none yet; joins its delivery under
   * way. A delivery that waited gives way to this one, its outcome kept unless `outcome` is new.
   */
  deliver(job: JobRecord, outcome?: Outcome): Promise<void> {
    const id = job.id;
    const under = this.underWay.get(id);
    if (under) return under;
    const waited = this.waiting.get(id);
    if (waited) this.forget(id);
    const latest = waited && waited.job.version > job.version ? waited.job : job;
    const attempt = this.attempt(latest, outcome ?? waited?.outcome).finally(() => this.underWay.delete(id));
    this.underWay.set(id, attempt);
    this.tasks.hold(attempt);
    return attempt;
  }

  /** A finished job found in the store: delivered as soon as the deliveries run. */
  take(job: JobRecord): void {
    this.later(job, undefined, 0);
  }

  /** Whether the job's delivery is under way or waits here. */
  has(id: string): boolean {
    return this.underWay.has(id) || this.waiting.has(id);
  }

  /** The job's delivery under way, for a second caller to join. */
  joining(id: string): Promise<void> | undefined {
    return this.underWay.get(id);
  }

  /** Tries again within the next second every delivery that waits (the store is back). */
  retrySoon(): void {
    const now = this.opts.now();
    for (const id of this.waiting.keys()) this.scheduler.schedule(id, now + Math.random() * 1_000);
  }

  /** No delivery waits any more; those under way finish. */
  protected forgetAll(): void {
    this.waiting.clear();
  }

  protected fellDue(id: string): void {
    const waiting = this.waiting.get(id);
    if (waiting) void this.deliver(waiting.job, waiting.outcome);
  }

  private async attempt(job: JobRecord, outcome: Outcome | undefined): Promise<void> {
    const { policy, incidents, intake } = this.opts;
    const id = job.id;
    await intake?.settled();
    const result = await this.ctx.delivery.run(job, outcome);
    switch (result.kind) {
      case "delivered":
      case "settled":
      case "abandoned":
        incidents.ended(`delivery:${id}`, {
          fields: { jobId: id, outcome: result.kind },
          msg: "delivery retries over",
        });
        incidents.ended(`progress:${id}`);
        this.forget(id);
        await this.ctx.closed(id, result);
        return;
      case "busy":
        // Whoever holds the claim delivers; if its process dies, the claim is free within this wait.
        this.later(job, outcome, policy.lapseMs);
        return;
      case "retry": {
        const wait = backoff(result.attempts, policy.deliveryBaseMs, policy.deliveryMaxMs);
        incidents.failed(
          `delivery:${id}`,
          { err: result.error, jobId: id, attempts: result.attempts, retryInMs: Math.round(wait) },
          "delivery failed; will retry",
        );
        this.later({ ...job, attempts: result.attempts }, outcome, wait);
      }
    }
  }

  /** Keeps a job whose delivery waits (for a retry, a claim, or the first try after start). */
  private later(job: JobRecord, outcome: Outcome | undefined, waitMs: number): void {
    if (!this.running) return;
    this.waiting.set(job.id, { job, outcome });
    this.scheduler.schedule(job.id, this.opts.now() + waitMs);
  }

  private forget(id: string): void {
    this.waiting.delete(id);
    this.scheduler.cancel(id);
  }
}
