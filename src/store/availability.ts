import type { Logger } from "pino";
import { storeAvailable } from "./metrics.js";

/**
 * Whether the store answers, as its connection last showed, and the one place that tells the log
 * so: a line when it goes away, one every 30 s while it stays away (with the number of operations
 * refused meanwhile), and one when it is back. Everything else that fails because of the outage
 * stays quiet (isStoreOutage): a store away for a minute under load would otherwise write a line
 * per heartbeat, poll and delivery.
 *
 * Told by the backend: redis's connection events, sqlite's failed and succeeding writes.
 */

/** How often a continuing outage is said again. */
export const OUTAGE_REMINDER_MS = 30_000;

export interface AvailabilityOptions {
  backend: "sqlite" | "redis";
  logger?: Pick<Logger, "warn" | "info">;
  now?: () => number;
}

export class StoreAvailability {
  readonly #backend: string;
  readonly #log: Pick<Logger, "warn" | "info"> | undefined;
  readonly #now: () => number;
  #since: number | undefined;
  #cause = "";
  #refused = 0;
  #reminder: NodeJS.Timeout | undefined;
  #waiters: (() => void)[] = [];
  readonly #backListeners: (() => void)[] = [];

  constructor(options: AvailabilityOptions) {
    this.#backend = options.backend;
    this.#log = options.logger;
    this.#now = options.now ?? Date.now;
    storeAvailable.set(1);
  }

  get available(): boolean {
    return this.#since === undefined;
  }

  /** Why the store does not answer, for /readyz; undefined while it does. */
  problem(): string | undefined {
    if (this.#since === undefined) return undefined;
    const seconds = Math.round((this.#now() - this.#since) / 1000);
    return `${this.#backend} store unreachable for ${seconds} s: ${this.#cause}`;
  }

  /** An operation failed because the store is away: the first one opens the outage. */
  down(cause: unknown): void {
    this.#refused += 1;
    if (this.#since !== undefined) return;
    this.#since = this.#now();
    this.#cause = describe(cause);
    this.#refused = 1;
    storeAvailable.set(0);
    this.#log?.warn(
      { backend: this.#backend, cause: this.#cause },
      "store unreachable: commands are refused (nothing charged) and jobs wait until it answers",
    );
    this.#reminder = setInterval(() => {
      this.#log?.warn(
        {
          backend: this.#backend,
          cause: this.#cause,
          awayMs: this.#now() - (this.#since ?? this.#now()),
          refusedOperations: this.#refused,
        },
        "store still unreachable",
      );
    }, OUTAGE_REMINDER_MS);
    this.#reminder.unref();
  }

  /** The store answered: the outage, if any, is over. */
  up(): void {
    if (this.#since === undefined) return;
    const awayMs = this.#now() - this.#since;
    this.#since = undefined;
    clearInterval(this.#reminder);
    this.#reminder = undefined;
    storeAvailable.set(1);
    this.#log?.info(
      { backend: this.#backend, awayMs, refusedOperations: this.#refused },
      "store answers again: jobs resume",
    );
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
    for (const listener of this.#backListeners) listener();
  }

  /** Resolves at once while the store answers, else when it is back. */
  whenAvailable(): Promise<void> {
    if (this.#since === undefined) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Called at the end of each outage: work that waited on the store starts again at once. */
  onBack(listener: () => void): void {
    this.#backListeners.push(listener);
  }

  /** Stops the reminder (the process is closing the store). */
  close(): void {
    clearInterval(this.#reminder);
    this.#reminder = undefined;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}
