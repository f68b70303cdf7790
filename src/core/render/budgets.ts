import { type Card, card } from "../base/cards.js";
import { english, type Translator } from "../i18n/translator.js";
import type { BudgetHolder, BudgetView } from "../spend/data/model.js";

/** "Role @Designers", "Salon #général", "Everyone together": whom a budget binds, in `t`'s words. */
export function holderText(holder: BudgetHolder, t: Translator = english()): string {
  return t.text("budget.holder", { of: holder.of, name: holder.name ?? "", place: holder.place });
}

/** One line per budget: where it stands this period, and what is left. */
export function budgetLine(view: BudgetView, t: Translator = english()): string {
  const unit = view.unit === "credits" ? "credits" : view.unit.jobs;
  return t.text("budget.line", {
    used: view.used,
    limit: view.limit,
    left: Math.max(0, view.limit - view.used),
    unit,
    words: unit.replaceAll("_", " "),
  });
}

/** "Your budget: 120 of 500 credits (380 left)". */
export function budgetText(view: BudgetView, t: Translator = english()): string {
  const label = view.holder ? holderText(view.holder, t) : view.label;
  return t.text("spend.labelled", { label, value: budgetLine(view, t) });
}

/** The budget command's answers: the budgets as they stand, after a change or when asked. */
export type BudgetsShown = "saved" | "removed" | "listed";

export function budgetsCard(
  shown: BudgetsShown,
  views: readonly BudgetView[],
  t: Translator = english(),
): Card {
  return card(t.text("budget.title", { change: shown }), "info", {
    lines: shown === "listed" && views.length === 0 ? [t.text("budget.none")] : [],
    fields: views.map((view) => ({
      name: view.holder ? holderText(view.holder, t) : view.label,
      value: budgetLine(view, t),
      inline: true,
    })),
    footer: t.text("budget.footer"),
    locale: t.locale,
  });
}
