import { MinHeap } from "./heap.js";
import type { Polled } from "./polled.js";

/**
 * The status reads that fell due and wait for room under the caps, most urgent first: a job whose
 * pace (or the guess from its first figure, pace.ts) says it has ended by now (the earliest
 * predicted end first), then one whose progress says nothing yet (by when it fell due), then one
 * that should still be running (by its predicted end).
 *
 * As long as the reads keep up this changes nothing: each is taken as soon as it falls due. When
 * they cannot (fifty thousand jobs on one core, bench/results/jobs-50k.md), a queue in the order
 * the reads fell due makes every job wait for a whole round of all the others, finished or not;
 * this order spends the reads that can be made on the jobs most likely to be finished. Whether an
 * end has passed is decided when the read is taken, not when it fell due: during the first round
 * after a take-up every job without a figure fell due at once, and a job read early in it whose
 * predicted end comes before the round is over must not wait for the rest of the round.
 */
export class DueReads {
  /** Jobs with a predicted end, past or to come, keyed by it. */
  private readonly predicted = new MinHeap<Polled>();
  /** Jobs whose pace is not known, keyed by when they fell due. */
  private readonly unknown = new MinHeap<Polled>();
  private readonly waiting = new Set<Polled>();

  get size(): number {
    return this.waiting.size;
  }

  /** A job due at `now`; one that waits already keeps its place. */
  add(entry: Polled, now: number): void {
    if (this.waiting.has(entry)) return;
    this.waiting.add(entry);
    const remaining = entry.pace.likelyRemainingMs(now);
    if (remaining === undefined) this.unknown.push(now, entry);
    else this.predicted.push(now + remaining, entry);
  }

  /** The most urgent job at `now`, no longer waiting; undefined when none waits. */
  take(now: number): Polled | undefined {
    const ended = this.predicted.peekKey() <= now;
    const entry = (ended ? this.predicted.pop() : undefined) ?? this.unknown.pop() ?? this.predicted.pop();
    if (entry) this.waiting.delete(entry);
    return entry;
  }

  clear(): void {
    this.predicted.clear();
    this.unknown.clear();
    this.waiting.clear();
  }
}
