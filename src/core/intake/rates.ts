import { tenantKey } from "../../common/types.js";
import { BotError } from "../base/errors.js";
import type { Actor } from "../base/ports.js";
import { msg } from "../i18n/msg.js";

/**
 * How many gestures (commands, form submissions, clicks) one person and one tenant may send: a
 * token bucket each, holding a minute's worth and refilled evenly, so a short burst passes and a
 * steady flood is refused. Counted in this process only: with several instances behind one
 * store, each counts its own share (a rate is a guard against floods, not a quota).
 *
 * By hand rather than a package: two in-memory buckets are a few lines, and the packages that
 * also share counts across processes would add a round trip to the store for every gesture.
 */

export interface RateLimits {
  /** Gestures one person may send per minute; 0: no limit. */
  userPerMinute: number;
  /** Gestures one tenant (server or workspace) may send per minute; 0: no limit. */
  tenantPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { userPerMinute: 20, tenantPerMinute: 300 };

export class RateLimitError extends BotError {
  readonly code = "limit.rate";
  constructor(
    readonly retryAfterSeconds: number,
    who: "you" | "tenant",
  ) {
    super(
      msg(who === "you" ? "refusal.limit.rate_you" : "refusal.limit.rate_tenant", {
        seconds: retryAfterSeconds,
      }),
    );
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Past this many buckets, full ones (nobody sent anything for a minute) are dropped. */
const PRUNE_ABOVE = 10_000;

class Buckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
  ) {
    this.perMs = capacity / 60_000;
  }

  /** Milliseconds until `key` has a token again; 0 when it has one now (not taken). */
  wait(key: string): number {
    if (this.capacity === 0) return 0;
    const bucket = this.refilled(key);
    return bucket.tokens >= 1 ? 0 : Math.ceil((1 - bucket.tokens) / this.perMs);
  }

  take(key: string): void {
    if (this.capacity === 0) return;
    const bucket = this.refilled(key);
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > PRUNE_ABOVE) this.prune();
  }

  private refilled(key: string): Bucket {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    return { tokens: Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs), at: now };
  }

  private prune(): void {
    for (const key of this.buckets.keys()) {
      if (this.refilled(key).tokens >= this.capacity) this.buckets.delete(key);
    }
  }
}

export class CommandRates {
  private readonly users: Buckets;
  private readonly tenants: Buckets;

  constructor(limits: RateLimits, now: () => number = Date.now) {
    this.users = new Buckets(limits.userPerMinute, now);
    this.tenants = new Buckets(limits.tenantPerMinute, now);
  }

  /**
   * Counts one gesture of `actor`, or throws RateLimitError saying when to try again. A refused
   * gesture counts for nobody, so someone flooding does not use up the tenant's share.
   */
  take(actor: Pick<Actor, "platform" | "tenantId" | "userId">): void {
    const tenant = tenantKey(actor);
    const user = `${tenant}:${actor.userId}`;
    const userWait = this.users.wait(user);
    if (userWait > 0) throw new RateLimitError(Math.ceil(userWait / 1000), "you");
    const tenantWait = this.tenants.wait(tenant);
    if (tenantWait > 0) throw new RateLimitError(Math.ceil(tenantWait / 1000), "tenant");
    this.users.take(user);
    this.tenants.take(tenant);
  }
}
