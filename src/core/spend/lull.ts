/**
 * Paid starts under way in this process, and the work that yields to them: the bookkeeping of a
 * made job waits until no start of the process is still on its way to its creation answer, or
 * `maxWaitMs` at most. A burst of 200 starts then makes its 200 creation calls without the first
 * ones' records, counts and prices taking the CPU (of this process and of the store) from the
 * last ones; the bookkeeping lands right after, in bigger batches. Until it lands each job's
 * reservation stands for it, so no budget can be passed meanwhile; under a steady stream of
 * starts it trails by `maxWaitMs` at most.
 */
export class Lull {
  private underWay = 0;
  private waiting: { promise: Promise<void>; resolve: () => void; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly maxWaitMs: number) {}

  /** Counts `work` as a start under way until it ends, however it ends. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.underWay += 1;
    try {
      return await work();
    } finally {
      this.underWay -= 1;
      // On the loop's next turn: the ended starts' callers go on first (a burst's last start is
      // not held up by the bookkeeping of the 200 before it), and a start begun meanwhile counts.
      if (this.underWay === 0 && this.waiting) setImmediate(() => this.underWay === 0 && this.open());
    }
  }

  /** Resolves once no start is under way, or `maxWaitMs` after the first of those waiting asked. */
  whenQuiet(): Promise<void> {
    if (this.underWay === 0) return Promise.resolve();
    if (!this.waiting) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.waiting = { promise, resolve, timer: setTimeout(() => this.open(), this.maxWaitMs) };
    }
    return this.waiting.promise;
  }

  private open(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    clearTimeout(waiting.timer);
    waiting.resolve();
  }
}
