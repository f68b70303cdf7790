/**
 * `npm run jobs`: the running jobs of the store, on the command line, for an operator who wants
 * to see what the bot is working on (or what a crash left) without opening Discord or Slack.
 * Reads STORE_URL (and REDIS_SENTINELS) like the bot (default sqlite://data/bot.sqlite); a sqlite store in WAL mode
 * can be read while the bot runs. `--json` prints one job per line as JSON instead of a table.
 *
 * `npm run jobs --json | jq .` pipes nothing but that JSON: `--json` before `--` is npm's own flag,
 * with which npm prints its banners ("> media-bot@0.1.0 jobs") on stderr, and hands the flag to
 * the script as npm_config_json. After `--` (`npm run jobs -- --json`) the flag reaches the script
 * only, and npm's banners are on stdout already when it starts: it says so on stderr.
 */
import { pino } from "pino";
import { tenantKey } from "../common/types.js";
import { ageOf } from "../core/commands/jobs.js";
import { loadStoreConfig } from "../core/config/config.js";
import { type JobRecord, openStores } from "../store/index.js";

const COLUMNS = ["job", "where", "command", "state", "delivery", "requester", "age"] as const;

function row(job: JobRecord, now: number): Record<(typeof COLUMNS)[number], string> {
  const progress = job.progress === null ? "" : ` ${Math.round(job.progress)}%`;
  return {
    job: job.id,
    where: tenantKey(job.tenant),
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

const json = process.argv.includes("--json") || process.env.npm_config_json === "true";

/** True when npm printed its run banners on the stdout this JSON goes to (see above). */
function afterNpmBanner(): boolean {
  const { npm_lifecycle_event: event, npm_config_json: npmJson, npm_config_loglevel: level } = process.env;
  return event === "jobs" && npmJson !== "true" && level !== "silent" && !process.stdout.isTTY;
}

if (json && afterNpmBanner()) {
  console.error(
    "npm printed its banner on stdout before this JSON: for the JSON alone, run npm run jobs --json (npm's own flag, which moves its banner to stderr).",
  );
}

try {
  const { storeUrl, redisSentinel } = loadStoreConfig();
  const stores = await openStores(storeUrl, undefined, pino({ level: "silent" }), {
    ...(redisSentinel && { sentinel: redisSentinel }),
  });
  try {
    const now = Date.now();
    const jobs: JobRecord[] = [];
    for await (const page of stores.jobs.listUnfinished()) jobs.push(...page);
    if (json) {
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
