import type { Budget, BudgetBook, BudgetHold } from "../../store/spend.js";
import { attribute, byValue } from "./attribution.js";
import type { Reading } from "./model.js";

/**
 * Budgets as pure steps on a tenant's book of one period: which budgets apply to a start, the
 * check and reservation before its creation call, and the real cost that replaces the reservation.
 * The store runs each step under the tenant's budget lock (store/spend.ts `withBook`), so replicas
 * sharing one store check and reserve as one.
 */

/** Who starts, where: what budgets can apply to. */
export interface BudgetSubject {
  userId: string;
  /** Discord roles, Slack user groups. */
  roleIds: readonly string[];
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

export function scopeKeyOf(rule: Budget, subject: BudgetSubject): string {
  if (rule.scope === "everyone") return "everyone";
  if (rule.scope === "user" && rule.id === "*") return `user:${subject.userId}`;
  return `${rule.scope}:${rule.id}`;
}

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

/** A start reserves the last real cost of its command; never nothing, or a credit budget would hold no one. */
const estimateOf = (book: BudgetBook, command: string) => Math.max(1, book.lastCost[command] ?? 1);

const amountOf = (rule: Budget, estimate: number) => (rule.unit === "credits" ? estimate : 1);

const sum = (table: BudgetBook["used"], scope: string, unit: string) => table[scope]?.[unit] ?? 0;

function heldIn(book: BudgetBook, scope: string, unit: string): number {
  let held = 0;
  for (const hold of Object.values(book.held)) held += hold.amounts[scope]?.[unit] ?? 0;
  return held;
}

/** A budget's standing in the book: spent so far and reserved by starts under way. */
export function standing(book: BudgetBook, rule: Budget, subject: BudgetSubject) {
  const scope = scopeKeyOf(rule, subject);
  return { used: sum(book.used, scope, rule.unit), held: heldIn(book, scope, rule.unit) };
}

export interface Refusal {
  rule: Budget;
  used: number;
  limit: number;
}

/**
 * Reserves what a start may cost in every budget that binds it, or names the first budget it
 * would break. A credit budget reserves the command's last known cost (1 before it is known), so
 * it can be overshot by one job whose price rose; a job budget never is.
 */
export function reserve(
  book: BudgetBook,
  rules: readonly Budget[],
  start: { subject: BudgetSubject; kind: string; command: string; holdId: string; now: number },
): { book: BudgetBook } | { refusal: Refusal } {
  const estimate = estimateOf(book, start.command);
  const amounts: BudgetHold["amounts"] = {};
  for (const rule of applicable(rules, start.subject, start.kind)) {
    const scope = scopeKeyOf(rule, start.subject);
    const amount = amountOf(rule, estimate);
    const { used, held } = standing(book, rule, start.subject);
    // A budget already used up refuses even a start whose cost is unknown.
    if (used + held + amount > rule.limit || used + held >= rule.limit) {
      return { refusal: { rule, used: used + held, limit: rule.limit } };
    }
    amounts[scope] = { ...amounts[scope], [rule.unit]: amount };
  }
  const held = { ...book.held, [start.holdId]: { amounts, command: start.command, at: start.now } };
  return { book: { ...book, held } };
}

/** A start refused or failed before anything was charged: its reservation is given back. */
export function release(book: BudgetBook, holdId: string): BudgetBook {
  if (!(holdId in book.held)) return book;
  const { [holdId]: _gone, ...held } = book.held;
  return { ...book, held };
}

/** How many readings of the period the book keeps to price new jobs among their neighbours. */
const RECENT = 100;

/** Reservations of starts whose process died: after this they no longer hold anyone back. */
export const HOLD_TTL_MS = 10 * 60_000;

export function pruneHolds(book: BudgetBook, now: number): BudgetBook {
  const held = Object.fromEntries(
    Object.entries(book.held).filter(([, hold]) => now - hold.at < HOLD_TTL_MS),
  );
  return Object.keys(held).length === Object.keys(book.held).length ? book : { ...book, held };
}

function add(used: BudgetBook["used"], scopes: readonly string[], unit: string, amount: number) {
  if (amount === 0) return;
  for (const scope of scopes) used[scope] = { ...used[scope], [unit]: (used[scope]?.[unit] ?? 0) + amount };
}

export interface Settlement {
  holdId: string;
  jobId: string;
  subject: BudgetSubject;
  kind: string;
  command: string;
  /** The probe before the creation call and the reading after its charge, when they answered. */
  before?: Omit<Reading, "jobId">;
  after?: Omit<Reading, "jobId">;
}

/**
 * The job's real cost replaces its reservation. The cost is its reading's distance to the reading
 * below it among the period's recent ones (attribution.ts), recomputed as readings of concurrent
 * starts arrive in any order, so a job is never charged a neighbour's cost for long. A job that
 * cannot be measured there (no reading after its charge, or one with nothing kept below it) counts
 * the reserved estimate until a reading below it arrives. `spent` is how much the tenant's total
 * moved, corrections of earlier jobs included.
 */
export function settle(
  book: BudgetBook,
  settlement: Settlement,
): { book: BudgetBook; credits: number | undefined; spent: number } {
  const { jobId, subject, kind, command } = settlement;
  const scopes = scopesOf(subject);
  const estimate = estimateOf(book, command);
  const used = { ...book.used };
  add(used, scopes, "jobs", 1);
  add(used, scopes, kind, 1);
  const recent = [...book.recent];
  if (settlement.before) recent.push({ ...settlement.before });
  if (settlement.after) recent.push({ ...settlement.after, jobId, scopes, charged: 0 });
  recent.sort(byValue);
  const kept = recent.slice(-RECENT);
  const at = kept.findIndex((entry) => entry.jobId === jobId);
  let spent = 0;
  if (at <= 0) {
    add(used, scopes, "credits", estimate);
    spent += estimate;
    if (at === 0) kept[0] = { ...kept[0]!, charged: estimate };
  }
  const charges = attribute(kept);
  // The lowest reading kept has nothing below it to be measured against: its charge stands as it was.
  const next = kept.map((entry, index) => {
    if (index === 0 || entry.jobId === undefined || !entry.scopes) return entry;
    const credits = charges.jobs.get(entry.jobId)?.credits ?? 0;
    add(used, entry.scopes, "credits", credits - (entry.charged ?? 0));
    spent += credits - (entry.charged ?? 0);
    return { ...entry, charged: credits };
  });
  const credits = at > 0 ? charges.jobs.get(jobId)?.credits : undefined;
  const lastCost = credits === undefined ? book.lastCost : { ...book.lastCost, [command]: credits };
  return { book: { ...release(book, settlement.holdId), used, recent: next, lastCost }, credits, spent };
}
