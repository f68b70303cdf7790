import type { JobState } from "../api/job-status.js";

interface Point {
  at: number;
  progress: number;
}

/**
 * How fast a job moves, from the progress figures of its status reads: the average rate since it
 * started working, projected from the last point where progress moved. Anchoring on the last move
 * (not on the last read) keeps the estimate still while a job sits at the same figure, so its
 * "overdue" time grows and the poll delay backs off instead of creeping along with it.
 *
 * Before progress has moved between two reads, one figure is enough if the job was working since
 * `startedAt` (its record's creation, which follows the service's acceptance of it by a moment):
 * a job taken up after a restart is then predicted from its first read, instead of waiting a whole
 * round of reads of every job for a second one (bench/results/jobs-50k.md). A job that spent part
 * of its age queued only looks slower than it is, so its first reads come early rather than late.
 */
export class Pace {
  private first: Point | undefined;
  private lastMove: Point | undefined;
  /** Since when the job has been working at most; forgotten once a read shows it was not. */
  private startedAt: number | undefined;

  constructor(startedAt?: number) {
    this.startedAt = startedAt;
  }

  observe(state: JobState, progress: number | null, at: number): void {
    // Queued, retrying or figure-less stretches are not the job's working pace: start over after them.
    if (state !== "working" || progress === null) {
      this.first = this.lastMove = this.startedAt = undefined;
      return;
    }
    if (!this.first || progress < (this.lastMove?.progress ?? this.first.progress)) {
      // Progress that went back is a job started over: its creation says nothing of the new run.
      if (this.first) this.startedAt = undefined;
      this.first = { at, progress };
      this.lastMove = undefined;
    } else if (progress > (this.lastMove?.progress ?? this.first.progress)) {
      this.lastMove = { at, progress };
    }
  }

  /**
   * Time until the projected end (negative when overdue); undefined until progress has moved
   * once, between two reads or since the job started working.
   */
  remainingMs(now: number): number | undefined {
    const { first, lastMove } = this;
    if (!first) return undefined;
    const from = lastMove ? first : this.start();
    const to = lastMove ?? first;
    if (!from || to.at <= from.at || to.progress <= from.progress) return undefined;
    const perMs = (to.progress - from.progress) / (to.at - from.at);
    return to.at + (100 - to.progress) / perMs - now;
  }

  private start(): Point | undefined {
    return this.startedAt === undefined ? undefined : { at: this.startedAt, progress: 0 };
  }
}
