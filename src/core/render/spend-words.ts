import type { Translator } from "../i18n/translator.js";
import { day } from "./text.js";

/**
 * The figures and days of the spending cards (usage, budgets, alerts, the chart) as their reader
 * writes them, through `Intl` in the translator's locale.
 */

/**
 * A figure as the service gave it: a number in the reader's digits and decimal mark, without
 * grouping (English "1000", German "12,5", as the budget refusal writes them); a word ("unlimited")
 * as it came.
 */
export function figure(t: Translator, value: number | string): string {
  if (typeof value === "string") return value;
  return new Intl.NumberFormat(t.locale, { useGrouping: false, maximumFractionDigits: 2 }).format(value);
}

/**
 * A day ("2026-12-01T00:00:00Z") as the reader writes it in figures: "01.12.2026", "01/12/2026",
 * "2026/12/01" (short enough for a chart's title). English keeps the ISO day the bot always
 * wrote: it is read on both sides of the Atlantic, whose orders of day and month differ, and ISO
 * is neither's. Unparsable text as given.
 */
export function dayIn(t: Translator, iso: string | undefined): string | undefined {
  const shown = day(iso);
  if (!shown || t.locale === "en" || !/^\d{4}-\d{2}-\d{2}$/.test(shown)) return shown;
  return new Intl.DateTimeFormat(t.locale, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    timeZone: "UTC",
  }).format(Date.parse(shown));
}
