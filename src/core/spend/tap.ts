import { AsyncLocalStorage } from "node:async_hooks";
import type { Usage } from "../api/schemas.js";

/**
 * What one start hears while it runs: the usage figures of its creation answer, and the job it
 * tracked. A start runs the command's own code, which makes its creation call wherever it likes;
 * the tap is found through the async context instead of being passed through every command.
 */
export class StartTap {
  usage: Usage | undefined;
  jobId: string | undefined;
  serviceJobId: string | undefined;
  private open = true;

  heard(usage: Usage): void {
    // A follow-up call after the start (a confirm, a poll) is not this start's charge.
    if (this.open) this.usage = usage;
  }

  tracked(job: { id: string; serviceJobId: string }): void {
    if (!this.open) return;
    this.jobId = job.id;
    this.serviceJobId = job.serviceJobId;
  }

  close(): void {
    this.open = false;
  }
}

const taps = new AsyncLocalStorage<StartTap>();

export function runTapped<T>(tap: StartTap, work: () => Promise<T>): Promise<T> {
  return taps.run(tap, work);
}

/** The start the caller runs in, if any. */
export function currentTap(): StartTap | undefined {
  return taps.getStore();
}
