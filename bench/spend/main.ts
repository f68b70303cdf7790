/**
 * What budgets cost (src/core/spend): `npm run bench -- spend [--rounds 5] [--starts 200] [--only ack|cost]`.
 *
 * (a) Acks (bench/spend/ack.ts): 200 `image generate` commands at once on Slack and on Discord,
 *     into a tenant with budgets (an `everyone` credit budget that never refuses and an `each`
 *     jobs budget), and the same without budgets; p99 per burst, median of the rounds, target
 *     under 150 ms with budgets.
 * (b) Bookkeeping (bench/spend/cost.ts): `Spending.around`'s own work per start beyond the
 *     creation call, p50 and p95, on sqlite and on redis, for `--starts` sequential and
 *     concurrent starts in one tenant.
 *
 * Prints the figures and writes bench/results/spend.json and spend.md.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { discordAck, SPEND_TARGET_P99_MS, type SpendAck, slackAck } from "./ack.js";
import { type CostCase, measureCost } from "./cost.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    rounds: { type: "string", default: "5" },
    starts: { type: "string", default: "200" },
    only: { type: "string" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
  },
});
const rounds = Number(values.rounds);
const starts = Number(values.starts);
const parts = values.only ? [values.only] : ["ack", "cost"];
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
      for (const [i, round] of r.rounds.entries()) {
        console.log(
          `  round ${i + 1}: p50 ${round.p50} ms, p99 ${round.p99} ms, max ${round.max} ms, failed ${round.failed}`,
        );
      }
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

const costs: CostCase[] = parts.includes("cost") ? await measureCost(starts) : [];
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
  costs,
};
mkdirSync(values.out, { recursive: true });
const stem = values.only ? `spend-${values.only}` : "spend";
writeFileSync(`${values.out}/${stem}.json`, `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(`${values.out}/${stem}.md`, markdown());
console.log(`written: ${values.out}/${stem}.json, ${stem}.md`);
process.exitCode =
  acks.every((a) => a.budgets === "none" || a.result.pass) && costs.every((c) => c.failed === 0) ? 0 : 1;

function markdown(): string {
  const lines = [
    "# Spend: what budgets cost",
    "",
    `Run ${at} with \`${summary.command}\` (under \`flock /tmp/bench.lock\`), Node ${process.version}, ${summary.machine.cpus} cpus (${summary.machine.cpuModel}).`,
    "",
    `- \`uptime\` before: ${loadBefore}`,
    `- \`uptime\` after: ${loadAfter}`,
    "",
    "The machine is shared: the load average above is the whole machine's, the benchmark's and others'.",
    "",
  ];
  if (acks.length > 0) {
    lines.push(
      "## (a) Acknowledgements, 200 commands at once, with and without budgets",
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
  if (costs.length > 0) {
    lines.push(
      "## (b) Bookkeeping per job: `Spending.around` beyond the creation call",
      "",
      `Each start is timed whole and its creation call (POST /api/image/generate to the emulator, in a process of its own) on its own; the difference is spending's own work: key lookup, probe GET /api/usage, period, budgets read, check and reservation under the tenant's budget lock, spend record, settlement under the lock. Concurrent: all ${starts} at once in one tenant, so the wait for the budget lock is part of each start's cost. "Bypassed" is the same creation call without spending.`,
      "",
      "| store | starts | spending's work p50 (ms) | p95 (ms) | max (ms) | creation call p50 (ms) | bypassed start p50 (ms) | wall with / bypassed (ms) | failed | jobs booked / held |",
      "|---|---|---|---|---|---|---|---|---|---|",
      ...costs.map(
        (c) =>
          `| ${c.backend} | ${c.starts} ${c.mode} | ${c.overhead.p50} | ${c.overhead.p95} | ${c.overhead.max} | ${c.creation.p50} | ${c.bypassed.p50} | ${c.wallMs} / ${c.bypassedWallMs} | ${c.failed} | ${c.booked.jobs} / ${c.booked.held} |`,
      ),
      "",
      "Per step (ms per call, p50 / p95; `store.withBook` includes the wait for the lock, two calls per start):",
      "",
      `| store | starts | ${stepNames().join(" | ")} |`,
      `|---|---|${stepNames()
        .map(() => "---")
        .join("|")}|`,
      ...costs.map(
        (c) =>
          `| ${c.backend} | ${c.mode} | ${stepNames()
            .map((name) => (c.steps[name] ? `${c.steps[name].p50} / ${c.steps[name].p95}` : "-"))
            .join(" | ")} |`,
      ),
      "",
    );
  }
  return `${lines.join("\n")}\n`;
}

function stepNames(): string[] {
  return [...new Set(costs.flatMap((c) => Object.keys(c.steps)))].sort();
}
