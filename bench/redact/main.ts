import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { addSecret, redactText } from "../../src/core/base/redact.js";

/**
 * What redaction costs per log line (every line goes through it, see src/core/base/redact.ts), with few
 * known secrets and with the keys of many tenants.
 *
 *   npm run bench -- redact [--lines 20000] [--out bench/results]
 */

const { values } = parseArgs({
  options: {
    lines: { type: "string", default: "20000" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
  },
});
const lines = Number(values.lines);

// A warn line with an error and its stack, as the bot writes them.
const line = JSON.stringify({
  level: 40,
  time: Date.now(),
  pid: 1,
  hostname: "host",
  jobId: "j_0123456789",
  err: {
    type: "NetworkError",
    message: `GET /api/video/v_123/download: ${"connect ECONNREFUSED ".repeat(8)}`,
    stack: "NetworkError: boom\n    at send (/app/dist/core/api/http.js:312:22)\n".repeat(8),
  },
  msg: "result could not be fetched",
});

function perLine(): number {
  for (let i = 0; i < lines / 2; i += 1) redactText(line);
  const started = performance.now();
  for (let i = 0; i < lines; i += 1) redactText(line);
  return ((performance.now() - started) / lines) * 1000;
}

const figures: Record<string, number> = {};
let added = 0;
for (const tenants of [10, 1000]) {
  for (; added < tenants; added += 1) addSecret(`tenant-key-${added}-0123456789abcdef`);
  figures[`${tenants} known secrets`] = Number(perLine().toFixed(1));
}
const report = { lineChars: line.length, lines, microsecondsPerLine: figures };
console.log(JSON.stringify(report, null, 2));
writeFileSync(join(values.out, "redact.json"), `${JSON.stringify(report, null, 2)}\n`);
