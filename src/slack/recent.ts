import type { Intake } from "../core/intake/intake.js";
import { type Claims, isStoreOutage } from "../store/index.js";

/**
 * Deliveries seen lately, by the id Slack gives each gesture (trigger_id, event_id). Slack
 * redelivers what it thinks was not acknowledged (`x-slack-retry-num`, Socket Mode envelopes sent
 * again); a slow first delivery then arrives twice, possibly at another replica behind the load
 * balancer, and the second must not run the command again. So the first arrival is a claim in the
 * bot's store, which every replica shares, and the claim expires by itself.
 *
 * The claim is a store write, made after the ack: while a burst of requests arrives it waits
 * with the rest of the work behind the acks (core/intake/intake.ts), so the burst's next connections are
 * accepted first. Slack redelivers after 3 s without an ack, long after that wait.
 */
export class Recent {
  private readonly ttlMs: number;
  private readonly intake: Pick<Intake, "settled"> | undefined;

  constructor(
    private readonly claims: Claims,
    /** Who claims: anything unique, since a claim is never renewed or released. */
    private readonly owner: string,
    options: { ttlMs?: number; intake?: Pick<Intake, "settled"> | undefined } = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.intake = options.intake;
  }

  /**
   * True the first time `key` is offered within the ttl, whichever replica offers it. While the
   * store is away nobody can tell, so it is let through: the core refuses every start until the
   * store is back, so a copy at worst hears "try again in a moment" twice.
   */
  async first(key: string): Promise<boolean> {
    await this.intake?.settled();
    try {
      return await this.claims.acquire(`slack-delivery:${key}`, this.owner, this.ttlMs);
    } catch (error) {
      if (isStoreOutage(error)) return true;
      throw error;
    }
  }
}
