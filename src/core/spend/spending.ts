import { randomUUID } from "node:crypto";
import type { StoreAvailability } from "../../store/availability.js";
import {
  type BookRef,
  type Budget,
  isStoreOutage,
  type LedgerProbe,
  type SpendStore,
} from "../../store/index.js";
import type { MediaApi } from "../api/client.js";
import type { Usage } from "../api/schemas.js";
import { BotError, QuotaExceededError } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import { budgetRefusalsTotal, creditsRemaining, creditsSpentTotal } from "../base/metrics.js";
import type { Actor, ConversationRef } from "../base/ports.js";
import { command, type Msg, msg } from "../i18n/msg.js";
import { despiteOutage } from "../jobs/despite-outage.js";
import { type TenantKey, type TenantRef, tenantKey } from "../tenancy/tenancy.js";
import { AccountReadings, PROBE_TIMEOUT_MS } from "./account.js";
import type { SpendAlerts } from "./alerts.js";
import { applicable, type BudgetSubject, dayOf, HOLD_TTL_MS, holdItems, jobFields } from "./budgets.js";
import { spendKindOf } from "./data/kinds.js";
import { Lull } from "./lull.js";
import { type Origin, originOf } from "./origin.js";
import { keyIdOf, OPEN_PERIOD, periodOf, readingOf } from "./readings.js";
import { runTapped, StartTap } from "./tap.js";

/**
 * Every paid start, wrapped: the account read before the creation call (free, and shared by the
 * starts that ask at once), the budgets checked and reserved in one atomic step on the store, the
 * call made by the command's own code, then (without holding the start up) the job recorded with
 * who, where and what, counted, priced by its reading after the charge, and the reservation given
 * back; the alerts told.
 * Nothing here ever repeats or delays a creation call; a fault in the bookkeeping after the call
 * is logged, never shown as a failed job.
 */

/** How long a made job's bookkeeping waits at most for the starts under way (lull.ts). */
const BOOKKEEPING_WAIT_MS = 500;

export class BudgetError extends BotError {
  readonly code = "limit.budget";
  constructor(
    said: Msg,
    readonly scope: string,
  ) {
    super(said);
  }
}

/** A budget of a role or group may bind the start, and the platform cannot say who is in it now. */
export class BudgetUncheckedError extends BotError {
  readonly code = "limit.budget_unknown";
  override readonly retryable = true;
  constructor(platform: Actor["platform"], cause?: unknown) {
    super(msg("refusal.budget.unchecked", { place: platform }), {
      message: `${platform === "slack" ? "user groups" : "roles"} unknown for a budget check`,
      cause,
    });
  }
}

export interface SpendingDeps {
  store: SpendStore;
  apiKey(tenant: TenantRef): Promise<TenantKey | undefined>;
  mediaWith(tenant: TenantRef, key: TenantKey | undefined): MediaApi;
  alerts: SpendAlerts;
  logger: Logger;
  now?: () => number;
  /** A job's cost is recorded once the store is back when it was away just after the creation call. */
  availability?: Pick<StoreAvailability, "whenAvailable">;
  /** The platform's answer to `ChatAdapter.rolesOf`; undefined where the platform has none. */
  rolesOf?(actor: Actor): Promise<string[]> | undefined;
}

export interface PaidStart {
  command: string;
  actor: Actor;
  conversation: ConversationRef;
}

/** What a view of the account (the Home, the usage command) is drawn from. */
export interface AccountView {
  account: Usage;
  period: string;
  keyId: string;
}

interface Started {
  paid: PaidStart;
  origin: Origin;
  kind: string;
  keyId: string;
  period: string;
  subject: BudgetSubject;
  probe: LedgerProbe | undefined;
  hold: { book: BookRef; holdId: string } | undefined;
  tap: StartTap;
  media: MediaApi;
}

export class Spending {
  private readonly now: () => number;
  /** The last period seen of each key (a hash of it): one entry per API key in use. */
  private readonly periods = new Map<string, string>();
  private readonly readings: AccountReadings;
  /**
   * Reads of a tenant's key and budgets on their way, shared by the starts that ask meanwhile: a
   * burst of 200 starts in one tenant reads them once or twice, not 200 times.
   */
  private readonly reading = new Map<string, Promise<unknown>>();
  /** The bookkeeping of starts made, landing after them. */
  private readonly settling = new Set<Promise<void>>();
  /** The starts under way, which the bookkeeping of those made waits for (lull.ts). */
  private readonly lull = new Lull(BOOKKEEPING_WAIT_MS);

  constructor(private readonly deps: SpendingDeps) {
    this.now = deps.now ?? Date.now;
    this.readings = new AccountReadings(this.now);
  }

  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const asked = this.reading.get(key) as Promise<T> | undefined;
    if (asked) return asked;
    const reading = read().finally(() => this.reading.delete(key));
    this.reading.set(key, reading);
    return reading;
  }

  /** Runs `start` (whose creation call is paid) within the budgets, and records what it cost. */
  around<T>(paid: PaidStart, start: () => Promise<T>): Promise<T> {
    return this.lull.during(() => this.within(paid, start));
  }

  private async within<T>(paid: PaidStart, start: () => Promise<T>): Promise<T> {
    const kind = spendKindOf(paid.command);
    // Unknown kinds start nothing paid.
    if (!kind) return start();
    const origin = originOf(paid.actor, paid.conversation);
    const { tenant } = origin;
    // The budgets are read while the key and then the account are: a start waits for the slower.
    const budgets = this.shared(`budgets:${tenantKey(tenant)}`, () => this.deps.store.budgets(tenant));
    // Awaited below, unless there is no key: its failure is then no one's to hear.
    budgets.catch(() => undefined);
    const key = await this.shared(`key:${tenantKey(tenant)}`, () => this.deps.apiKey(tenant));
    // Without a key the command is refused before any call.
    if (!key) return start();
    const keyId = keyIdOf(key.value);
    const media = this.deps.mediaWith(tenant, key);
    const [probe, rules] = await Promise.all([this.readings.probe(keyId, media), budgets]);
    const period = await this.periodFor(keyId, probe?.usage);
    const subject: BudgetSubject = {
      userId: paid.actor.userId,
      roleIds: await this.rolesFor(paid.actor, rules),
      channelId: origin.channelId,
    };
    const hold = await this.reserve({ tenant, period }, rules, subject, kind, paid);
    const tap = new StartTap();
    const state: Started = {
      paid,
      origin,
      kind,
      keyId,
      period,
      subject,
      probe: probe?.reading,
      hold,
      tap,
      media,
    };
    let result: T;
    try {
      result = await runTapped(tap, start);
    } catch (error) {
      tap.close();
      // A start that fails after its creation answer (the job not tracked, its message not posted)
      // was made and paid all the same: it is counted, not given back.
      const charged = tap.jobId !== undefined || tap.usage !== undefined;
      await (charged ? this.record(state) : this.giveBack(hold)).catch((cause: unknown) =>
        this.deps.logger.warn({ err: cause, command: paid.command }, "budget reservation not settled"),
      );
      if (error instanceof QuotaExceededError) {
        await this.deps.alerts
          .creationRefused(tenant, { userId: paid.actor.userId, command: paid.command })
          .catch((cause: unknown) => this.deps.logger.warn({ err: cause }, "out-of-credits alert failed"));
      }
      throw error;
    }
    tap.close();
    // The job is made: its bookkeeping goes on without holding the start (the person's next
    // command, the burst it is in), once the starts under way have made their calls. Until it
    // lands the reservation stands for it, so no budget can be passed meanwhile; a graceful stop
    // waits for it (`settled`).
    const settling: Promise<void> = this.lull
      .whenQuiet()
      .then(() => despiteOutage(this.deps.availability, () => this.record(state)))
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, command: paid.command, jobId: tap.jobId },
          "job spending not recorded",
        ),
      )
      .finally(() => this.settling.delete(settling));
    this.settling.add(settling);
    return result;
  }

  /**
   * Resolves once the bookkeeping of every start made so far has landed (or failed, logged), the
   * alerts its readings called for told: a stop then closes no store under an alert's claim.
   */
  async settled(): Promise<void> {
    // A record landing adds its alert check: wait for that too.
    while (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }

  /**
   * The account as a view shows it: a reading under 30 s old or a new one (account.ts), and its
   * period. Reads only: nothing is written however often the Home or the usage command is opened.
   */
  async view(tenant: TenantRef, key: TenantKey): Promise<AccountView> {
    const keyId = keyIdOf(key.value);
    const account = await this.readings.recent(keyId, this.deps.mediaWith(tenant, key));
    this.gauge(tenant, account);
    const period =
      periodOf(account) ?? this.periods.get(keyId) ?? (await this.deps.store.period(keyId)) ?? OPEN_PERIOD;
    return { account, period, keyId };
  }

  /**
   * The person's roles or groups for the budgets: as the gesture gave them, or, where it could
   * not (rolesUnknown) and a budget of a role or group exists, as the platform says now.
   */
  private async rolesFor(actor: Actor, rules: readonly Budget[]): Promise<readonly string[]> {
    if (!actor.rolesUnknown || !rules.some((rule) => rule.scope === "role")) return actor.roleIds;
    try {
      const roles = await this.deps.rolesOf?.(actor);
      if (roles) return roles;
    } catch (error) {
      throw new BudgetUncheckedError(actor.platform, error);
    }
    throw new BudgetUncheckedError(actor.platform);
  }

  /** Checks and reserves in one step; undefined when no budget binds the start. */
  private async reserve(
    book: BookRef,
    rules: readonly Budget[],
    subject: BudgetSubject,
    kind: string,
    paid: PaidStart,
  ): Promise<Started["hold"]> {
    const binding = applicable(rules, subject, kind);
    if (binding.length === 0) return undefined;
    const holdId = randomUUID();
    const now = this.now();
    const refused = await this.deps.store.reserve(book, {
      id: holdId,
      command: paid.command,
      at: now,
      lapsedUpTo: now - HOLD_TTL_MS,
      items: holdItems(binding, subject),
    });
    if (refused) {
      const rule = binding[refused.index] ?? binding[0]!;
      budgetRefusalsTotal.inc({ scope: rule.scope });
      throw new BudgetError(
        refusalMessage({ rule, used: refused.taken, limit: rule.limit }, paid, book.period),
        rule.scope,
      );
    }
    return { book, holdId };
  }

  /**
   * A hold the store's outage kept from being given back (a start refused as the primary failed
   * over) is given back once the store is back, in the background: until then, or until it
   * lapses, it holds its budget back, and the refusal does not wait for it.
   */
  private async giveBack(hold: Started["hold"]): Promise<void> {
    if (!hold) return;
    const release = () => this.deps.store.release(hold.book, hold.holdId);
    try {
      await release();
    } catch (error) {
      if (!this.deps.availability || !isStoreOutage(error)) throw error;
      const later: Promise<void> = despiteOutage(this.deps.availability, release)
        .catch((cause: unknown) =>
          this.deps.logger.warn({ err: cause, holdId: hold.holdId }, "budget reservation not given back"),
        )
        .finally(() => this.settling.delete(later));
      this.settling.add(later);
    }
  }

  private async record(state: Started): Promise<void> {
    const { paid, origin, kind, keyId, hold, subject, tap } = state;
    const { tenant } = origin;
    // A reply without a job (a refusal shown as a card): nothing was made, nothing is held.
    if (!tap.jobId && !tap.usage) return this.giveBack(hold);
    // Operations whose answer has no usage figures are read right after: approximate when
    // another call on the key lands in between.
    const approximate = tap.usage === undefined;
    const afterUsage =
      tap.usage ?? (await state.media.usage.get({ timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined));
    const at = this.now();
    const after = afterUsage && readingOf(afterUsage, at);
    // A charge that landed after the reset date belongs to the new period, where the probe before
    // it (of the old one) says nothing; its reservation is given back in the old period's book.
    const crossed = periodOf(afterUsage);
    const period = crossed && crossed !== state.period ? crossed : state.period;
    const before = period === state.period ? state.probe : undefined;
    if (period !== state.period) await this.periodFor(keyId, afterUsage);
    const jobId = tap.jobId ?? `untracked:${randomUUID()}`;
    // A tracked job's record, for the export; a reply without one is counted and priced all the same.
    const record = tap.jobId &&
      tap.serviceJobId && {
        jobId,
        serviceJobId: tap.serviceJobId,
        tenant,
        userId: paid.actor.userId,
        channelId: origin.channelId,
        kind,
        command: paid.command,
        keyId,
        period,
        at,
        ...(before && {
          before: { creditsUsed: before.creditsUsed, counters: before.counters, at: before.at },
        }),
        ...(after && { after }),
        ...(after && approximate && { approximate }),
      };
    const credits = await this.deps.store.settle({
      book: { tenant, period },
      userId: paid.actor.userId,
      jobId,
      command: paid.command,
      keyId,
      ...jobFields(subject, kind, dayOf(at)),
      ...(before && { before }),
      ...(after && { after }),
      ...(hold && { hold }),
      ...(record && { record }),
    });
    if (credits !== undefined && credits > 0) {
      creditsSpentTotal.inc({ kind, tenant: tenantKey(tenant) }, credits);
    }
    if (afterUsage) {
      this.readings.heard(keyId, afterUsage);
      this.observe(tenant, afterUsage);
    }
  }

  private gauge(tenant: TenantRef, usage: Usage): void {
    if (typeof usage.credits_remaining === "number") {
      creditsRemaining.set({ tenant: tenantKey(tenant) }, usage.credits_remaining);
    }
  }

  /**
   * The gauge, and the alerts of a fresh reading, checked in the background with the rest of the
   * bookkeeping (`settled`): a start does not wait for them.
   */
  private observe(tenant: TenantRef, usage: Usage): void {
    this.gauge(tenant, usage);
    const check: Promise<void> = this.deps.alerts
      .afterReading(tenant, usage)
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "spending alert check failed"))
      .finally(() => this.settling.delete(check));
    this.settling.add(check);
  }

  /**
   * The reading's period, remembered per key for the starts whose probe did not answer: in the
   * store for the other replicas and restarts, here so that a start reads or writes it only when
   * the period is new to this process. A new period has the ones before the last forgotten.
   */
  private async periodFor(keyId: string, usage: Usage | undefined): Promise<string> {
    const period = periodOf(usage);
    const remembered = this.periods.get(keyId);
    if (period && remembered === period) return period;
    // New to this process: the starts of a burst look it up (and note it) once between them.
    return this.shared(`period:${keyId}:${period ?? ""}`, async () => {
      const known = this.periods.get(keyId) ?? (await this.deps.store.period(keyId));
      if (!period) return known ?? OPEN_PERIOD;
      if (known !== period) {
        const old = await this.deps.store.setPeriod(keyId, period);
        // A period's many records are deleted in the background: no start waits for them.
        for (const gone of old) {
          this.deps.store
            .forgetPeriod(keyId, gone)
            .catch((error: unknown) =>
              this.deps.logger.warn({ err: error, period: gone }, "spending of an old period not deleted"),
            );
        }
      }
      this.periods.set(keyId, period);
      return period;
    });
  }
}

function refusalMessage(
  refusal: { rule: Budget; used: number; limit: number },
  paid: PaidStart,
  period: string,
): Msg {
  const { rule, used, limit } = refusal;
  const { actor, conversation } = paid;
  const place = actor.platform;
  // A follow-up clicked in a DM is held to the budget of the channel its job was asked in.
  const elsewhere = originOf(actor, conversation).channelId !== conversation.channelId;
  const scope: Record<Budget["scope"], string> = {
    user: rule.id === "*" ? "each" : "user",
    role: "role",
    channel: elsewhere ? "origin" : "channel",
    everyone: "everyone",
  };
  return msg("refusal.budget.over", {
    whose: msg("refusal.budget.whose", { scope: scope[rule.scope], place }),
    used: Math.round(used * 100) / 100,
    limit,
    unit: rule.unit,
    left: Math.max(0, Math.round((limit - used) * 100) / 100),
    open: String(period === OPEN_PERIOD),
    day: period.slice(0, 10),
    place,
    budget: command("budget"),
  });
}
