import type { Usage } from "../api/schemas.js";
import { type Card, card, progressBar } from "../base/cards.js";
import { english, type Translator } from "../i18n/translator.js";
import { dayIn, figure } from "./spend-words.js";

/** A quota the service names ("ai_images"): its words in `t`'s language, else its key as words. */
export function quotaName(key: string, t: Translator = english()): string {
  return t.text("usage.quota", { quota: key, name: key.replaceAll("_", " ") });
}

/**
 * The figures as fields, shared by the usage card and the out-of-credits error card, in `t`'s
 * language: numbers in its digits, a quota's limit that is a word as the service gave it.
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
      value: `${progressBar(percent)} (${t.text("usage.of", { used: figure(t, used), limit: figure(t, limit) })})`,
    });
  }
  if (remaining !== undefined) {
    fields.push({ name: t.text("usage.credits_left"), value: figure(t, remaining), inline: true });
  }
  if (usage.plan) fields.push({ name: t.text("usage.plan"), value: usage.plan, inline: true });
  const resets = dayIn(t, usage.usage_reset_date);
  if (resets) fields.push({ name: t.text("usage.resets_on"), value: resets, inline: true });
  for (const [key, quota] of Object.entries(usage.usage ?? {})) {
    const value =
      quota.limit === "unlimited" || quota.limit === undefined
        ? t.text("usage.used_no_limit", { used: figure(t, quota.used ?? 0) })
        : t.text("usage.of", { used: figure(t, quota.used ?? 0), limit: figure(t, quota.limit) });
    fields.push({ name: quotaName(key, t), value, inline: true });
  }
  return fields;
}

export function usageCard(usage: Usage, t: Translator = english()): Card {
  const left = usage.credits_remaining;
  return card(t.text("usage.title"), left === 0 ? "warning" : "info", {
    lines: left === 0 ? [t.text("usage.no_credits_left")] : [],
    fields: usageFields(usage, t),
    locale: t.locale,
  });
}
