/**
 * Work off the critical path, in the order it was added, at most `concurrency` at a time. Each
 * waiting item costs one array slot: a lane tens of thousands deep (every job's progress write
 * behind a busy store, bench/results/jobs-50k.md) holds no promise or closure per item, which as a
 * p-queue it did, and collecting those kept the event loop busy.
 */
export class Lane<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private running = 0;

  constructor(
    private readonly concurrency: number,
    /** Must not reject: a failure is the item's to handle (a worker that throws stops draining). */
    private readonly run: (item: T) => Promise<void>,
    /** Receives each worker's promise: what a clean stop waits for. */
    private readonly hold: (work: Promise<void>) => void,
  ) {}

  get size(): number {
    return this.items.length - this.head;
  }

  add(item: T): void {
    this.items.push(item);
    if (this.running < this.concurrency) {
      this.running += 1;
      this.hold(this.work());
    }
  }

  /** Drops what waits; what runs finishes. */
  clear(): void {
    this.items = [];
    this.head = 0;
  }

  private async work(): Promise<void> {
    try {
      while (this.head < this.items.length) {
        const item = this.items[this.head] as T;
        this.items[this.head] = undefined;
        this.head += 1;
        // Taken slots are given back now and then rather than shifted one by one (O(n) each).
        if (this.head >= 1_024 && this.head * 2 >= this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        await this.run(item);
      }
    } finally {
      this.running -= 1;
    }
  }
}
