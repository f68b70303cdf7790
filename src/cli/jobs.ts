/**
 * `npm run jobs`: the running jobs of the store, on the command line, for an operator who wants
 * to see what the bot is working on (or what a crash left) without opening Discord or Slack.
 * Reads STORE_URL like the bot (default sqlite://data/bot.sqlite); a sqlite store in WAL mode
 * can be read while the bot runs. `--json` prints one job per line as JSON instead of a table.
 */
import { pino } from "pino";
import { ageOf } from "../core/commands/jobs.js";
import { type JobRecord, openStores } from "../store/index.js";

const COLUMNS = ["job", "where", "command", "state", "delivery", "requester", "age"] as const;

function row(job: JobRecord, now: number): Record<(typeof COLUMNS)[number], string> {
  const progress = job.progress === null ? "" : ` ${Math.round(job.progress)}%`;
  return {
    job: job.id,
    where: `${job.tenant.platform}:${job.tenant.tenantId}`,
    command: job.command,
    state: `${job.state}${progress}${job.attempts > 0 ? ` (${job.attempts} failed tries)` : ""}`,
    delivery: job.delivery,
    requester: job.requester.userId,
    age: ageOf(job.createdAt, now),
  };
}

function table(rows: Record<string, string>[]): string {
  const widths = COLUMNS.map((c) => Math.max(c.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line([...COLUMNS]), ...rows.map((r) => line(COLUMNS.map((c) => r[c]!)))].join("\n");
}

const storeUrl = process.env.STORE_URL?.trim() || undefined;
try {
  const stores = await openStores(storeUrl, undefined, pino({ level: "silent" }));
  try {
    const now = Date.now();
    const jobs: JobRecord[] = [];
    for await (const page of stores.jobs.listUnfinished()) jobs.push(...page);
    if (process.argv.includes("--json")) {
      for (const job of jobs)
        console.log(
          JSON.stringify({
            ...row(job, now),
            createdAt: new Date(job.createdAt).toISOString(),
            serviceJobId: job.serviceJobId,
          }),
        );
    } else if (jobs.length === 0) {
      console.log("No unfinished jobs.");
    } else {
      console.log(table(jobs.map((job) => row(job, now))));
      console.log(
        `\n${jobs.length} unfinished (running, waiting for a choice, or not yet delivered), oldest first.`,
      );
    }
  } finally {
    await stores.close();
  }
} catch (error) {
  console.error(`Could not read the jobs: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
