import type { JobRecord, JobStore } from "../../store/index.js";
import type { Logger } from "../base/log.js";
import type { JobHooks } from "./contract.js";
import type { Liveness } from "./liveness.js";
import { expiredChoiceOutcome } from "./outcomes.js";
import type { PollPolicy } from "./policy.js";
import { type Outcome, statusOf } from "./records.js";
import { ScheduledPart } from "./scheduled.js";

/** The claim of a variant choice being made (actions/choose.ts) or expiring (here). */
export function choiceKey(jobId: string): string {
  return `choice:${jobId}`;
}

/** All the jobs waiting for a choice need from the engine around them. */
export interface ChoicesContext {
  store: Pick<JobStore, "get">;
  /** The claim a click takes too (actions/choose.ts): an expiry runs under it, so one of them wins. */
  claims: Pick<Liveness, "claim" | "release">;
  /** Shows the choice again, on the job's message. */
  show: JobHooks<JobRecord>["showProgress"];
  /** Nobody chose in time: the job ends with `outcome`; resolves once it is delivered (or left to retry). */
  expired(job: JobRecord, outcome: Outcome): Promise<void>;
}

export interface ChoicesOptions {
  policy: Pick<PollPolicy, "choiceExpiresAfterMs" | "lapseMs">;
  now(): number;
  log: Logger;
}

/**
 * The jobs this instance looks after that wait for a person's choice (photo-avatar variants):
 * nothing is read while they wait; a click resumes or finishes them (engine.ts), or the choice
 * expires after `choiceExpiresAfterMs` and the job ends saying why.
 */
export class Choices extends ScheduledPart {
  /** Each one's choice expires when it falls due. */
  private readonly waiting = new Map<string, JobRecord>();

  constructor(
    private readonly ctx: ChoicesContext,
    private readonly opts: ChoicesOptions,
  ) {
    super(opts);
  }

  /**
   * The job waits for its choice here. `show` for one found in the store: the choice is stored
   * before it is shown, so a crash in between would leave nothing to click. Showing it again is
   * an edit of the same message, harmless when it was shown.
   */
  wait(job: JobRecord, { show }: { show: boolean }): void {
    if (!this.running) return;
    this.waiting.set(job.id, job);
    this.scheduler.schedule(job.id, job.lastProgressAt + this.opts.policy.choiceExpiresAfterMs);
    if (show) this.tasks.hold(this.showAgain(job));
  }

  has(id: string): boolean {
    return this.waiting.has(id);
  }

  ids(): string[] {
    return [...this.waiting.keys()];
  }

  /** The job waits no more here (its outcome is known); its record, undefined when it did not wait here. */
  release(id: string): JobRecord | undefined {
    const job = this.waiting.get(id);
    this.drop(id);
    return job;
  }

  /** The job waits no more here: chosen (beginChoice), or owned by another instance now. */
  drop(id: string): void {
    this.waiting.delete(id);
    this.scheduler.cancel(id);
  }

  dropAll(): void {
    for (const id of this.ids()) this.drop(id);
  }

  protected forgetAll(): void {
    this.waiting.clear();
  }

  protected fellDue(id: string): void {
    const job = this.waiting.get(id);
    if (job) this.tasks.hold(this.expire(job));
  }

  /**
   * Nobody chose in time: the job ends, its buttons give way to a line saying why. Under the
   * choice claim, so that a click arriving now either wins (and this does nothing) or is refused.
   */
  private async expire(job: JobRecord): Promise<void> {
    const { claims, store } = this.ctx;
    const { policy, now } = this.opts;
    const { id } = job;
    const key = choiceKey(id);
    if (!(await claims.claim(key, policy.lapseMs * 4))) {
      this.scheduler.schedule(id, now() + policy.lapseMs);
      return;
    }
    try {
      const fresh = await store.get(id);
      const still = this.waiting.get(id) === job;
      if (fresh?.state !== "needs_choice" || !still) {
        if (still) this.drop(id);
        return;
      }
      this.drop(id);
      await this.ctx.expired(fresh, expiredChoiceOutcome(fresh.progress, policy.choiceExpiresAfterMs));
    } finally {
      await claims.release(key);
    }
  }

  private async showAgain(job: JobRecord): Promise<void> {
    try {
      await this.ctx.show(job, statusOf(job));
    } catch (error) {
      this.opts.log.warn({ err: error, jobId: job.id }, "the choice to make could not be shown again");
    }
  }
}
