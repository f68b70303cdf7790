import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startVitest } from "vitest/node";
import type { Finding } from "./setup.js";

/**
 * The pseudo-locale run (`npm run test:pseudo`): the Discord and Slack end-to-end suites with
 * every person's client set to the pseudo-locale (test/core/i18n/pseudo.ts). It fails on each
 * user-visible string that did not come from a catalogue (plain English among accented text) and
 * on each body Discord or Slack refused (a limit passed), and lists them. The suites' own English
 * assertions fail in it by design: the verdict is this report, not theirs.
 *
 * Left out: files that run the bot in a child process (which has no pseudo-locale), and the
 * files whose people read the shipped languages (their words are not English, nor pseudo).
 */

const LEFT_OUT = [
  // The bot in a child process, which has no pseudo-locale.
  "test/slack/memory.e2e.test.ts",
  "test/slack/oauth.replicas.e2e.test.ts",
  // People in German, Japanese and the other shipped languages, whose words are no English.
  "test/discord/languages.e2e.test.ts",
  "test/slack/languages.e2e.test.ts",
  "test/slack/home-languages.e2e.test.ts",
  "test/discord/refusals.languages.e2e.test.ts",
];
const SUITES = ["test/discord", "test/slack"];

const dir = mkdtempSync(join(tmpdir(), "pseudo-run-"));
process.env.PSEUDO_REPORT_DIR = dir;
const filters = process.argv.slice(2);

const vitest = await startVitest("test", filters.length > 0 ? filters : SUITES, {
  watch: false,
  reporters: ["dot"],
  setupFiles: ["test/pseudo/setup.ts"],
  include: ["test/discord/**/*.e2e.test.ts", "test/slack/**/*.e2e.test.ts"],
  exclude: LEFT_OUT,
});
await vitest?.close();

const findings = readdirSync(dir).flatMap(
  (file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as Finding[],
);
rmSync(dir, { recursive: true, force: true });

/** One line per distinct string, with how often and where it was first seen. */
function report(kind: Finding["kind"], heading: string): number {
  const seen = new Map<string, { finding: Finding; count: number }>();
  for (const finding of findings.filter((f) => f.kind === kind)) {
    const key = `${finding.platform} ${finding.text}`;
    const entry = seen.get(key);
    if (entry) entry.count += 1;
    else seen.set(key, { finding, count: 1 });
  }
  console.log(`\n${heading}: ${seen.size}`);
  for (const { finding, count } of [...seen.values()].sort((a, b) => b.count - a.count)) {
    const words = finding.words.length > 0 ? ` [${finding.words.join(" ")}]` : "";
    console.log(`- ${finding.platform} ${finding.where} ×${count}${words}: ${JSON.stringify(finding.text)}`);
    console.log(`    first in ${finding.test}`);
  }
  return seen.size;
}

const strings = report("uncatalogued", "User-visible strings that did not come from a catalogue");
const refused = report("refused", "Bodies Discord or Slack refused (a limit passed)");
process.exitCode = strings + refused > 0 ? 1 : 0;
