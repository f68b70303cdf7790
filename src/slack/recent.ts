/**
 * Deliveries seen lately, by the id Slack gives each gesture (trigger_id, event_id). Slack
 * redelivers what it thinks was not acknowledged (`x-slack-retry-num`, Socket Mode envelopes sent
 * again); a slow first delivery then arrives twice, and the second must not run the command again.
 */
export class Recent {
  /** Insertion order is arrival order, so expired keys are always at the front. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True the first time `key` is offered within the ttl. */
  first(key: string): boolean {
    const now = this.now();
    for (const [old, at] of this.seen) {
      if (now - at < this.ttlMs) break;
      this.seen.delete(old);
    }
    if (this.seen.has(key)) return false;
    this.seen.set(key, now);
    return true;
  }
}
