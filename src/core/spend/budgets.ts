import type { Budget, Field, HoldItem } from "../../store/index.js";

/**
 * Budgets as pure rules over the sums of a tenant's period: which budgets apply to a start, what
 * its reservation checks (the store reserves it in one atomic step with the check, so replicas
 * sharing one store check as one), and which sums a job adds to once it is made.
 *
 * The sums are fields of the tenant's book: "<scope>|<unit>", the scope being who or what is
 * counted ("user:U1", "role:R1", "channel:C1", "everyone", and for reports "kind:image",
 * "day:2026-11-02", "day:2026-11-02/kind:image"), the unit "credits", "jobs" or a kind (jobs of it).
 */

/** Who starts, where: what budgets can apply to. */
export interface BudgetSubject {
  userId: string;
  /** Discord roles, Slack user groups. */
  roleIds: readonly string[];
  /** Where the job was asked (spend/origin.ts), never the private place its result went to. */
  channelId: string;
}

/** Every scope a start is counted in, whether or not a budget names it yet: a budget set mid-period sees the period. */
export function scopesOf(subject: BudgetSubject): string[] {
  return [
    `user:${subject.userId}`,
    ...subject.roleIds.map((id) => `role:${id}`),
    `channel:${subject.channelId}`,
    "everyone",
  ];
}

export function scopeKeyOf(rule: Budget, subject: Pick<BudgetSubject, "userId">): string {
  if (rule.scope === "everyone") return "everyone";
  if (rule.scope === "user" && rule.id === "*") return `user:${subject.userId}`;
  return `${rule.scope}:${rule.id}`;
}

export const fieldOf = (scope: string, unit: string) => `${scope}|${unit}`;

/** The budgets that bind `subject` for `kind`; a person's own budget replaces the each-person one. */
export function applicable(rules: readonly Budget[], subject: BudgetSubject, kind: string): Budget[] {
  const own = new Set(
    rules.filter((rule) => rule.scope === "user" && rule.id === subject.userId).map((rule) => rule.unit),
  );
  const binds: Record<Budget["scope"], (rule: Budget) => boolean> = {
    user: (rule) => rule.id === subject.userId || (rule.id === "*" && !own.has(rule.unit)),
    role: (rule) => subject.roleIds.includes(rule.id),
    channel: (rule) => rule.id === subject.channelId,
    everyone: () => true,
  };
  return rules.filter(
    (rule) =>
      (rule.unit === "credits" || rule.unit === "jobs" || rule.unit === kind) && binds[rule.scope](rule),
  );
}

/**
 * What a start reserves in each budget that binds it: one job, or for a credit budget the last
 * real cost of its command (1 before it is known; the store reads it in the same step). So a
 * credit budget can be overshot by one job whose price rose; a job budget never is. A budget
 * already used up refuses even a start whose cost is unknown.
 */
export function holdItems(binding: readonly Budget[], subject: BudgetSubject): HoldItem[] {
  return binding.map((rule) => ({
    field: fieldOf(scopeKeyOf(rule, subject), rule.unit),
    credits: rule.unit === "credits",
    limit: rule.limit,
  }));
}

/** Reservations of starts whose process died: after this they no longer hold anyone back. */
export const HOLD_TTL_MS = 10 * 60_000;

/** The UTC day of an epoch ms time: spending's days. */
export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * The sums a job of `kind` started on `day` adds to: one job in every scope it is counted in (and
 * one job of its kind for the budgets' scopes), and its credits in the same places once measured.
 * The person's own book holds their spending by kind and day, for their own view.
 */
export function jobFields(
  subject: BudgetSubject,
  kind: string,
  day: string,
): { counts: Field[]; charged: Field[] } {
  const budgets = scopesOf(subject);
  const breakdown = [`kind:${kind}`, `day:${day}`, `day:${day}/kind:${kind}`];
  const counts: Field[] = [
    ...budgets.flatMap((scope) => [fieldOf(scope, "jobs"), fieldOf(scope, kind)]),
    ...breakdown.map((scope) => fieldOf(scope, "jobs")),
  ].map((field) => ({ field }));
  const person = (field: string): Field => ({ person: true, field });
  return {
    counts: [...counts, ...breakdown.map((scope) => person(fieldOf(scope, "jobs")))],
    charged: [
      ...[...budgets, ...breakdown].map((scope) => ({ field: fieldOf(scope, "credits") })),
      ...breakdown.map((scope) => person(fieldOf(scope, "credits"))),
    ],
  };
}
