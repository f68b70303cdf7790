import { Readable } from "node:stream";
import type { TopLevelSpec } from "vega-lite";
import type { OutgoingFile } from "../base/ports.js";
import { english, type Translator } from "../i18n/translator.js";
import type { SpendReport } from "../spend/data/model.js";
import { dayIn } from "./spend-words.js";
import { kindName } from "./spending.js";

/** The whole picture, axes and legend included: what a Discord embed or Slack image shows well. */
export const CHART_WIDTH = 640;
export const CHART_HEIGHT = 360;

/**
 * "2026-03-04" -> "Mar 4", "4. März", "4 mars", "3月4日": a period is at most a few weeks, so
 * month and day are unique. Anything else as given.
 */
export function dayLabel(isoDay: string, t: Translator = english()): string {
  const at = /^\d{4}-\d{2}-\d{2}/.test(isoDay) ? Date.parse(isoDay.slice(0, 10)) : Number.NaN;
  if (!Number.isFinite(at)) return isoDay;
  return new Intl.DateTimeFormat(t.locale, { month: "short", day: "numeric", timeZone: "UTC" }).format(at);
}

/**
 * The reader's decimal mark and digit groups ("1.500" in German) for the axis's figures, from
 * Intl: vega writes its own, English, unless told.
 */
function numberLocale(t: Translator) {
  const parts = new Intl.NumberFormat(t.locale).formatToParts(1234567.5);
  const part = (type: string, otherwise: string) => parts.find((p) => p.type === type)?.value ?? otherwise;
  return {
    decimal: part("decimal", "."),
    thousands: part("group", ","),
    grouping: [3],
    currency: ["", ""] as [string, string],
  };
}

/** Every day of the report in order, days without spending too, so gaps show as gaps. */
function daysOf(report: SpendReport): string[] {
  const all = new Set([...report.days.map((d) => d.key), ...report.daysByKind.map((d) => d.day)]);
  return [...all].sort();
}

function title(report: SpendReport, days: readonly string[], t: Translator) {
  const own = String(report.scope === "own");
  const first = days[0]!;
  const last = days.at(-1)!;
  const span = first === last ? "day" : "days";
  const resets = dayIn(t, report.resetsOn);
  return {
    text: t.text("spend.chart.title", { own, span, first: dayIn(t, first)!, last: dayIn(t, last)! }),
    ...(resets && { subtitle: t.text("spend.chart.resets", { day: resets }) }),
  };
}

/** The vega-lite spec of the chart, its words in `t`'s language; undefined when no day has spending to draw. */
const LEGEND_FONT = 12;
/** Vega's estimate of a character's width without a canvas, in ems: right for Latin letters. */
const ESTIMATED_EM = 0.8;

/**
 * The room a legend column needs beyond vega's estimate: it lays labels out at 0.8 em a
 * character, and the picture draws Japanese (and other wide scripts) at a full em, so "モックアップ
 * 動画" ran into the next label. Vega's default column padding otherwise.
 */
function widePadding(labels: readonly string[]): number {
  const wide = (label: string) =>
    [...label].filter((c) => /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u.test(c)).length;
  const extra = Math.max(
    0,
    ...labels.map((label) => Math.ceil(wide(label) * (1 - ESTIMATED_EM) * LEGEND_FONT)),
  );
  return 10 + extra;
}

export function spendChartSpec(report: SpendReport, t: Translator = english()): TopLevelSpec | undefined {
  const bars = report.daysByKind.filter((d) => d.credits > 0);
  if (bars.length === 0) return undefined;
  const days = daysOf(report);
  const labels = days.map((d) => dayLabel(d, t));
  const name = (kind: string) => kindName(kind, t);
  // Legend and stack follow the report's kinds (highest spending first), so colours read in order.
  const kinds = [...new Set([...report.kinds.map((k) => k.key), ...bars.map((b) => b.kind)])].map(name);
  return {
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    autosize: { type: "fit", contains: "padding" },
    padding: 12,
    background: "white",
    title: title(report, days, t),
    data: { values: bars.map((b) => ({ day: dayLabel(b.day, t), kind: name(b.kind), credits: b.credits })) },
    mark: { type: "bar" },
    encoding: {
      x: {
        field: "day",
        type: "ordinal",
        title: null,
        scale: { domain: labels },
        // A month of days side by side only fits slanted.
        axis: { labelAngle: labels.length > 10 ? -45 : 0, labelOverlap: false },
      },
      y: {
        field: "credits",
        type: "quantitative",
        aggregate: "sum",
        stack: "zero",
        title: t.text("spend.chart.axis"),
        axis: { tickMinStep: 1 },
      },
      color: {
        field: "kind",
        type: "nominal",
        title: null,
        scale: { domain: kinds },
        legend: { orient: "bottom", direction: "horizontal", columns: 4, columnPadding: widePadding(kinds) },
      },
    },
    config: {
      locale: { number: numberLocale(t) },
      title: { fontSize: 16, subtitleFontSize: 12, anchor: "start" },
      axis: { labelFontSize: 11, titleFontSize: 12 },
      legend: { labelFontSize: LEGEND_FONT, labelLimit: 200 },
      view: { stroke: null },
    },
  };
}

/** The chart as SVG text, drawn by vega without a canvas (its "none" renderer only builds the scene). */
export async function spendChartSvg(
  report: SpendReport,
  t: Translator = english(),
): Promise<string | undefined> {
  const spec = spendChartSpec(report, t);
  if (!spec) return undefined;
  // Loaded on the first chart: they take about a second and 30 MB, which most processes never need.
  const [{ parse, View }, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * The chart as a PNG, undefined when no day has spending. Rasterising runs on libuv's thread pool
 * (renderAsync), so only vega's scene building (tens of ms) takes the event loop.
 */
export async function spendChartPng(
  report: SpendReport,
  t: Translator = english(),
): Promise<Buffer | undefined> {
  const svg = await spendChartSvg(report, t);
  if (!svg) return undefined;
  const { renderAsync } = await import("@resvg/resvg-js");
  const image = await renderAsync(svg, {
    background: "white",
    // vega writes the generic "sans-serif": without a family set, text may vanish or pick any font.
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans", sansSerifFamily: "DejaVu Sans" },
    logLevel: "off",
  });
  return image.asPng();
}

/** Bytes made in memory as a file the adapters upload; Slack needs the size up front. */
export function fileFromBuffer(name: string, contentType: string, buffer: Buffer): OutgoingFile {
  return {
    name,
    contentType,
    size: buffer.length,
    open: async () => Readable.from([buffer], { objectMode: false }),
  };
}
