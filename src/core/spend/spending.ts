import { randomUUID } from "node:crypto";
import type { StoreAvailability } from "../../store/availability.js";
import type { SpendStore } from "../../store/spend.js";
import type { MediaApi } from "../api/client.js";
import type { Usage } from "../api/schemas.js";
import { BotError, QuotaExceededError } from "../errors.js";
import { despiteOutage } from "../jobs/despite-outage.js";
import type { Logger } from "../log.js";
import { budgetRefusalsTotal, creditsRemaining, creditsSpentTotal } from "../metrics.js";
import type { Actor, ConversationRef } from "../ports.js";
import { type TenantKey, type TenantRef, tenantKey, tenantOf } from "../tenancy.js";
import type { SpendAlerts } from "./alerts.js";
import { type BudgetSubject, pruneHolds, type Refusal, release, reserve, settle } from "./budgets.js";
import { budgetUnitText, spendKindOf } from "./kinds.js";
import { keyIdOf, OPEN_PERIOD, periodOf, readingOf } from "./readings.js";
import { runTapped, StartTap } from "./tap.js";

/**
 * Every paid start, wrapped: the account read before the creation call (free), the budgets
 * checked and reserved, the call made by the command's own code, then the job's reading after
 * its charge recorded with who, where and what, the reservation replaced by the real cost, and
 * the alerts told. Nothing here ever repeats or delays a creation call; a fault in the
 * bookkeeping after the call is logged, never shown as a failed job.
 */

export class BudgetError extends BotError {
  readonly code = "limit.budget";
  constructor(
    userMessage: string,
    readonly scope: string,
  ) {
    super(userMessage);
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
}

export interface PaidStart {
  command: string;
  actor: Actor;
  conversation: ConversationRef;
}

/** The probe before a creation call must not hold a start up when the service is slow to answer it. */
const PROBE_TIMEOUT_MS = 5_000;
/** A burst of starts in one tenant takes the budget lock one after another (bench/results/spend.md). */
const SETTLE_WAIT_MS = 120_000;

export class Spending {
  private readonly now: () => number;
  /** The last period seen of each key (a hash of it): one entry per API key in use. */
  private readonly periods = new Map<string, string>();

  constructor(private readonly deps: SpendingDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Runs `start` (whose creation call is paid) within the budgets, and records what it cost. */
  async around<T>(paid: PaidStart, start: () => Promise<T>): Promise<T> {
    const kind = spendKindOf(paid.command);
    const tenant = tenantOf(paid.actor);
    const key = kind && (await this.deps.apiKey(tenant));
    // Without a key the command is refused before any call; unknown kinds start nothing paid.
    if (!kind || !key) return start();
    const keyId = keyIdOf(key.value);
    const media = this.deps.mediaWith(tenant, key);
    const before = await media.usage.get({ timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined);
    const period = await this.periodFor(keyId, before);
    const subject: BudgetSubject = {
      userId: paid.actor.userId,
      roleIds: paid.actor.roleIds,
      channelId: paid.conversation.channelId,
    };
    const holdId = randomUUID();
    const rules = await this.deps.store.budgets(tenant);
    if (rules.length > 0) {
      const refusal = await this.deps.store.withBook(tenant, period, (book) => {
        const outcome = reserve(pruneHolds(book, this.now()), rules, {
          subject,
          kind,
          command: paid.command,
          holdId,
          now: this.now(),
        });
        return "refusal" in outcome ? { result: outcome.refusal } : { book: outcome.book, result: undefined };
      });
      if (refusal) {
        budgetRefusalsTotal.inc({ scope: refusal.rule.scope });
        throw new BudgetError(refusalMessage(refusal, paid.actor, period), refusal.rule.scope);
      }
    }
    const tap = new StartTap();
    const state = { paid, tenant, kind, keyId, period, holdId, subject, before, tap, media };
    let result: T;
    try {
      result = await runTapped(tap, start);
    } catch (error) {
      tap.close();
      // A start that fails after its creation answer (the job not tracked, its message not posted)
      // was made and paid all the same: it is counted, not given back.
      const charged = tap.jobId !== undefined || tap.usage !== undefined;
      await (charged ? this.record(state) : this.giveBack(tenant, period, holdId)).catch((cause: unknown) =>
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
    await despiteOutage(this.deps.availability, () => this.record(state)).catch((error: unknown) =>
      this.deps.logger.warn(
        { err: error, command: paid.command, jobId: tap.jobId },
        "job spending not recorded",
      ),
    );
    return result;
  }

  /** A look at the account outside any start (the usage command): a probe between charges. */
  async probe(tenant: TenantRef, key: TenantKey, usage: Usage): Promise<string> {
    const keyId = keyIdOf(key.value);
    const period = await this.periodFor(keyId, usage);
    const reading = readingOf(usage, this.now());
    if (reading) await this.deps.store.putProbe(keyId, period, reading);
    this.observe(tenant, usage);
    return period;
  }

  private giveBack(tenant: TenantRef, period: string, holdId: string): Promise<void> {
    return this.deps.store.withBook(tenant, period, (book) => ({
      book: release(book, holdId),
      result: undefined,
    }));
  }

  private async record(state: {
    paid: PaidStart;
    tenant: TenantRef;
    kind: string;
    keyId: string;
    period: string;
    holdId: string;
    subject: BudgetSubject;
    before: Usage | undefined;
    tap: StartTap;
    media: MediaApi;
  }): Promise<void> {
    const { paid, tenant, kind, keyId, holdId, subject, tap } = state;
    if (!tap.jobId && !tap.usage) {
      // A reply without a job (a refusal shown as a card): nothing was made, nothing is held.
      return this.giveBack(tenant, state.period, holdId);
    }
    // Operations whose answer has no usage figures are read right after: approximate when
    // another call on the key lands in between.
    const approximate = tap.usage === undefined;
    const afterUsage =
      tap.usage ?? (await state.media.usage.get({ timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined));
    const after = afterUsage && readingOf(afterUsage, this.now());
    // A charge that landed after the reset date belongs to the new period, where the probe before
    // it (of the old one) says nothing: the reservation goes back to the old period's book.
    const crossed = periodOf(afterUsage);
    const period = crossed && crossed !== state.period ? crossed : state.period;
    const before = period === state.period ? state.before && readingOf(state.before, this.now()) : undefined;
    if (period !== state.period) {
      await this.giveBack(tenant, state.period, holdId);
      await this.periodFor(keyId, afterUsage);
    }
    const jobId = tap.jobId ?? `untracked:${holdId}`;
    const written =
      tap.jobId && tap.serviceJobId
        ? this.deps.store.putJob({
            jobId,
            serviceJobId: tap.serviceJobId,
            tenant,
            userId: paid.actor.userId,
            channelId: paid.conversation.channelId,
            kind,
            command: paid.command,
            keyId,
            period,
            at: this.now(),
            ...(before && { before }),
            ...(after && { after }),
            ...(after && approximate && { approximate }),
          })
        : Promise.resolve();
    const settled = this.deps.store.withBook(
      tenant,
      period,
      (book) => {
        const outcome = settle(book, {
          holdId,
          jobId,
          subject,
          kind,
          command: paid.command,
          ...(before && { before }),
          ...(after && { after }),
        });
        return { book: outcome.book, result: outcome.spent };
      },
      // The job is made and paid: its cost waits out a long burst of starts rather than go unrecorded.
      { waitMs: SETTLE_WAIT_MS },
    );
    // Each is kept even when the other fails: the report reads the record, budgets the book.
    const [record, book] = await Promise.allSettled([written, settled]);
    // Corrections that lower earlier jobs' costs are not taken back from the counter (it only grows).
    if (book.status === "fulfilled" && book.value > 0) {
      creditsSpentTotal.inc({ kind, tenant: tenantKey(tenant) }, book.value);
    }
    if (afterUsage) this.observe(tenant, afterUsage);
    for (const outcome of [record, book]) if (outcome.status === "rejected") throw outcome.reason;
  }

  /** The gauge, and the alerts of a fresh reading, checked in the background: a start does not wait for them. */
  private observe(tenant: TenantRef, usage: Usage): void {
    if (typeof usage.credits_remaining === "number") {
      creditsRemaining.set({ tenant: tenantKey(tenant) }, usage.credits_remaining);
    }
    this.deps.alerts
      .afterReading(tenant, usage)
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "spending alert check failed"));
  }

  /**
   * The reading's period, remembered per key for the starts whose probe did not answer: in the
   * store for the other replicas and restarts, here so that a start reads or writes it only when
   * the period is new to this process.
   */
  private async periodFor(keyId: string, usage: Usage | undefined): Promise<string> {
    const period = periodOf(usage);
    const known = this.periods.get(keyId) ?? (period ? undefined : await this.deps.store.period(keyId));
    if (!period) return known ?? OPEN_PERIOD;
    if (known !== period) {
      await this.deps.store.setPeriod(keyId, period);
      this.periods.set(keyId, period);
    }
    return period;
  }
}

function refusalMessage(refusal: Refusal, actor: Actor, period: string): string {
  const { rule, used, limit } = refusal;
  const place = actor.platform === "discord" ? "server" : "workspace";
  const whose: Record<Refusal["rule"]["scope"], string> = {
    user: rule.id === "*" ? "the budget each person has" : "your budget",
    role:
      actor.platform === "slack" ? "the budget of a user group you are in" : "the budget of a role you have",
    channel: "this channel's budget",
    everyone: `this ${place}'s budget`,
  };
  const unit = budgetUnitText(rule.unit);
  const left = Math.max(0, limit - used);
  const resets =
    period === OPEN_PERIOD
      ? "only when an admin changes it (the service gives no reset date)"
      : `on ${period.slice(0, 10)}`;
  return `This would go over ${whose[rule.scope]}: ${used} of ${limit} ${unit} used this period, ${left} left. It resets ${resets}. An admin of this ${place} can raise it with the budget command. Nothing was started or charged.`;
}
