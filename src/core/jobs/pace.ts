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
 */
export class Pace {
  private first: Point | undefined;
  private lastMove: Point | undefined;

  observe(state: JobState, progress: number | null, at: number): void {
    // Queued, retrying or figure-less stretches are not the job's working pace: start over after them.
    if (state !== "working" || progress === null) {
      this.first = this.lastMove = undefined;
      return;
    }
    if (!this.first || progress < (this.lastMove?.progress ?? this.first.progress)) {
      this.first = { at, progress };
      this.lastMove = undefined;
    } else if (progress > (this.lastMove?.progress ?? this.first.progress)) {
      this.lastMove = { at, progress };
    }
  }

  /** Time until the projected end (negative when overdue); undefined until progress has moved once. */
  remainingMs(now: number): number | undefined {
    const { first, lastMove } = this;
    if (!first || !lastMove || lastMove.at <= first.at) return undefined;
    const perMs = (lastMove.progress - first.progress) / (lastMove.at - first.at);
    return lastMove.at + (100 - lastMove.progress) / perMs - now;
  }
}
