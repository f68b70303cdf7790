import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * `npm run bench` runs every benchmark; `npm run bench -- slack-ack` only the ones named. Each is
 * its own script, run in its own process so one benchmark's memory and timers never skew another's;
 * each prints its figures and writes them to bench/results/.
 */
const BENCHMARKS: Record<string, string> = {
  "discord-ack": "./discord-ack/main.ts",
  "discord-interactions": "./discord-interactions/main.ts",
  jobs: "./jobs/main.ts",
  "log-volume": "./log-volume/main.ts",
  redact: "./redact/main.ts",
  "replica-acks": "./replica-acks/main.ts",
  "slack-ack": "./slack-ack/main.ts",
  chaos: "./chaos/main.ts",
  scale: "./scale/main.ts",
  spend: "./spend/main.ts",
  queue: "./queue/main.ts",
  soak: "./soak/main.ts",
};

const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith("--"));
const names = firstOption === -1 ? args : args.slice(0, firstOption);
const options = firstOption === -1 ? [] : args.slice(firstOption);
const unknown = names.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}`);
  process.exit(2);
}
for (const name of names.length > 0 ? names : Object.keys(BENCHMARKS)) {
  const script = fileURLToPath(new URL(BENCHMARKS[name]!, import.meta.url));
  console.log(`== ${name}`);
  try {
    execFileSync(process.execPath, ["--import", "tsx", script, ...options], { stdio: "inherit" });
  } catch (error) {
    // A benchmark whose guard failed has printed and written its figures: the others still run.
    console.error(`== ${name}: FAILED (exit ${(error as { status?: number }).status ?? "?"})`);
    process.exitCode = 1;
  }
}
