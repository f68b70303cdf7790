interface Entry {
  at: number;
  id: string;
  /** Which schedule() call made it: an entry whose seq is no longer the id's current one is void. */
  seq: number;
}

/** setTimeout takes a signed 32-bit delay; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When each job is due next, for every job, behind one timer: a binary min-heap on the due time.
 * Ten thousand jobs then cost ten thousand small entries and a single armed timeout, rather than
 * ten thousand timers; rescheduling and cancelling void the old entry (checked when it surfaces)
 * instead of searching the heap for it.
 */
export class Scheduler {
  private readonly heap: Entry[] = [];
  private readonly live = new Map<string, number>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private paused = false;

  constructor(
    private readonly now: () => number,
    private readonly onDue: (id: string) => void,
  ) {}

  /** Due at `at` (epoch ms, on the injected clock); replaces any earlier schedule of `id`. */
  schedule(id: string, at: number): void {
    const seq = ++this.seq;
    this.live.set(id, seq);
    this.push({ at, id, seq });
    if (at < this.timerAt) this.arm();
  }

  cancel(id: string): void {
    this.live.delete(id);
  }

  has(id: string): boolean {
    return this.live.has(id);
  }

  get size(): number {
    return this.live.size;
  }

  /** Nothing fires until `resume`; what falls due meanwhile fires then, earliest first. */
  pause(): void {
    this.paused = true;
    this.disarm();
  }

  resume(): void {
    this.paused = false;
    this.arm();
  }

  stop(): void {
    this.disarm();
    this.heap.length = 0;
    this.live.clear();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    try {
      const now = this.now();
      while (this.heap.length > 0 && this.heap[0]!.at <= now) {
        const entry = this.pop();
        if (this.live.get(entry.id) !== entry.seq) continue;
        this.live.delete(entry.id);
        this.onDue(entry.id);
      }
    } finally {
      this.arm();
    }
  };

  private arm(): void {
    if (this.paused) return;
    while (this.heap.length > 0 && this.live.get(this.heap[0]!.id) !== this.heap[0]!.seq) this.pop();
    const head = this.heap[0];
    if (!head || head.at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = head.at;
    this.timer = setTimeout(this.fire, Math.min(MAX_TIMER_MS, Math.max(0, head.at - this.now())));
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    let i = heap.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.at < heap[left]!.at ? right : left;
      if (heap[child]!.at >= last.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
