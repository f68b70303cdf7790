import { type Card, card, type Line } from "../base/cards.js";
import { plural } from "./text.js";

/**
 * The cards of the spending alerts an admin's alert channel gets. Each says how the server or
 * workspace stands on jobs at that moment, running apart from waiting: a running job may still
 * spend, a waiting one spends only if it starts (and is refused at its turn while the credits
 * are out), so the two call for different decisions (let them run, or cancel the waiting).
 */

/** The tenant's jobs when the alert is made: holding a running place, and waiting their turn. */
export interface JobsNow {
  running: number;
  waiting: number;
}

/** "Now: 3 jobs running; 7 waiting their turn, …"; nothing when no job runs or waits. */
export function jobsNowLine(now: JobsNow | undefined, outOfCredits = false): string | undefined {
  if (!now || (now.running === 0 && now.waiting === 0)) return undefined;
  const running = `${plural(now.running, "job")} running`;
  if (now.waiting === 0) return `Now: ${running}.`;
  const waiting = outOfCredits
    ? "each is refused at its turn, nothing charged, until credits come back"
    : "they are charged only once they start";
  return `Now: ${running}; ${plural(now.waiting, "job")} waiting their turn (${waiting}). An admin can cancel waiting jobs from the jobs command with all.`;
}

/** A threshold of the credits or of a quota crossed: `line` says which. */
export function spendingAlertCard(line: string, resets: string | undefined, now?: JobsNow): Card {
  return card("Spending alert", "warning", {
    lines: [
      line,
      resets ? `The period resets on ${resets}.` : "",
      jobsNowLine(now) ?? "",
      "See who spent what with the usage command; an admin can set budgets with the budget command.",
    ].filter(Boolean),
  });
}

/** A creation the service refused for lack of credits or quota. */
export function outOfCreditsCard(line: Line, now?: JobsNow): Card {
  const jobs = jobsNowLine(now, true);
  return card("Out of credits", "error", { lines: jobs ? [line, jobs] : [line] });
}
