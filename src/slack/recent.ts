import type { Claims } from "../store/index.js";

/**
 * Deliveries seen lately, by the id Slack gives each gesture (trigger_id, event_id). Slack
 * redelivers what it thinks was not acknowledged (`x-slack-retry-num`, Socket Mode envelopes sent
 * again); a slow first delivery then arrives twice, possibly at another replica behind the load
 * balancer, and the second must not run the command again. So the first arrival is a claim in the
 * bot's store, which every replica shares, and the claim expires by itself.
 */
export class Recent {
  constructor(
    private readonly claims: Claims,
    /** Who claims: anything unique, since a claim is never renewed or released. */
    private readonly owner: string,
    private readonly ttlMs = 10 * 60_000,
  ) {}

  /** True the first time `key` is offered within the ttl, whichever replica offers it. */
  first(key: string): Promise<boolean> {
    return this.claims.acquire(`slack-delivery:${key}`, this.owner, this.ttlMs);
  }
}
