import { type Card, card } from "../base/cards.js";
import { budgetUnitText } from "../spend/data/kinds.js";
import type { BudgetView } from "../spend/data/model.js";

const unitText = (view: BudgetView) => budgetUnitText(view.unit === "credits" ? "credits" : view.unit.jobs);

/** One line per budget: where it stands this period, and what is left. */
export function budgetLine(view: BudgetView): string {
  const left = Math.max(0, view.limit - view.used);
  return `${view.used} of ${view.limit} ${unitText(view)} (${left} left)`;
}

export function budgetsCard(title: string, views: readonly BudgetView[], lines: string[]): Card {
  return card(title, "info", {
    lines,
    fields: views.map((view) => ({ name: view.label, value: budgetLine(view), inline: true })),
    footer: "Budgets count this billing period; they start again when the service's usage resets.",
  });
}
