import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect } from "vitest";
import { addPseudoLocale, PSEUDO } from "../core/i18n/pseudo.js";
import { watchFakes } from "../fakes/watch.js";
import { givenWords, grammarWords, uncatalogued, visibleTexts } from "./check.js";

/**
 * The setup of each end-to-end file in a pseudo-locale run (test/pseudo/run.ts): every person's
 * client reads the pseudo-locale, and each string the bot shows them is checked for English of
 * its own; each body a fake refuses (a platform limit passed) is kept too. Found strings are
 * written for the run's report at the end of the file.
 */

export interface Finding {
  readonly kind: "uncatalogued" | "refused";
  readonly platform: string;
  readonly where: string;
  readonly words: readonly string[];
  readonly text: string;
  readonly test: string;
}

const dir = process.env.PSEUDO_REPORT_DIR;
if (!dir) throw new Error("test/pseudo/setup.ts runs in a pseudo-locale run only (npm run test:pseudo)");

addPseudoLocale();
const allowed = grammarWords();
const findings: Finding[] = [];
const testName = () =>
  `${expect.getState().testPath ?? ""} > ${expect.getState().currentTestName ?? "(setup)"}`;

watchFakes({
  locale: PSEUDO,
  given: (value) => givenWords(value, allowed),
  shown(platform, where, body) {
    for (const text of visibleTexts(body)) {
      const words = uncatalogued(text, allowed);
      if (words.length > 0) {
        findings.push({
          kind: "uncatalogued",
          platform,
          where,
          words,
          text: text.slice(0, 300),
          test: testName(),
        });
      }
    }
  },
  refused(platform, where, problems) {
    findings.push({
      kind: "refused",
      platform,
      where,
      words: [],
      text: problems.join("; ").slice(0, 300),
      test: testName(),
    });
  },
});

afterAll(() => {
  writeFileSync(join(dir, `${randomUUID()}.json`), JSON.stringify(findings));
});
