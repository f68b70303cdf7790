import { MinHeap } from "./heap.js";
import type { Tracked } from "./tracked.js";

/**
 * The status reads that fell due and wait for room under the caps, most urgent first: a job whose
 * pace says it has ended (the earliest predicted end first), or one whose progress says nothing
 * yet, by when it fell due; a job that should still be running waits until its predicted end.
 *
 * As long as the reads keep up this changes nothing: each is taken as soon as it falls due. When
 * they cannot (fifty thousand jobs on one core, bench/results/jobs-50k.md), a queue in the order
 * the reads fell due makes every job wait for a whole round of all the others, finished or not;
 * this order spends the reads that can be made on the jobs most likely to be finished.
 */
export class DueReads {
  private readonly heap = new MinHeap<Tracked>();
  private readonly waiting = new Set<Tracked>();

  get size(): number {
    return this.waiting.size;
  }

  /** A job due at `now`; one that waits already keeps its place. */
  add(tracked: Tracked, now: number): void {
    if (this.waiting.has(tracked)) return;
    this.waiting.add(tracked);
    // The predicted end, past or to come; without a pace, the moment it fell due.
    this.heap.push(now + (tracked.pace.remainingMs(now) ?? 0), tracked);
  }

  /** The most urgent job, no longer waiting; undefined when none waits. */
  take(): Tracked | undefined {
    const tracked = this.heap.pop();
    if (tracked) this.waiting.delete(tracked);
    return tracked;
  }

  clear(): void {
    this.heap.clear();
    this.waiting.clear();
  }
}
