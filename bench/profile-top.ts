/**
 * The top of a CPU profile (`node --cpu-prof`) by self time, as a markdown table: by function
 * (name, file and line) and by file (or package, for node_modules), so that what costs most can
 * be named without a profiler's UI.
 *
 *   tsx bench/profile-top.ts <file.cpuprofile>... [--top 10] [--title "..."]
 *
 * Several profiles (the bursts of bench/ack-timings.ts's ACK_PROFILE) are summed.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<pkg> (or @scope/pkg), src/... or bench/..., node:internal; else the URL's tail. */
export function placeOf(url: string): string {
  if (url === "") return "(native / VM)";
  if (url.startsWith("node:")) return url;
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return `npm:${modules[1]}`;
  const own = /\/((?:src|bench|test)\/.*)$/.exec(url);
  return own ? own[1]! : url;
}

/** tsx runs the project's files as one line each: their line numbers say nothing. */
function where(place: string, lineNumber: number): string {
  return /^(src|bench|test)\//.test(place) ? place : `${place}:${lineNumber + 1}`;
}

export function selfTimes(profile: Profile): {
  byFunction: Map<string, number>;
  byPlace: Map<string, number>;
  totalMs: number;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  // Each sample's time is the delta to the next sample; the last has none, so it counts for nothing.
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const place = placeOf(url);
    const name = `${functionName || "(anonymous)"} ${url ? where(place, lineNumber) : ""}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + us / 1000);
    byPlace.set(place, (byPlace.get(place) ?? 0) + us / 1000);
    totalUs += us;
  }
  return { byFunction, byPlace, totalMs: totalUs / 1000 };
}

/**
 * Total (inclusive) time of the project's own functions (src/): a sample counts for every one of
 * them on its stack, once. What a whole path costs (an update, a delivery) rather than its leaves.
 */
export function totalTimes(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
      const place = placeOf(url);
      if (!place.startsWith("src/")) continue;
      seen.add(`${functionName || "(anonymous)"} ${where(place, lineNumber)}`);
    }
    for (const name of seen) totals.set(name, (totals.get(name) ?? 0) + ms);
  }
  return totals;
}

export function topTable(title: string, rows: Map<string, number>, totalMs: number, top: number): string {
  const sorted = [...rows].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `| ${title} | self (ms) | share |`,
    "|---|---:|---:|",
    ...sorted.map(
      ([name, ms]) =>
        `| ${name.replaceAll("|", "\\|")} | ${Math.round(ms)} | ${((ms / totalMs) * 100).toFixed(1)}% |`,
    ),
  ].join("\n");
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "10" }, title: { type: "string" } },
});
if (positionals.length === 0) {
  console.error("usage: tsx bench/profile-top.ts <file.cpuprofile>... [--top 10] [--title ...]");
  process.exit(2);
}
const profiles = positionals.map((file) => JSON.parse(readFileSync(file, "utf8")) as Profile);
const top = Number(values.top);
const sum = (into: Map<string, number>, from: Map<string, number>) => {
  for (const [name, ms] of from) into.set(name, (into.get(name) ?? 0) + ms);
};
const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
const totals = new Map<string, number>();
let totalMs = 0;
let lengthMs = 0;
for (const profile of profiles) {
  const self = selfTimes(profile);
  sum(byFunction, self.byFunction);
  sum(byPlace, self.byPlace);
  sum(totals, totalTimes(profile));
  totalMs += self.totalMs;
  lengthMs += (profile.endTime - profile.startTime) / 1000;
}
const idle = byFunction.get("(idle)") ?? 0;
console.log(
  [
    ...(values.title ? [`## ${values.title}`, ""] : []),
    `${profiles.length > 1 ? `${profiles.length} profiles, ` : "Profile "}${Math.round(lengthMs)} ms long; ${Math.round(totalMs - idle)} ms busy (not idle).`,
    "",
    topTable(`top ${top} functions by self time`, byFunction, totalMs, top),
    "",
    topTable(`top ${top} files and packages by self time`, byPlace, totalMs, top),
    "",
    topTable(`top ${top} of the bot's own functions by total time (self and callees)`, totals, totalMs, top),
    "",
  ].join("\n"),
);
