import { type RefusalForm, refusal } from "./errors.js";
import type { AccountSeed, AccountState, QuotaLimit, QuotaType } from "./types.js";

/**
 * What each creation costs and how a refusal is reported. The spec shows no prices, so these are
 * ours; the refusal forms use both shapes the spec allows (HTTP 400 or the 200 failure envelope).
 * Failed jobs are not refunded.
 *
 * | operation            | credits | quota counted    | not enough credits   | quota exceeded   |
 * |----------------------|---------|------------------|----------------------|------------------|
 * | video.create         | 10      | ai_actor_videos  | HTTP 400             | failure envelope |
 * | video.cinematic      | 20      | cinematic_videos | HTTP 400             | failure envelope |
 * | image.generate       | 1       | ai_images        | HTTP 400             | HTTP 400         |
 * | image.edit           | 2       | ai_images        | HTTP 400             | HTTP 400         |
 * | image.inpaint        | 2       | ai_images        | HTTP 400             | HTTP 400         |
 * | avatar.design        | 1       | -                | failure + details    | -                |
 * | avatar.selfie        | 1       | -                | failure envelope     | -                |
 * | avatar.enhance       | 1       | -                | HTTP 400             | -                |
 * | mockup.generate      | 2       | -                | HTTP 400             | -                |
 * | mockup.video         | 10      | -                | failure envelope     | -                |
 * | mockup.asset         | 1       | -                | failure envelope     | -                |
 * | thumbnail.generate   | 1       | -                | failure envelope     | -                |
 * | design confirm(-both)| 0       | -                | -                    | -                |
 */
export const PRICES = {
  "video.create": { credits: 10, quota: "ai_actor_videos", noCredits: 400, overQuota: "failure" },
  "video.cinematic": { credits: 20, quota: "cinematic_videos", noCredits: 400, overQuota: "failure" },
  "image.generate": { credits: 1, quota: "ai_images", noCredits: 400, overQuota: 400 },
  "image.edit": { credits: 2, quota: "ai_images", noCredits: 400, overQuota: 400 },
  "image.inpaint": { credits: 2, quota: "ai_images", noCredits: 400, overQuota: 400 },
  "avatar.design": { credits: 1, noCredits: "failure" },
  "avatar.selfie": { credits: 1, noCredits: "failure" },
  "avatar.enhance": { credits: 1, noCredits: 400 },
  "mockup.generate": { credits: 2, noCredits: 400 },
  "mockup.video": { credits: 10, noCredits: "failure" },
  "mockup.asset": { credits: 1, noCredits: "failure" },
  "thumbnail.generate": { credits: 1, noCredits: "failure" },
} satisfies Record<
  string,
  { credits: number; quota?: QuotaType; noCredits: RefusalForm; overQuota?: RefusalForm }
>;

export type Operation = keyof typeof PRICES;

/**
 * Plan defaults when a seed leaves them out (the spec names no plans). Unknown plan names get the
 * "pro" figures.
 *
 * | plan | credits | ai_actor_videos | ai_images | cinematic_videos |
 * |------|---------|-----------------|-----------|------------------|
 * | free | 50      | 2               | 25        | 1                |
 * | pro  | 1000    | 50              | unlimited | 10               |
 */
const PLANS: Record<string, { credits: number; quotas: Record<QuotaType, QuotaLimit> }> = {
  free: { credits: 50, quotas: { ai_actor_videos: 2, ai_images: 25, cinematic_videos: 1 } },
  pro: { credits: 1000, quotas: { ai_actor_videos: 50, ai_images: "unlimited", cinematic_videos: 10 } },
};

const QUOTA_MESSAGES: Record<QuotaType, string> = {
  ai_actor_videos: "monthly AI actor video limit reached",
  ai_images: "monthly AI image limit reached",
  cinematic_videos: "monthly cinematic video limit reached",
};

export const DEFAULT_ACCOUNTS: AccountSeed[] = [
  { apiKey: "test-key", plan: "pro", creditsLimit: 1000 },
  { apiKey: "other-key", plan: "free", creditsLimit: 50 },
];

function fromSeed(seed: AccountSeed): AccountState {
  const plan = seed.plan ?? "pro";
  const defaults = PLANS[plan] ?? PLANS.pro!;
  const limit = (type: QuotaType) => ({ used: 0, limit: seed.quotas?.[type] ?? defaults.quotas[type] });
  return {
    apiKey: seed.apiKey,
    plan,
    creditsLimit: seed.creditsLimit ?? defaults.credits,
    creditsUsed: seed.creditsUsed ?? 0,
    usage: {
      ai_actor_videos: limit("ai_actor_videos"),
      ai_images: limit("ai_images"),
      cinematic_videos: limit("cinematic_videos"),
    },
  };
}

export class Accounts {
  private readonly seeds: AccountSeed[] = [];
  private readonly byKey = new Map<string, AccountState>();

  constructor(
    seeds: AccountSeed[],
    private readonly now: () => number,
  ) {
    for (const seed of seeds) this.add(seed);
  }

  add(seed: AccountSeed): AccountState {
    this.seeds.push(seed);
    const state = fromSeed(seed);
    this.byKey.set(seed.apiKey, state);
    return state;
  }

  find(apiKey: string | undefined): AccountState | undefined {
    return apiKey === undefined ? undefined : this.byKey.get(apiKey);
  }

  /** Back to the seeds, in place, so tests holding an AccountState keep a live object. */
  reset(): void {
    for (const seed of this.seeds) {
      const state = this.byKey.get(seed.apiKey);
      if (state) Object.assign(state, fromSeed(seed));
    }
  }

  /** Checks quota then credits, and takes both; throws the refusal in the operation's form. */
  charge(account: AccountState, operation: Operation): void {
    const price: { credits: number; quota?: QuotaType; noCredits: RefusalForm; overQuota?: RefusalForm } =
      PRICES[operation];
    const quota = price.quota && account.usage[price.quota];
    if (price.quota && quota && quota.limit !== "unlimited" && quota.used >= quota.limit) {
      throw refusal(price.overQuota ?? 400, QUOTA_MESSAGES[price.quota]);
    }
    const remaining = account.creditsLimit - account.creditsUsed;
    if (remaining < price.credits) {
      throw refusal(price.noCredits, "not enough credits", {
        details: { required: price.credits, remaining: Math.max(0, remaining) },
      });
    }
    account.creditsUsed += price.credits;
    if (quota) quota.used += 1;
  }

  /** The UsageMetadata object of the spec. */
  usage(account: AccountState) {
    const today = new Date(this.now());
    const reset = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1));
    return {
      plan: account.plan,
      credits_used: account.creditsUsed,
      credits_limit: account.creditsLimit,
      credits_remaining: Math.max(0, account.creditsLimit - account.creditsUsed),
      usage: structuredClone(account.usage),
      usage_reset_date: reset.toISOString().slice(0, 10),
    };
  }
}
