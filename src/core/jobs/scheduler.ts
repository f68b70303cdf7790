import { MinHeap } from "./heap.js";

interface Entry {
  id: string;
  /** Which schedule() call made it: an entry whose seq is no longer the id's current one is void. */
  seq: number;
}

/** setTimeout takes a signed 32-bit delay; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When each job is due next, for every job, behind one timer: a min-heap on the due time.
 * Ten thousand jobs then cost ten thousand small entries and a single armed timeout, rather than
 * ten thousand timers; rescheduling and cancelling void the old entry (checked when it surfaces)
 * instead of searching the heap for it.
 */
export class Scheduler {
  private readonly heap = new MinHeap<Entry>();
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
    this.heap.push(at, { id, seq });
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
    this.heap.clear();
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
      while (this.heap.peekKey() <= now) {
        const entry = this.heap.pop()!;
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
    for (let head = this.heap.peek(); head && this.live.get(head.id) !== head.seq; head = this.heap.peek())
      this.heap.pop();
    const at = this.heap.peekKey();
    if (at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.fire, Math.min(MAX_TIMER_MS, Math.max(0, at - this.now())));
  }
}
