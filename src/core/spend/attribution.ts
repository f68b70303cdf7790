/**
 * Splits one key's spending between the bot's jobs and everyone else, from readings alone.
 *
 * Why by value and not by time: `credits_used` only ever grows, one whole charge at a time, so
 * the readings sorted by value retrace the order of the charges, whatever order the answers
 * arrived in and whatever the clocks said. A job's after-reading is the account right after its
 * own charge, so the step up to it from the reading just below ends with that charge; every
 * other step ends with a probe, and nothing the bot did ended it: outside spending.
 *
 * Where this is approximate (the conservation `sum(jobs) + outside === to - from` always holds;
 * only the split can be off):
 * - A job's step also holds any outside spending made inside its own call window (after the last
 *   reading below its after-reading, before its charge): no reading separates the two. The probe
 *   before each creation call keeps that window to the call itself.
 * - A job whose after-reading is the lowest reading gets 0: its charge came before anything we saw.
 * - A job whose answer was lost (no after-reading) has no step of its own: its charge shows in
 *   the next step up, the next job's or outside.
 */
import type { Attribution, JobCharge, Reading } from "./data/model.js";

export function attribute(readings: readonly Reading[]): Attribution {
  const sorted = dedupeJobs(readings).sort(byValue);
  const jobs = new Map<string, JobCharge>();
  const outside: JobCharge = { credits: 0, counters: {} };
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first === undefined || last === undefined) return { jobs, outside, from: 0, to: 0 };

  if (first.jobId !== undefined) jobs.set(first.jobId, { credits: 0, counters: {} });
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    const credits = cur.creditsUsed - prev.creditsUsed;
    const counters = counterDeltas(prev, cur);
    if (cur.jobId !== undefined) {
      jobs.set(cur.jobId, { credits, counters });
    } else {
      outside.credits += credits;
      for (const [type, n] of Object.entries(counters)) {
        outside.counters[type] = (outside.counters[type] ?? 0) + n;
      }
    }
  }
  return { jobs, outside, from: first.creditsUsed, to: last.creditsUsed };
}

/**
 * A job filed twice (a retried write, a later look filed under it) keeps its first reading: that
 * is the one closest to its charge; a later one may already hold charges that came after.
 */
function dedupeJobs(readings: readonly Reading[]): Reading[] {
  const probes: Reading[] = [];
  const firstByJob = new Map<string, Reading>();
  for (const r of readings) {
    if (r.jobId === undefined) {
      probes.push(r);
      continue;
    }
    const kept = firstByJob.get(r.jobId);
    // Equal `at` falls back to the lower value so that arrival order never decides.
    if (kept === undefined || r.at < kept.at || (r.at === kept.at && byValue(r, kept) < 0)) {
      firstByJob.set(r.jobId, r);
    }
  }
  return [...probes, ...firstByJob.values()];
}

/**
 * Ties in credits only ever mean a step of 0 credits; what matters is who gets the step below.
 * Counters first: a charge that costs no credits may still move one, and they grow too.
 * Then job readings before probes: every creation charges, so a probe that equals a job's
 * after-reading was taken after that charge (the job's own probe is strictly below it), and the
 * step up to that value is the job's. Putting the probe first would hand the job's charge to
 * outside. (Were a call ever free, this hands the outside spending just below to it instead:
 * the same call-window approximation as above.) `at` and the id only make the order total.
 */
/** The service's order of readings: what attribution walks, and what the budget book keeps in. */
export function byValue(a: Reading, b: Reading): number {
  return (
    a.creditsUsed - b.creditsUsed ||
    counterSum(a) - counterSum(b) ||
    (a.jobId === undefined ? 1 : 0) - (b.jobId === undefined ? 1 : 0) ||
    a.at - b.at ||
    compareIds(a.jobId ?? "", b.jobId ?? "")
  );
}

/** Code-unit order: locale rules would make the result depend on the machine. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function counterSum(r: Reading): number {
  let sum = 0;
  for (const n of Object.values(r.counters)) sum += n;
  return sum;
}

/**
 * Only types present on both sides: a reading that lacks one tells nothing about it, so the
 * step counts it as unchanged. Clamped at 0 because counters never go down within a period.
 */
function counterDeltas(prev: Reading, cur: Reading): Record<string, number> {
  const moved: Record<string, number> = {};
  for (const [type, now] of Object.entries(cur.counters)) {
    const before = prev.counters[type];
    if (before !== undefined && now > before) moved[type] = now - before;
  }
  return moved;
}
