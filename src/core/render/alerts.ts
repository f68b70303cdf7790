import { type Card, card, type Line } from "../base/cards.js";
import { command } from "../i18n/msg.js";
import { english, type Translator } from "../i18n/translator.js";
import { dayIn } from "./spend-words.js";

/**
 * The cards of the spending alerts an admin's alert channel gets, in the language of the server or
 * workspace (its admins' `/setup language`, else English). Each says how the server or workspace
 * stands on jobs at that moment, running apart from waiting: a running job may still spend, a
 * waiting one spends only if it starts (and is refused at its turn while the credits are out), so
 * the two call for different decisions (let them run, or cancel the waiting).
 */

/** The tenant's jobs when the alert is made: holding a running place, and waiting their turn. */
export interface JobsNow {
  running: number;
  waiting: number;
}

/** "Now: 3 jobs running; 7 waiting their turn, …"; nothing when no job runs or waits. */
export function jobsNowLine(
  now: JobsNow | undefined,
  outOfCredits = false,
  t: Translator = english(),
): string | undefined {
  if (!now || (now.running === 0 && now.waiting === 0)) return undefined;
  if (now.waiting === 0) return t.text("alert.now", { running: now.running });
  return t.text("alert.now_waiting", {
    running: now.running,
    waiting: now.waiting,
    out: String(outOfCredits),
    jobs: command("jobs"),
    all: "all",
  });
}

/** A threshold of the credits or of a quota crossed: `line` says which (in `t`'s language). */
export function spendingAlertCard(
  line: string,
  resets: string | undefined,
  now?: JobsNow,
  t: Translator = english(),
): Card {
  const day = dayIn(t, resets);
  return card(t.text("alert.title", { kind: "low" }), "warning", {
    lines: [
      line,
      day ? t.text("alert.resets", { day }) : "",
      jobsNowLine(now, false, t) ?? "",
      t.text("alert.see", { usage: command("usage"), budget: command("budget") }),
    ].filter(Boolean),
    locale: t.locale,
  });
}

/** A creation the service refused for lack of credits or quota. */
export function outOfCreditsCard(line: Line, now?: JobsNow, t: Translator = english()): Card {
  const jobs = jobsNowLine(now, true, t);
  return card(t.text("alert.title", { kind: "out" }), "error", {
    lines: jobs ? [line, jobs] : [line],
    locale: t.locale,
  });
}
