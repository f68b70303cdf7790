/**
 * Ack first: the work behind acknowledgements (the flows of commands and clicks, and the job
 * engine's status reads and deliveries) waits while requests are still arriving.
 *
 * Since libuv 1.45 (Node 20) a server accepts one connection per turn of the event loop. Under a
 * burst (a whole team's commands at once, each on a new connection) every turn that also runs the
 * work behind the first acks (a store write, a users.info call, a creation call) is a turn longer
 * before the next connection is even accepted, so the last of 200 acks waited for the work of
 * the first ones. Holding that work until the arrivals pause keeps each turn short and the acks
 * fast; the work starts a few milliseconds later instead.
 *
 * A steady stream with no pause would hold the work forever, so a burst is held at most
 * `maxHoldMs` from its first arrival; after that the work runs beside the arrivals until they
 * pause again.
 *
 * A pause is `quietMs` without an arrival and then one more turn of the loop without one: a turn
 * longer than `quietMs` (a loaded machine) leaves connections waiting to be accepted that no
 * arrival has told of yet, and the next turn's poll accepts one of them, before its check phase
 * (setImmediate) lets the work go.
 */
export interface IntakeOptions {
  /** Arrivals this far apart end a burst. */
  quietMs?: number;
  /** The longest the work waits behind one burst. */
  maxHoldMs?: number;
  /** Milliseconds on a monotonic clock (tests give their own). */
  now?: () => number;
}

export class Intake {
  private readonly quietMs: number;
  private readonly maxHoldMs: number;
  private readonly now: () => number;
  private lastArrival = Number.NEGATIVE_INFINITY;
  private arrivals = 0;
  private burstStart = Number.NEGATIVE_INFINITY;
  private waiting: Promise<void> | undefined;

  constructor(options: IntakeOptions = {}) {
    this.quietMs = options.quietMs ?? 20;
    this.maxHoldMs = options.maxHoldMs ?? 500;
    this.now = options.now ?? (() => performance.now());
  }

  /** A request (or a connection that will carry one) has come in. */
  arrived(): void {
    const now = this.now();
    if (now - this.lastArrival >= this.quietMs) this.burstStart = now;
    this.lastArrival = now;
    this.arrivals += 1;
  }

  /** How long the work behind the acks must still wait, in ms; 0 when it may run. */
  heldFor(): number {
    const now = this.now();
    const quietIn = this.lastArrival + this.quietMs - now;
    const heldOut = this.burstStart + this.maxHoldMs - now;
    return quietIn <= 0 || heldOut <= 0 ? 0 : Math.min(quietIn, heldOut);
  }

  /** Resolves once the work behind the acks may run: at once unless a burst is arriving. */
  settled(): Promise<void> {
    const left = this.heldFor();
    if (left === 0) return Promise.resolve();
    this.waiting ??= new Promise<void>((resolve) => {
      const check = () => {
        const more = this.heldFor();
        if (more > 0) {
          setTimeout(check, Math.ceil(more));
          return;
        }
        // One more poll phase: a connection accepted in it is an arrival, and the burst goes on.
        const seen = this.arrivals;
        setImmediate(() => {
          if (this.arrivals !== seen && this.heldFor() > 0) {
            setTimeout(check, Math.ceil(this.heldFor()));
            return;
          }
          this.waiting = undefined;
          resolve();
        });
      };
      setTimeout(check, Math.ceil(left));
    });
    return this.waiting;
  }
}
