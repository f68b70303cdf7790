import type { Budget, BudgetBook, JobSpend } from "../../store/spend.js";
import type { Platform } from "../ports.js";
import { attribute } from "./attribution.js";
import { type BudgetSubject, scopeKeyOf } from "./budgets.js";
import type { BudgetView, Reading, SpendReport, SpendRow, SpendShare } from "./model.js";
import { OPEN_PERIOD } from "./readings.js";

/**
 * This period's spending of one tenant, from the records of its key: every job priced by
 * attribution over all the key's readings (other tenants' jobs on a shared key included, so none
 * is counted as this tenant's), then summed by person, kind and day.
 */

export interface ReportInput {
  period: string;
  /** The tenant's jobs of the period. */
  jobs: readonly JobSpend[];
  /** Every job and probe reading of the tenant's key in the period. */
  key: { jobs: readonly JobSpend[]; probes: readonly Omit<Reading, "jobId">[] };
  viewer: BudgetSubject & { isAdmin: boolean; platform: Platform };
  rules: readonly Budget[];
  book: BudgetBook;
  /** The state each job is in now, by our job id (export only). */
  status?: (jobId: string) => string;
}

function readingsOf(key: ReportInput["key"]): Reading[] {
  const readings: Reading[] = [...key.probes];
  for (const job of key.jobs) {
    if (job.before) readings.push(job.before);
    if (job.after) readings.push({ ...job.after, jobId: job.jobId });
  }
  return readings;
}

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

function shares(rows: readonly SpendRow[], keyOf: (row: SpendRow) => string): SpendShare[] {
  const by = new Map<string, SpendShare>();
  for (const row of rows) {
    const key = keyOf(row);
    const share = by.get(key) ?? { key, credits: 0, jobs: 0 };
    share.credits += row.credits ?? 0;
    share.jobs += 1;
    by.set(key, share);
  }
  return [...by.values()];
}

const byCredits = (a: SpendShare, b: SpendShare) =>
  b.credits - a.credits || b.jobs - a.jobs || a.key.localeCompare(b.key);

export function spendRows(input: ReportInput): SpendRow[] {
  const charges = attribute(readingsOf(input.key));
  return input.jobs.map((job) => ({
    at: new Date(job.at).toISOString(),
    userId: job.userId,
    channelId: job.channelId,
    kind: job.kind,
    command: job.command,
    credits: charges.jobs.get(job.jobId)?.credits ?? null,
    jobId: job.jobId,
    serviceJobId: job.serviceJobId,
    status: input.status?.(job.jobId) ?? "unknown",
  }));
}

export function spendReport(input: ReportInput): SpendReport {
  const everyone = input.viewer.isAdmin;
  const all = spendRows(input);
  const rows = everyone ? all : all.filter((row) => row.userId === input.viewer.userId);
  const outside = everyone ? attribute(readingsOf(input.key)).outside.credits : 0;
  const days = shares(rows, (row) => row.at.slice(0, 10)).sort((a, b) => a.key.localeCompare(b.key));
  const daysByKind = shares(rows, (row) => `${row.at.slice(0, 10)} ${row.kind}`).map((share) => {
    const [day, kind] = share.key.split(" ") as [string, string];
    return { day, kind, credits: share.credits };
  });
  return {
    ...(input.period !== OPEN_PERIOD && { resetsOn: input.period.slice(0, 10) }),
    ...(rows.length > 0 && { since: dayOf(Date.parse(rows[0]!.at)) }),
    scope: everyone ? "everyone" : "own",
    viewerId: input.viewer.userId,
    totals: {
      credits: rows.reduce((sum, row) => sum + (row.credits ?? 0), 0),
      jobs: rows.length,
      outside,
    },
    people: shares(rows, (row) => row.userId).sort(byCredits),
    kinds: shares(rows, (row) => row.kind).sort(byCredits),
    days,
    daysByKind,
    budgets: budgetViews(input),
  };
}

function labelOf(rule: Budget, platform: Platform): string {
  switch (rule.scope) {
    case "user":
      return rule.id === "*" ? "Each person" : `Person ${rule.id}`;
    case "role":
      return platform === "slack" ? `User group ${rule.id}` : `Role ${rule.id}`;
    case "channel":
      return `Channel ${rule.id}`;
    case "everyone":
      return "Everyone together";
  }
}

/**
 * Members see the budgets that bind them, with their own standing; admins see every budget, an
 * each-person one at the standing of whoever is closest to it.
 */
export function budgetViews(input: Pick<ReportInput, "book" | "viewer" | "rules">): BudgetView[] {
  const { book, viewer } = input;
  const usedIn = (scope: string, unit: string) => book.used[scope]?.[unit] ?? 0;
  const views: BudgetView[] = [];
  for (const rule of input.rules) {
    const unit = rule.unit === "credits" ? "credits" : { jobs: rule.unit };
    const binds =
      (rule.scope === "user" && (rule.id === viewer.userId || rule.id === "*")) ||
      (rule.scope === "role" && viewer.roleIds.includes(rule.id)) ||
      (rule.scope === "channel" && rule.id === viewer.channelId) ||
      rule.scope === "everyone";
    if (!viewer.isAdmin && !binds) continue;
    if (rule.scope === "user" && rule.id === "*") {
      const used = viewer.isAdmin
        ? Math.max(
            0,
            ...Object.keys(book.used)
              .filter((scope) => scope.startsWith("user:"))
              .map((scope) => usedIn(scope, rule.unit)),
          )
        : usedIn(`user:${viewer.userId}`, rule.unit);
      views.push({
        label: viewer.isAdmin ? "Each person (highest shown)" : "Your budget",
        unit,
        used,
        limit: rule.limit,
      });
      continue;
    }
    const label = !viewer.isAdmin && rule.scope === "user" ? "Your budget" : labelOf(rule, viewer.platform);
    views.push({ label, unit, used: usedIn(scopeKeyOf(rule, viewer), rule.unit), limit: rule.limit });
  }
  return views;
}
