/**
 * What budgets cost (src/core/spend): `npm run bench -- spend [--rounds 5] [--starts 200]
 * [--big 2000] [--records 100000] [--only ack|burst|usage]`.
 *
 * (a) Acks (bench/spend/ack.ts): 200 `image generate` commands at once on Slack and on Discord,
 *     into a tenant with budgets and into one without; p99 per burst, median of the rounds, target
 *     under 150 ms with budgets.
 * (b) Bursts (bench/spend/burst.ts): `--starts` paid starts at once in one tenant through 1 and 3
 *     replicas, on sqlite and on redis, with spending against the same burst without it: the
 *     ratio of the wall times, target within 1.5; then `--starts` and `--big` starts against a
 *     budget of three quarters of them: exactly that many made, none failed.
 * (c) Usage (bench/spend/usage.ts): the usage report for an admin and a member at day 1 (a
 *     thirtieth of `--records`) and day 30 (all of them) of a busy period, on both stores: target
 *     as fast at day 30 as at day 1.
 *
 * Prints the figures and writes bench/results/spend.json and spend.md (spend-<part>.* with --only).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { discordAck, SPEND_TARGET_P99_MS, type SpendAck, slackAck } from "./ack.js";
import { BURST_TARGET_RATIO, type BurstFigures, type HoldFigures, measureBursts } from "./burst.js";
import { measureUsage, type UsageFigures } from "./usage.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    rounds: { type: "string", default: "5" },
    starts: { type: "string", default: "200" },
    big: { type: "string", default: "2000" },
    records: { type: "string", default: "100000" },
    only: { type: "string" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
  },
});
const rounds = Number(values.rounds);
const starts = Number(values.starts);
const parts = values.only ? [values.only] : ["ack", "burst", "usage"];
const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

const at = new Date().toISOString();
const loadBefore = uptime();
console.log(`spend: ${process.version}, ${availableParallelism()} cpus; ${loadBefore}`);

const acks: SpendAck[] = [];
if (parts.includes("ack")) {
  for (const run of [slackAck, discordAck]) {
    for (const budgets of ["budgets", "none"] as const) {
      const ack = await run(budgets, rounds);
      acks.push(ack);
      const r = ack.result;
      console.log(
        `ack ${ack.platform} ${budgets}: ${r.burst} at once; median p50 ${r.p50} ms, median p99 ${r.p99} ms` +
          (budgets === "budgets"
            ? ` (target < ${SPEND_TARGET_P99_MS} ms): ${r.pass ? "PASS" : "FAIL"}`
            : "") +
          (ack.booked ? `; book: ${ack.booked.jobs} jobs counted, ${ack.booked.held} held` : ""),
      );
    }
  }
}
const { bursts, holds }: { bursts: BurstFigures[]; holds: HoldFigures[] } = parts.includes("burst")
  ? await measureBursts(starts, rounds, Number(values.big))
  : { bursts: [], holds: [] };
const usage: UsageFigures[] = parts.includes("usage") ? await measureUsage(Number(values.records)) : [];
const loadAfter = uptime();

const summary = {
  name: "spend",
  at,
  node: process.version,
  machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? "unknown" },
  uptime: { before: loadBefore, after: loadAfter },
  loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  command: ["npm run bench -- spend", ...process.argv.slice(2)].join(" "),
  acks: acks.map((a) => ({
    platform: a.platform,
    budgets: a.budgets,
    burst: a.result.burst,
    p50: a.result.p50,
    p99: a.result.p99,
    targetP99: a.budgets === "budgets" ? SPEND_TARGET_P99_MS : undefined,
    pass: a.budgets === "budgets" ? a.result.pass : undefined,
    rounds: a.result.rounds,
    booked: a.booked,
  })),
  bursts: bursts.map((b) => ({ ...b, targetRatio: BURST_TARGET_RATIO, pass: b.ratio <= BURST_TARGET_RATIO })),
  holds: holds.map((h) => ({ ...h, pass: h.made === h.limit && h.failed === 0 })),
  usage,
};
mkdirSync(values.out, { recursive: true });
const stem = values.only ? `spend-${values.only}` : "spend";
writeFileSync(`${values.out}/${stem}.json`, `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(`${values.out}/${stem}.md`, markdown() + kept(`${values.out}/${stem}.md`));
console.log(`written: ${values.out}/${stem}.json, ${stem}.md`);
process.exitCode =
  acks.every((a) => a.budgets === "none" || a.result.pass) &&
  summary.bursts.every((b) => b.failed === 0) &&
  summary.holds.every((h) => h.pass)
    ? 0
    : 1;

/** The hand-written "## Reading" of an earlier run's file, kept under the new figures. */
function kept(file: string): string {
  if (!existsSync(file)) return "";
  const text = readFileSync(file, "utf8");
  const at = text.indexOf("\n## Reading");
  return at === -1 ? "" : text.slice(at);
}

function markdown(): string {
  const lines = [
    "# Spend: what budgets cost",
    "",
    `Run ${at} with \`${summary.command}\`, Node ${process.version}, ${summary.machine.cpus} cpus (${summary.machine.cpuModel}).`,
    "",
    `- \`uptime\` before: ${loadBefore}`,
    `- \`uptime\` after: ${loadAfter}`,
    "",
    "The machine is shared: the load average above is the whole machine's, the benchmark's and others'.",
    "",
  ];
  if (acks.length > 0) {
    lines.push(
      "## Acknowledgements, 200 commands at once, with and without budgets",
      "",
      `Bursts of ${acks[0]!.result.burst} \`image generate\` commands at once, each from a person of its own; a warm-up burst, then ${rounds} measured rounds; p50 and p99 are medians over the rounds. With budgets, the tenant has an \`everyone\` credit budget of 10,000,000 and an \`each\` jobs budget of 100. Target with budgets: p99 under ${SPEND_TARGET_P99_MS} ms.`,
      "",
      "| platform | budgets | median p50 (ms) | median p99 (ms) | p99 per round (ms) | failed | verdict | jobs the budgets counted |",
      "|---|---|---|---|---|---|---|---|",
      ...acks.map((a) => {
        const r = a.result;
        const failed = r.rounds.reduce((sum, round) => sum + round.failed, 0);
        const verdict = a.budgets === "budgets" ? (r.pass ? "PASS" : "FAIL") : "(reference)";
        const booked = a.booked ? `${a.booked.jobs} (${a.booked.held} held)` : "-";
        return `| ${a.platform} | ${a.budgets} | ${r.p50} | ${r.p99} | ${r.rounds.map((x) => x.p99).join(", ")} | ${failed} | ${verdict} | ${booked} |`;
      }),
      "",
    );
  }
  if (bursts.length > 0) {
    lines.push(
      `## Paid starts at once in one tenant: with spending against without`,
      "",
      `${starts} starts at once, each a real creation call (POST /api/image/generate to the emulator, a process of its own), split over 1 or 3 replicas (processes of their own on the one store) that begin together. With spending each goes through \`Spending.around\`: the key, the probe and the budgets read (shared by the starts asking at once; the budgets while the other two are), then the check and reservation as one atomic step (the reservations arriving within 2 ms checked together, each in turn: one Lua script call on redis, one statement on sqlite), then the creation call; the start ends there, and its bookkeeping (the record, the counts, the ledger's price, the reservation given back) lands once the process's starts under way have made their calls (500 ms at most), its time shown apart (until then the reservation stands for the job). "Last call began" is when the burst's last creation call was made, after the common start: with spending, what the reads and the reservations before it took. Without, the creation call alone. Wall time from the common start to the last start's end; a warm-up of each, then ${rounds} rounds of each taken in turn; medians. The tenant's budgets (an \`everyone\` credit budget of 10,000,000 and an \`each\` jobs budget of 1,000) bind every start and refuse none. Target: ratio at most ${BURST_TARGET_RATIO}.`,
      "",
      "| store | replicas | with spending, median (ms) | without, median (ms) | ratio | verdict | last call began, with / without, median (ms) | bookkeeping landed, median (ms) | rounds with (ms) | rounds without (ms) | failed |",
      "|---|---|---|---|---|---|---|---|---|---|---|",
      ...bursts.map(
        (b) =>
          `| ${b.backend} | ${b.replicas} | ${b.medianWithMs} | ${b.medianWithoutMs} | ${b.ratio} | ${b.ratio <= BURST_TARGET_RATIO ? "PASS" : "FAIL"} | ${b.medianCalledWithMs} / ${b.medianCalledWithoutMs} | ${b.medianSettledMs} | ${b.withMs.join(", ")} | ${b.withoutMs.join(", ")} | ${b.failed} |`,
      ),
      "",
      "Never over the budget, and never giving up: starts at once through 3 replicas against an `everyone` jobs budget of three quarters of them.",
      "",
      "| store | starts at once | budget (jobs) | made | refused by the budget | failed | wall (ms) | verdict |",
      "|---|---|---|---|---|---|---|---|",
      ...holds.map(
        (h) =>
          `| ${h.backend} | ${h.starts} | ${h.limit} | ${h.made} | ${h.refused} | ${h.failed} | ${h.wallMs} | ${h.made === h.limit && h.failed === 0 ? "PASS" : "FAIL"} |`,
      ),
      "",
    );
  }
  if (usage.length > 0) {
    lines.push(
      "## The usage report at day 1 and at day 30 of a busy period",
      "",
      "The usage command's report (the same code as the Home's), 30 calls each after one that reads the account (kept 30 s): an admin's (everyone's spending, by person, kind and day, outside spending, budgets) and a member's (their own). Jobs recorded as starts record them: 300 people, 12 channels, 5 kinds, spread over the period's 30 days; day 1 holds a thirtieth of them. Target: as fast at day 30 as at day 1. The export reads every job of the period, timed once.",
      "",
      "| store | jobs in the period | admin p50 (ms) | admin p95 (ms) | member p50 (ms) | member p95 (ms) | export (ms) |",
      "|---|---|---|---|---|---|---|",
      ...usage.map(
        (u) =>
          `| ${u.backend} | ${u.records.toLocaleString("en")} | ${u.admin.p50} | ${u.admin.p95} | ${u.member.p50} | ${u.member.p95} | ${u.exportMs} |`,
      ),
      "",
    );
  }
  return `${lines.join("\n")}\n`;
}
