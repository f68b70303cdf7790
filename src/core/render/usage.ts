import type { Usage } from "../api/schemas.js";
import { type Card, card, progressBar } from "../base/cards.js";
import { english, type Translator } from "../i18n/translator.js";
import { day } from "./text.js";

/** A quota the service names ("ai_images"): its words in `t`'s language, else its key as words. */
function quotaName(key: string, t: Translator): string {
  return t.text("usage.quota", { quota: key, name: key.replaceAll("_", " ") });
}

/**
 * The figures as fields, shared by the usage card and the out-of-credits error card, in `t`'s
 * language; the service's figures as it gave them (a quota's limit may be a word).
 */
export function usageFields(usage: Usage, t: Translator = english()): Card["fields"] {
  const fields: Card["fields"] = [];
  const { credits_used: used, credits_limit: limit } = usage;
  const remaining =
    usage.credits_remaining ?? (used !== undefined && limit !== undefined ? limit - used : undefined);
  if (used !== undefined && limit !== undefined) {
    const percent = limit > 0 ? (used / limit) * 100 : 100;
    fields.push({
      name: t.text("usage.credits_used"),
      value: `${progressBar(percent)} (${t.text("usage.of", { used: String(used), limit: String(limit) })})`,
    });
  }
  if (remaining !== undefined) {
    fields.push({ name: t.text("usage.credits_left"), value: String(remaining), inline: true });
  }
  if (usage.plan) fields.push({ name: t.text("usage.plan"), value: usage.plan, inline: true });
  const resets = day(usage.usage_reset_date);
  if (resets) fields.push({ name: t.text("usage.resets_on"), value: resets, inline: true });
  for (const [key, quota] of Object.entries(usage.usage ?? {})) {
    const value =
      quota.limit === "unlimited" || quota.limit === undefined
        ? t.text("usage.used_no_limit", { used: String(quota.used ?? 0) })
        : t.text("usage.of", { used: String(quota.used ?? 0), limit: String(quota.limit) });
    fields.push({ name: quotaName(key, t), value, inline: true });
  }
  return fields;
}

export function usageCard(usage: Usage, t: Translator = english()): Card {
  const left = usage.credits_remaining;
  return card(t.text("usage.title"), left === 0 ? "warning" : "info", {
    lines: left === 0 ? [t.text("usage.no_credits_left")] : [],
    fields: usageFields(usage, t),
  });
}
