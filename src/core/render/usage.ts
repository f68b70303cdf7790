import type { Usage } from "../api/schemas.js";
import { type Card, card, progressBar } from "../base/cards.js";
import { day } from "./text.js";

const QUOTA_NAMES: Record<string, string> = {
  ai_actor_videos: "Avatar videos",
  ai_images: "Images",
  cinematic_videos: "Cinematic videos",
};

function quotaName(key: string): string {
  return QUOTA_NAMES[key] ?? key.replaceAll("_", " ");
}

/** The figures as fields, shared by the usage card and the out-of-credits error card. */
export function usageFields(usage: Usage): Card["fields"] {
  const fields: Card["fields"] = [];
  const { credits_used: used, credits_limit: limit } = usage;
  const remaining =
    usage.credits_remaining ?? (used !== undefined && limit !== undefined ? limit - used : undefined);
  if (used !== undefined && limit !== undefined) {
    const percent = limit > 0 ? (used / limit) * 100 : 100;
    fields.push({ name: "Credits used", value: `${progressBar(percent)} (${used} of ${limit})` });
  }
  if (remaining !== undefined) fields.push({ name: "Credits left", value: String(remaining), inline: true });
  if (usage.plan) fields.push({ name: "Plan", value: usage.plan, inline: true });
  const resets = day(usage.usage_reset_date);
  if (resets) fields.push({ name: "Resets on", value: resets, inline: true });
  for (const [key, quota] of Object.entries(usage.usage ?? {})) {
    const value =
      quota.limit === "unlimited" || quota.limit === undefined
        ? `${quota.used ?? 0} used (no limit)`
        : `${quota.used ?? 0} of ${quota.limit}`;
    fields.push({ name: quotaName(key), value, inline: true });
  }
  return fields;
}

export function usageCard(usage: Usage): Card {
  const left = usage.credits_remaining;
  return card("Media service usage", left === 0 ? "warning" : "info", {
    lines:
      left === 0
        ? ["No credits left in this period: creations fail until the reset date or a plan upgrade."]
        : [],
    fields: usageFields(usage),
  });
}
