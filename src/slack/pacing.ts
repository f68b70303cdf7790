/**
 * Slack's rate limits are per method per workspace (per channel for chat.postMessage), so calls
 * are paced in lanes of that key: each lane lets `limit` calls start per sliding window, holds
 * after a 429 for as long as Slack said (that lane only: the workspace's other methods go on),
 * and serves results before passing states.
 *
 * A passing state (a progress bar, a Home tab) is worth showing only until the next one: it may
 * use only `passingShare` of a lane's limit, so that results and step completions always find
 * room, and `Latest` keeps one waiting per message, the newest.
 *
 * Counted in this process: replicas sharing a workspace each keep to the limit alone, and Slack's
 * 429 (with its hold) covers their sum. By hand rather than a package: p-queue and bottleneck
 * pace one queue, not thousands of keyed lanes with priorities, holds and aborts.
 */

export type Priority = "result" | "passing";

export interface Lane {
  key: string;
  /** Calls that may start per window. */
  limit: number;
  windowMs: number;
}

export interface PacerOptions {
  /** The share of a lane's limit passing states may use (the rest is kept for results). */
  passingShare: number;
}

interface Waiter {
  priority: Priority;
  grant(): void;
}

interface LaneState {
  lane: Lane;
  starts: number[];
  heldUntil: number;
  waiters: Waiter[];
  timer?: NodeJS.Timeout;
}

export class Pacer {
  private readonly lanes = new Map<string, LaneState>();

  constructor(
    private readonly options: PacerOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when a call of `lane` may start (it is counted then); rejects once `signal` aborts. */
  slot(lane: Lane, priority: Priority, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const state = this.state(lane);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        grant: () => {
          signal?.removeEventListener("abort", abort);
          resolve();
        },
      };
      const abort = () => {
        state.waiters = state.waiters.filter((w) => w !== waiter);
        reject(signal?.reason);
        this.pump(state);
      };
      signal?.addEventListener("abort", abort, { once: true });
      // Results go before every passing state; each kind keeps its order.
      const at =
        priority === "result"
          ? state.waiters.findIndex((w) => w.priority === "passing")
          : state.waiters.length;
      state.waiters.splice(at < 0 ? state.waiters.length : at, 0, waiter);
      this.pump(state);
    });
  }

  /** Whether the lane waits out a 429 now. */
  held(key: string): boolean {
    return (this.lanes.get(key)?.heldUntil ?? 0) > this.now();
  }

  /** Slack answered 429 with Retry-After: the lane starts nothing for `ms`. */
  hold(key: string, ms: number): void {
    const state = this.lanes.get(key);
    const until = this.now() + ms;
    if (state) {
      state.heldUntil = Math.max(state.heldUntil, until);
      this.pump(state);
    } else {
      this.lanes.set(key, {
        lane: { key, limit: Number.POSITIVE_INFINITY, windowMs: 0 },
        starts: [],
        heldUntil: until,
        waiters: [],
      });
    }
  }

  private state(lane: Lane): LaneState {
    const known = this.lanes.get(lane.key);
    if (known) {
      known.lane = lane;
      return known;
    }
    const state: LaneState = { lane, starts: [], heldUntil: 0, waiters: [] };
    this.lanes.set(lane.key, state);
    return state;
  }

  private capOf(lane: Lane, priority: Priority): number {
    return priority === "result"
      ? lane.limit
      : Math.max(1, Math.floor(lane.limit * this.options.passingShare));
  }

  private pump(state: LaneState): void {
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
    const { lane } = state;
    for (;;) {
      const now = this.now();
      state.starts = state.starts.filter((at) => now - at < lane.windowMs);
      const next = state.waiters[0];
      if (!next) {
        if (state.starts.length === 0 && state.heldUntil <= now) this.lanes.delete(lane.key);
        return;
      }
      if (state.heldUntil > now) {
        this.wake(state, state.heldUntil - now);
        return;
      }
      const cap = this.capOf(lane, next.priority);
      if (state.starts.length >= cap) {
        // The call that frees room for this one leaves the window then.
        const frees = state.starts[state.starts.length - cap]!;
        this.wake(state, frees + lane.windowMs - now);
        return;
      }
      state.starts.push(now);
      state.waiters.shift();
      next.grant();
    }
  }

  private wake(state: LaneState, ms: number): void {
    state.timer = setTimeout(() => this.pump(state), Math.max(1, ms));
  }
}

/**
 * The newest passing state of each key (a message's progress, a person's Home tab), sent one at a
 * time: what arrives while one is under way replaces what waits, so only the latest is sent next.
 * Nobody waits for a passing state: `offer` returns at once and `send`'s failures go to `failed`.
 */
export class Latest<T> {
  private readonly keys = new Map<string, { next?: T; waiting?: AbortController; running: Promise<void> }>();

  constructor(private readonly failed: (error: unknown, key: string) => void) {}

  offer(key: string, state: T, send: (state: T, signal: AbortSignal) => Promise<void>): void {
    const known = this.keys.get(key);
    if (known) {
      known.next = state;
      return;
    }
    const entry: { next?: T; waiting?: AbortController; running: Promise<void> } = {
      next: state,
      running: Promise.resolve(),
    };
    this.keys.set(key, entry);
    entry.running = (async () => {
      while (entry.next !== undefined) {
        const current = entry.next;
        entry.next = undefined;
        entry.waiting = new AbortController();
        try {
          await send(current, entry.waiting.signal);
        } catch (error) {
          if (!entry.waiting.signal.aborted) this.failed(error, key);
        }
      }
    })().finally(() => {
      if (this.keys.get(key) === entry) this.keys.delete(key);
    });
  }

  /**
   * Something final is about to be shown under `key`: what waits is dropped, a send still
   * waiting for its slot is aborted, and one already under way is waited for, so that no passing
   * state lands after the final one.
   */
  async settle(key: string): Promise<void> {
    const entry = this.keys.get(key);
    if (!entry) return;
    entry.next = undefined;
    entry.waiting?.abort(new Error("superseded"));
    await entry.running;
  }
}
