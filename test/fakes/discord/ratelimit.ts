import { createHash } from "node:crypto";

export interface RateLimitOptions {
  /** Answer every Nth eligible call with a 429 (0 = never). */
  every: number;
  retryAfterMs: number;
}

export interface RateLimitDecision {
  headers: Record<string, string>;
  /** Set when this call is answered with 429. */
  retryAfterMs?: number;
}

// Generous on purpose: discord.js reads the headers and waits when Remaining hits 0, which would
// slow tests down; with 50 per second its bucket logic still runs on every answer.
const LIMIT = 50;
const WINDOW_MS = 1000;

/**
 * Per-route buckets with Discord's headers. Windows run on real time, not the fake clock:
 * discord.js measures Reset-After with Date.now().
 */
export function createRateLimits(options: RateLimitOptions) {
  const windows = new Map<string, { start: number; count: number }>();
  let eligible = 0;

  return {
    /**
     * @param bucket the route template plus its major parameter, as Discord groups limits
     * @param exempt interaction callbacks: Discord keeps them out of the global limit, and a 429
     *   there would eat the 3 s the bot has to answer
     */
    decide(route: string, bucket: string, exempt: boolean): RateLimitDecision {
      const now = Date.now();
      let window = windows.get(bucket);
      if (!window || now - window.start >= WINDOW_MS) {
        window = { start: now, count: 0 };
        windows.set(bucket, window);
      }
      window.count += 1;
      const resetAfter = (window.start + WINDOW_MS - now) / 1000;
      const headers = {
        "X-RateLimit-Limit": String(LIMIT),
        "X-RateLimit-Remaining": String(Math.max(0, LIMIT - window.count)),
        "X-RateLimit-Reset": ((window.start + WINDOW_MS) / 1000).toFixed(3),
        "X-RateLimit-Reset-After": resetAfter.toFixed(3),
        "X-RateLimit-Bucket": createHash("sha1").update(route).digest("hex").slice(0, 32),
      };
      if (!exempt) eligible += 1;
      const injected = !exempt && options.every > 0 && eligible % options.every === 0;
      if (!injected && window.count <= LIMIT) return { headers };
      const retryAfterMs = injected ? options.retryAfterMs : Math.ceil(resetAfter * 1000);
      return {
        retryAfterMs,
        headers: {
          ...headers,
          "X-RateLimit-Remaining": "0",
          "X-RateLimit-Reset-After": (retryAfterMs / 1000).toFixed(3),
          "Retry-After": (retryAfterMs / 1000).toFixed(3),
          "X-RateLimit-Scope": "user",
        },
      };
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
