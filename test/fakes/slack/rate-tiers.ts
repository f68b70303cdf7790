import documented from "./documented.json" with { type: "json" };
import type { Args } from "./methods/args.js";
import type { Workspace } from "./state.js";

/**
 * Slack's Web API rate limits, per method per app per workspace
 * (https://docs.slack.dev/apis/web-api/rate-limits): each method's tier from its page (Tier 1: 1+
 * per minute, 2: 20+, 3: 50+, 4: 100+), counted over a sliding minute. Past it, 429 with
 * Retry-After (whole seconds until the minute frees a call) and `{ok: false, error: "ratelimited"}`.
 * The "+" is Slack's: a tier takes at least that many; the fake refuses the first call beyond.
 *
 * Special tiers: chat.postMessage takes about one message per second per channel, with short
 * bursts (modelled as five per five seconds: Slack gives no burst figure). auth.test and
 * oauth.v2.access are not limited here ("thousands per hour").
 *
 * Apps distributed outside the Slack Marketplace have conversations.history and
 * conversations.replies at Tier 1 (Slack's changelog of 2025-05-29, "Rate limit changes for
 * non-Marketplace apps"), in the workspaces that installed them through OAuth.
 */

export interface RateTierOptions {
  /** How long a "minute" lasts, so that tests can compress time (default Slack's 60 s). */
  minuteMs?: number;
}

/** Calls per minute of each tier. */
export const TIER_PER_MINUTE: Record<number, number> = { 1: 1, 2: 20, 3: 50, 4: 100 };
/** chat.postMessage per channel: this many per this many seconds (one a second, short bursts). */
export const POST_BURST = { messages: 5, seconds: 5 } as const;

const TIERS = documented.methods as Record<string, { tier: number | "special" }>;
const HISTORY = new Set(["conversations.history", "conversations.replies"]);

/** A rate-limit storm a test orders: calls of `method` answer 429 until `until`. */
interface Storm {
  method: string;
  teamId?: string;
  until: number;
  retryAfterS?: number;
}

/** The tier a method has for a workspace's install, or undefined when the fake does not limit it. */
export function tierOf(method: string, workspace: Pick<Workspace, "distribution">): number | undefined {
  if (HISTORY.has(method) && workspace.distribution === "distributed") return 1;
  const tier = TIERS[method]?.tier;
  return typeof tier === "number" ? tier : undefined;
}

export class RateTiers {
  /** When each counted call happened, by lane (workspace, method and, for posts, channel). */
  private readonly seen = new Map<string, number[]>();
  private readonly storms: Storm[] = [];
  /** Tier limits are enforced only once a test turns them on. */
  private minuteMs: number | undefined;

  enforce(options: RateTierOptions = {}): void {
    this.minuteMs = options.minuteMs ?? 60_000;
  }

  storm(method: string, forMs: number, options: { teamId?: string; retryAfterS?: number } = {}): void {
    this.storms.push({ method, until: Date.now() + forMs, ...options });
  }

  /** Seconds to wait when this call is over its limit (the call is then not counted), else undefined. */
  check(method: string, workspace: Workspace, args: Args): number | undefined {
    const now = Date.now();
    const storm = this.storms.find(
      (s) => s.method === method && s.until > now && (s.teamId === undefined || s.teamId === workspace.id),
    );
    if (storm) return storm.retryAfterS ?? Math.max(1, Math.ceil((storm.until - now) / 1000));
    if (this.minuteMs === undefined) return undefined;
    if (method === "chat.postMessage") {
      const channel = typeof args.channel === "string" ? args.channel : "";
      const windowMs = (POST_BURST.seconds * this.minuteMs) / 60;
      return this.take(`${workspace.id}:${method}:${channel}`, POST_BURST.messages, windowMs, now);
    }
    const tier = tierOf(method, workspace);
    if (tier === undefined) return undefined;
    return this.take(`${workspace.id}:${method}`, TIER_PER_MINUTE[tier] ?? 1, this.minuteMs, now);
  }

  private take(lane: string, limit: number, windowMs: number, now: number): number | undefined {
    const recent = (this.seen.get(lane) ?? []).filter((at) => now - at < windowMs);
    this.seen.set(lane, recent);
    if (recent.length >= limit) return Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
    recent.push(now);
    return undefined;
  }
}
