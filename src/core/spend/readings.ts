import { createHash } from "node:crypto";
import type { StoredReading } from "../../store/spend.js";
import type { Usage } from "../api/schemas.js";

/** The account's figures at one moment, as attribution reads them; undefined without credits_used. */
export function readingOf(usage: Usage, at = Date.now()): StoredReading | undefined {
  if (typeof usage.credits_used !== "number") return undefined;
  const counters: Record<string, number> = {};
  for (const [type, quota] of Object.entries(usage.usage ?? {})) {
    if (typeof quota.used === "number") counters[type] = quota.used;
  }
  return { creditsUsed: usage.credits_used, counters, at };
}

/**
 * The billing period a reading belongs to: the service's reset date ends it. A service that does
 * not give one leaves every reading in one open period.
 */
export function periodOf(usage: Usage | undefined): string | undefined {
  const reset = usage?.usage_reset_date;
  return typeof reset === "string" && reset !== "" ? reset.slice(0, 40) : undefined;
}

export const OPEN_PERIOD = "open";

/**
 * Names an account without naming its key: the readings of one key are attributed together, and
 * the key itself never reaches a record or a log line.
 */
export function keyIdOf(apiKey: string): string {
  return createHash("sha256").update(`media-bot spend:${apiKey}`).digest("hex").slice(0, 20);
}
