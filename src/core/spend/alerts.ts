import type { Claims } from "../../store/claims.js";
import type { TenantSettings } from "../../store/tenants.js";
import type { Usage } from "../api/schemas.js";
import type { Card } from "../base/cards.js";
import type { Logger } from "../base/log.js";
import type { ChatAdapter, Platform } from "../base/ports.js";
import { chosenLanguage } from "../i18n/languages.js";
import { localeOf } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { english, type Translator, translatorFor } from "../i18n/translator.js";
import { type JobsNow, outOfCreditsCard, spendingAlertCard } from "../render/alerts.js";
import { quotaName } from "../render/usage.js";
import { type TenantRef, tenantKey } from "../tenancy/tenancy.js";
import { periodOf } from "./readings.js";

/**
 * Alerts to the channel an admin picked, before the credits run out and when they have: one per
 * threshold per period however many jobs cross it and however many replicas see it (a claim in
 * the store, held until the period is over), and at most one an hour for failed creations.
 */

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Without a reset date, a threshold is told again at most once a month. */
const OPEN_PERIOD_MS = 31 * DAY;

const percent = (fraction: number) => Math.round(fraction * 100);

export interface AlertDeps {
  claims: Claims;
  settings(tenant: TenantRef): Promise<TenantSettings>;
  adapter(platform: Platform): ChatAdapter;
  logger: Logger;
  /** Who holds the alert claims: this process. */
  owner: string;
  /** The tenant's jobs running and waiting their turn now, which an alert shows apart. */
  jobsNow?(tenant: TenantRef): Promise<JobsNow>;
  now?: () => number;
}

interface Crossing {
  /** The claim that makes it once: what and which threshold, in which period. */
  key: string;
  line: string;
}

/**
 * The thresholds `usage` has fallen under, lowest first: credits, then each limited quota; each
 * said in `t`'s language.
 */
export function crossings(
  usage: Usage,
  thresholds: readonly number[],
  t: Translator = english(),
): Crossing[][] {
  const period = periodOf(usage) ?? "open";
  const groups: Crossing[][] = [];
  const sorted = [...thresholds].sort((a, b) => a - b);
  const { credits_limit: limit, credits_used: used } = usage;
  const remaining =
    usage.credits_remaining ?? (limit !== undefined && used !== undefined ? limit - used : undefined);
  if (limit !== undefined && limit > 0 && remaining !== undefined) {
    const left = remaining / limit;
    const crossed = sorted.filter((threshold) => left <= threshold);
    if (crossed.length > 0) {
      groups.push(
        crossed.map((threshold) => ({
          key: `credits:${threshold}:${period}`,
          line: t.text("alert.credits_low", {
            left: Math.max(0, remaining),
            limit,
            percent: percent(Math.max(0, left)),
            at: percent(crossed[0]!),
          }),
        })),
      );
    }
  }
  for (const [type, quota] of Object.entries(usage.usage ?? {})) {
    // "unlimited" (or any text) never runs out.
    const { limit, used } = quota;
    if (typeof limit !== "number" || limit <= 0 || used === undefined) continue;
    const left = (limit - used) / limit;
    const crossed = sorted.filter((threshold) => left <= threshold);
    if (crossed.length === 0) continue;
    groups.push(
      crossed.map((threshold) => ({
        key: `quota:${type}:${threshold}:${period}`,
        line: t.text("alert.quota_low", {
          quota: quotaName(type, t),
          used,
          limit,
          percent: percent(Math.max(0, left)),
          at: percent(crossed[0]!),
        }),
      })),
    );
  }
  return groups;
}

/**
 * An alert has no one reader: it is posted in the language its server's or workspace's admins set
 * (`/setup language`), else in English.
 */
function alertsTranslator(settings: TenantSettings): Translator {
  return translatorFor(localeOf([chosenLanguage(settings.defaults)]));
}

/**
 * Every job's reading is checked for alerts: the tenant's alert settings are read once in this
 * long for all of them (a burst of 200 jobs reads them once, not 200 times). A changed alert
 * channel or threshold counts within it.
 */
const SETTINGS_KEPT_MS = 2_000;

export class SpendAlerts {
  /** Claims this process already took or saw taken: no store call for a threshold long crossed. */
  private readonly told = new Set<string>();
  private readonly now: () => number;
  /** Each tenant's settings as last read, one entry per tenant that spent in the last moments. */
  private readonly settingsOf = new Map<string, { at: number; settings: Promise<TenantSettings> }>();

  constructor(private readonly deps: AlertDeps) {
    this.now = deps.now ?? Date.now;
  }

  private settings(tenant: TenantRef): Promise<TenantSettings> {
    const key = tenantKey(tenant);
    const kept = this.settingsOf.get(key);
    const now = this.now();
    if (kept && now - kept.at < SETTINGS_KEPT_MS) return kept.settings;
    for (const [other, entry] of this.settingsOf) {
      if (now - entry.at >= SETTINGS_KEPT_MS) this.settingsOf.delete(other);
    }
    const entry = { at: now, settings: this.deps.settings(tenant) };
    this.settingsOf.set(key, entry);
    // A failed read is not kept.
    entry.settings.catch(() => {
      if (this.settingsOf.get(key) === entry) this.settingsOf.delete(key);
    });
    return entry.settings;
  }

  /** After any reading of the tenant's account: posts what it newly crossed, once. */
  async afterReading(tenant: TenantRef, usage: Usage): Promise<void> {
    const settings = await this.settings(tenant);
    const channel = settings.alertChannelId;
    if (!channel) return;
    const ttl = this.untilPeriodEnds(usage);
    const t = alertsTranslator(settings);
    for (const group of crossings(usage, settings.alertAt, t)) {
      // One message for the lowest threshold crossed; the higher ones it passed are taken with it.
      const won: string[] = [];
      for (const crossing of group) if (await this.once(tenant, crossing.key, ttl)) won.push(crossing.key);
      if (!won.includes(group[0]!.key)) continue;
      const message = spendingAlertCard(
        group[0]!.line,
        usage.usage_reset_date,
        await this.jobsNow(tenant),
        t,
      );
      await this.post(tenant, channel, message, won);
    }
  }

  /** A creation the service refused for lack of credits or quota: told once an hour at most. */
  async creationRefused(tenant: TenantRef, by: { userId: string; command: string }): Promise<void> {
    const settings = await this.settings(tenant);
    const channel = settings.alertChannelId;
    const what = `refused:${Math.floor(this.now() / HOUR)}`;
    if (!channel || !(await this.once(tenant, what, HOUR))) return;
    const t = alertsTranslator(settings);
    // The command as the service's records name it ("image.generate"), the same in every language.
    const line = t.line(
      msg("alert.creation_refused", { person: { userId: by.userId }, command: by.command }),
    );
    await this.post(tenant, channel, outOfCreditsCard(line, await this.jobsNow(tenant), t), [what]);
  }

  /** The jobs line is a help, not the alert: an alert goes without it when the store cannot say. */
  private async jobsNow(tenant: TenantRef): Promise<JobsNow | undefined> {
    try {
      return await this.deps.jobsNow?.(tenant);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, tenant: tenantKey(tenant) },
        "alert sent without the jobs running and waiting",
      );
      return undefined;
    }
  }

  private keyOf(tenant: TenantRef, what: string): string {
    return `alert:${tenant.platform}:${tenant.tenantId}:${what}`;
  }

  private async once(tenant: TenantRef, what: string, ttlMs: number): Promise<boolean> {
    const key = this.keyOf(tenant, what);
    if (this.told.has(key)) return false;
    const won = await this.deps.claims.acquire(key, this.deps.owner, ttlMs);
    // Taken here or elsewhere, it is told for this period either way.
    this.told.add(key);
    return won;
  }

  private untilPeriodEnds(usage: Usage): number {
    const reset = Date.parse(usage.usage_reset_date ?? "");
    return Number.isFinite(reset) ? Math.max(HOUR, reset - this.now() + DAY) : OPEN_PERIOD_MS;
  }

  /**
   * A post that fails (the platform down, the channel gone) gives its claims back, so that the
   * next reading tries again instead of the period going by without the alert.
   */
  private async post(tenant: TenantRef, channelId: string, message: Card, claimed: readonly string[]) {
    const adapter = this.deps.adapter(tenant.platform);
    try {
      await adapter.post(adapter.channel(tenant.tenantId, channelId), message);
    } catch (error) {
      this.deps.logger.warn({ err: error, tenant: tenantKey(tenant) }, "spending alert not posted");
      for (const what of claimed) {
        const key = this.keyOf(tenant, what);
        this.told.delete(key);
        await this.deps.claims.release(key, this.deps.owner).catch(() => false);
      }
    }
  }
}
