import type { Budget, JobSpend } from "../../store/index.js";
import type { Platform } from "../base/ports.js";
import { holderText } from "../render/budgets.js";
import { attribute } from "./attribution.js";
import { type BudgetSubject, fieldOf, scopeKeyOf } from "./budgets.js";
import type { BudgetHolder, BudgetView, Reading, SpendReport, SpendRow, SpendShare } from "./data/model.js";
import type { Named } from "./names.js";
import { OPEN_PERIOD } from "./readings.js";

/**
 * This period's spending of one tenant, from the sums the store keeps as jobs are made
 * (budgets.ts `jobFields`): the report reads a few hundred sums whatever the number of jobs, so
 * /usage on day 30 of a busy period answers as fast as on day 1. The sums are exactly what
 * attributing every reading of the key at once gives (store/spend-books.ts); the export does that
 * attribution itself, job by job.
 */

export type Tallies = Readonly<Record<string, number>>;

export interface ReportInput {
  period: string;
  viewer: BudgetSubject & { isAdmin: boolean; platform: Platform };
  rules: readonly Budget[];
  /** The tenant's sums of the period. */
  tallies: Tallies;
  /** The viewer's own sums of the period (by kind and day). */
  own: Tallies;
  /** Credits spent on the key outside the bot this period. */
  outside: number;
  named: Named;
}

/** Sums are added a step at a time: shown to a hundredth, without a float's dust. */
const clean = (value: number) => Math.round(value * 1e6) / 1e6;

/** The shares of every scope starting with `prefix`, by the rest of its name. */
function sharesOf(tallies: Tallies, prefix: string): SpendShare[] {
  const by = new Map<string, SpendShare>();
  for (const [field, amount] of Object.entries(tallies)) {
    const bar = field.lastIndexOf("|");
    const scope = field.slice(0, bar);
    const unit = field.slice(bar + 1);
    if (!scope.startsWith(prefix) || (unit !== "credits" && unit !== "jobs")) continue;
    const key = scope.slice(prefix.length);
    const share = by.get(key) ?? { key, credits: 0, jobs: 0 };
    share[unit] = clean(amount);
    by.set(key, share);
  }
  return [...by.values()].filter((share) => share.jobs > 0 || share.credits !== 0);
}

const byCredits = (a: SpendShare, b: SpendShare) =>
  b.credits - a.credits || b.jobs - a.jobs || a.key.localeCompare(b.key);
const byKey = (a: SpendShare, b: SpendShare) => a.key.localeCompare(b.key);

export function spendReport(input: ReportInput): SpendReport {
  const everyone = input.viewer.isAdmin;
  const { tallies } = input;
  const mine = `user:${input.viewer.userId}`;
  const breakdown = everyone ? tallies : input.own;
  const totals = {
    credits: clean(tallies[fieldOf(everyone ? "everyone" : mine, "credits")] ?? 0),
    jobs: tallies[fieldOf(everyone ? "everyone" : mine, "jobs")] ?? 0,
    outside: everyone ? clean(input.outside) : 0,
  };
  const people = everyone
    ? sharesOf(tallies, "user:").sort(byCredits)
    : totals.jobs > 0
      ? [{ key: input.viewer.userId, credits: totals.credits, jobs: totals.jobs }]
      : [];
  const days = sharesOf(breakdown, "day:")
    .filter((share) => !share.key.includes("/"))
    .sort(byKey);
  const daysByKind = sharesOf(breakdown, "day:")
    .filter((share) => share.key.includes("/kind:"))
    .map((share) => {
      const [day, kind] = share.key.split("/kind:") as [string, string];
      return { day, kind, credits: share.credits };
    })
    .sort((a, b) => a.day.localeCompare(b.day) || a.kind.localeCompare(b.kind));
  return {
    ...(input.period !== OPEN_PERIOD && { resetsOn: input.period.slice(0, 10) }),
    ...(days[0] && { since: days[0].key }),
    scope: everyone ? "everyone" : "own",
    viewerId: input.viewer.userId,
    totals,
    people,
    kinds: sharesOf(breakdown, "kind:").sort(byCredits),
    days,
    daysByKind,
    budgets: budgetViews(input),
  };
}

/** The sums a member's report reads: their own totals, and the standing of the budgets they see. */
export function memberFields(rules: readonly Budget[], viewer: BudgetSubject): string[] {
  const own = [fieldOf(`user:${viewer.userId}`, "credits"), fieldOf(`user:${viewer.userId}`, "jobs")];
  return [...new Set([...own, ...rules.map((rule) => fieldOf(scopeKeyOf(rule, viewer), rule.unit))])];
}

/** "Role @Designers", "User group @designers", "Channel #marketing": the platform's names, else ids. */
function holderOf(rule: Budget, platform: Platform, named: Named): BudgetHolder {
  const place = platform;
  switch (rule.scope) {
    case "user":
      return rule.id === "*"
        ? { of: "each", place }
        : { of: "person", name: named({ kind: "user", id: rule.id }) ?? rule.id, place };
    case "role":
      return {
        of: platform === "slack" ? "group" : "role",
        name: named({ kind: "role", id: rule.id }) ?? rule.id,
        place,
      };
    case "channel":
      return { of: "channel", name: named({ kind: "channel", id: rule.id }) ?? rule.id, place };
    case "everyone":
      return { of: "everyone", place };
  }
}

/** The people, roles and channels the budgets name, for `Names.of`. */
export function budgetRefs(rules: readonly Budget[]) {
  return rules.flatMap((rule) =>
    rule.scope === "everyone" || rule.id === "*" ? [] : [{ kind: rule.scope, id: rule.id }],
  );
}

/**
 * Members see the budgets that bind them, with their own standing; admins see every budget, an
 * each-person one at the standing of whoever is closest to it.
 */
export function budgetViews(
  input: Pick<ReportInput, "tallies" | "viewer" | "rules" | "named">,
): BudgetView[] {
  const { tallies, viewer, named } = input;
  const usedIn = (scope: string, unit: string) => clean(tallies[fieldOf(scope, unit)] ?? 0);
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
        ? Math.max(0, ...sharesOf(tallies, "user:").map((share) => usedIn(`user:${share.key}`, rule.unit)))
        : usedIn(`user:${viewer.userId}`, rule.unit);
      const holder: BudgetHolder = { of: viewer.isAdmin ? "each_highest" : "you", place: viewer.platform };
      views.push({ label: holderText(holder), holder, unit, used, limit: rule.limit });
      continue;
    }
    const holder: BudgetHolder =
      !viewer.isAdmin && rule.scope === "user"
        ? { of: "you", place: viewer.platform }
        : holderOf(rule, viewer.platform, named);
    views.push({
      label: holderText(holder),
      holder,
      unit,
      used: usedIn(scopeKeyOf(rule, viewer), rule.unit),
      limit: rule.limit,
    });
  }
  return views;
}

// ---------------------------------------------------------------------------------------------
// The export: every job of the period, priced by attribution over all the key's readings.

export interface ExportInput {
  /** The tenant's jobs of the period. */
  jobs: readonly JobSpend[];
  /** Every job and probe reading of the tenant's key in the period. */
  key: { jobs: readonly JobSpend[]; probes: readonly Omit<Reading, "jobId">[] };
  /** The state each job is in now, by our job id. */
  status: (jobId: string) => string;
  named: Named;
}

function readingsOf(key: ExportInput["key"]): Reading[] {
  const readings: Reading[] = [...key.probes];
  for (const job of key.jobs) {
    if (job.before) readings.push(job.before);
    if (job.after) readings.push({ ...job.after, jobId: job.jobId });
  }
  return readings;
}

/** The people and channels the export names, for `Names.of`. */
export function rowRefs(jobs: readonly JobSpend[]) {
  const users = new Set(jobs.map((job) => job.userId));
  const channels = new Set(jobs.filter((job) => job.channelId !== job.userId).map((job) => job.channelId));
  return [
    ...[...users].map((id) => ({ kind: "user" as const, id })),
    ...[...channels].map((id) => ({ kind: "channel" as const, id })),
  ];
}

/** What the export shows for where a job was asked: a workflow step has its person for a channel. */
export const WORKFLOW_PLACE = "(a workflow step)";

export function spendRows(input: ExportInput): SpendRow[] {
  const charges = attribute(readingsOf(input.key));
  return input.jobs.map((job) => ({
    at: new Date(job.at).toISOString(),
    userId: job.userId,
    person: input.named({ kind: "user", id: job.userId }) ?? "",
    channelId: job.channelId,
    channel:
      job.channelId === job.userId
        ? WORKFLOW_PLACE
        : (input.named({ kind: "channel", id: job.channelId }) ?? ""),
    kind: job.kind,
    command: job.command,
    credits: charges.jobs.get(job.jobId)?.credits ?? null,
    jobId: job.jobId,
    serviceJobId: job.serviceJobId,
    status: input.status(job.jobId),
  }));
}
