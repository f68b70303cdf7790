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
 * Before progress has moved between two reads, `likelyRemainingMs` guesses from one figure as if
 * the job had worked since `startedAt` (its record's creation, which follows the service's
 * acceptance of it by a moment): exact when a job's progress counts from its creation, too late by
 * any time it spent queued otherwise. Only the order of the reads that wait for room uses it
 * (due-reads.ts): after a take-up of fifty thousand jobs, a job is placed by its first read instead
 * of waiting a whole round of reads of every job for a second one (bench/results/jobs-50k.md);
 * when the time of a read is chosen (policy.ts), a guess counts for nothing, so it never delays a
 * read or adds one.
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

  /** Time until the projected end (negative when overdue); undefined until progress has moved once. */
  remainingMs(now: number): number | undefined {
    const { first, lastMove } = this;
    return first && lastMove ? projected(first, lastMove, now) : undefined;
  }

  /** `remainingMs`, or before progress has moved between two reads, the guess from one figure. */
  likelyRemainingMs(now: number): number | undefined {
    const { first, startedAt } = this;
    return (
      this.remainingMs(now) ??
      (first && startedAt !== undefined ? projected({ at: startedAt, progress: 0 }, first, now) : undefined)
    );
  }
}

/** Time until 100 % at the rate from `from` to `to`; undefined without a rate. */
function projected(from: Point, to: Point, now: number): number | undefined {
  if (to.at <= from.at || to.progress <= from.progress) return undefined;
  const perMs = (to.progress - from.progress) / (to.at - from.at);
  return to.at + (100 - to.progress) / perMs - now;
}
