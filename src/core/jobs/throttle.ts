import type { JobState, NormalizedStatus } from "../api/job-status.js";

interface Shown {
  state: JobState;
  progress: number | null;
  at: number;
}

/**
 * Progress edits of job messages: none when what the message shows did not change, at most one
 * per `minIntervalMs` per message (chat platforms rate-limit edits, per channel on Discord), and
 * one at a time per message, so edits cannot land out of order. There is no trailing edit: a
 * change offered too early is simply offered again by the next poll, and the last one before the
 * end may be dropped, because the result replaces it anyway.
 */
export class EditThrottle {
  private readonly shown = new Map<string, Shown>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly minIntervalMs: number,
    private readonly now: () => number,
  ) {}

  /** What the message shows already (the flow's "queued" card, a record read after a restart). */
  seed(id: string, state: JobState, progress: number | null, at: number): void {
    this.shown.set(id, { state, progress, at });
  }

  /** Runs `show` if `status` is worth an edit now; returns whether it ran. */
  offer(id: string, status: NormalizedStatus, show: () => Promise<void>): boolean {
    const last = this.shown.get(id);
    if (this.inFlight.has(id)) return false;
    if (last && last.state === status.state && last.progress === status.progress) return false;
    if (last && this.now() - last.at < this.minIntervalMs) return false;
    this.run(id, status, show);
    return true;
  }

  /** Shows `status` whatever the interval, after the edit in flight: a choice the user must make. */
  async force(id: string, status: NormalizedStatus, show: () => Promise<void>): Promise<void> {
    await this.inFlight.get(id);
    await this.run(id, status, show);
  }

  private run(id: string, status: NormalizedStatus, show: () => Promise<void>): Promise<void> {
    this.shown.set(id, { state: status.state, progress: status.progress, at: this.now() });
    const edit = show().finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, edit);
    return edit;
  }

  /** Waits for an edit in flight and forgets the message: nothing may edit it after the result. */
  async settle(id: string): Promise<void> {
    this.shown.delete(id);
    await this.inFlight.get(id);
  }

  /** Every edit in flight, for a clean stop. */
  async idle(): Promise<void> {
    await Promise.all(this.inFlight.values());
  }
}
