/**
 * Gathers the items added within `windowMs` (or until `max` of them) into one call of `run`: a
 * write done for each of many jobs at about the same moment (a finished job leaving an index, its
 * ownership released) becomes one statement or command instead of one per job. Every caller's
 * promise settles with that call.
 *
 * Only for writes that may land a little late: nothing reads their effect as a condition of
 * correctness (a reader that still sees a finished job's entry drops it, see jobs.ts).
 */
export class Batch<T> {
  private open: { items: T[]; flush: () => void; done: Promise<void> } | undefined;

  constructor(
    private readonly run: (items: T[]) => Promise<void>,
    private readonly windowMs: number,
    private readonly max = 1_000,
  ) {}

  add(item: T): Promise<void> {
    const batch = this.open ?? this.start();
    batch.items.push(item);
    if (batch.items.length >= this.max) {
      this.open = undefined;
      batch.flush();
    }
    return batch.done;
  }

  private start(): NonNullable<Batch<T>["open"]> {
    const items: T[] = [];
    let flush!: () => void;
    const due = new Promise<void>((resolve) => {
      flush = resolve;
    });
    const timer = setTimeout(flush, this.windowMs);
    const batch = {
      items,
      flush,
      done: due.then(() => {
        clearTimeout(timer);
        if (this.open === batch) this.open = undefined;
        return this.run(items);
      }),
    };
    this.open = batch;
    return batch;
  }
}
