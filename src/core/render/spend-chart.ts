import { Readable } from "node:stream";
import type { TopLevelSpec } from "vega-lite";
import type { OutgoingFile } from "../base/ports.js";
import type { SpendReport } from "../spend/data/model.js";
import { kindName } from "./spending.js";
import { day } from "./text.js";

/** The whole picture, axes and legend included: what a Discord embed or Slack image shows well. */
export const CHART_WIDTH = 640;
export const CHART_HEIGHT = 360;

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2026-03-04" -> "Mar 4": a period is at most a few weeks, so month and day are unique. */
export function dayLabel(isoDay: string): string {
  const [, month, date] = /^\d{4}-(\d{2})-(\d{2})/.exec(isoDay) ?? [];
  const name = MONTHS[Number(month) - 1];
  return name && date ? `${name} ${Number(date)}` : isoDay;
}

/** Every day of the report in order, days without spending too, so gaps show as gaps. */
function daysOf(report: SpendReport): string[] {
  const all = new Set([...report.days.map((d) => d.key), ...report.daysByKind.map((d) => d.day)]);
  return [...all].sort();
}

function title(report: SpendReport, days: readonly string[]) {
  const who = report.scope === "own" ? "Your credits" : "Credits";
  const first = days[0]!;
  const last = days.at(-1)!;
  const resets = day(report.resetsOn);
  return {
    text: `${who} per day, ${first === last ? first : `${first} to ${last}`}`,
    ...(resets && { subtitle: `This period resets on ${resets}` }),
  };
}

/** The vega-lite spec of the chart; undefined when no day has spending to draw. */
export function spendChartSpec(report: SpendReport): TopLevelSpec | undefined {
  const bars = report.daysByKind.filter((d) => d.credits > 0);
  if (bars.length === 0) return undefined;
  const days = daysOf(report);
  const labels = days.map(dayLabel);
  // Legend and stack follow the report's kinds (highest spending first), so colours read in order.
  const kinds = [...new Set([...report.kinds.map((k) => k.key), ...bars.map((b) => b.kind)])].map(kindName);
  return {
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    autosize: { type: "fit", contains: "padding" },
    padding: 12,
    background: "white",
    title: title(report, days),
    data: { values: bars.map((b) => ({ day: dayLabel(b.day), kind: kindName(b.kind), credits: b.credits })) },
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
        title: "Credits",
        axis: { tickMinStep: 1 },
      },
      color: {
        field: "kind",
        type: "nominal",
        title: null,
        scale: { domain: kinds },
        legend: { orient: "bottom", direction: "horizontal", columns: 4 },
      },
    },
    config: {
      title: { fontSize: 16, subtitleFontSize: 12, anchor: "start" },
      axis: { labelFontSize: 11, titleFontSize: 12 },
      legend: { labelFontSize: 12, labelLimit: 200 },
      view: { stroke: null },
    },
  };
}

/** The chart as SVG text, drawn by vega without a canvas (its "none" renderer only builds the scene). */
export async function spendChartSvg(report: SpendReport): Promise<string | undefined> {
  const spec = spendChartSpec(report);
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
export async function spendChartPng(report: SpendReport): Promise<Buffer | undefined> {
  const svg = await spendChartSvg(report);
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
