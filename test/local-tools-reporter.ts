/**
 * The end of a run says what did not run for lack of a local tool (test/local-tools.ts): one line
 * naming each tool with its count of tests, then one line each on how to get it. A green run thus
 * never hides that the store or browser tests were skipped.
 */
import type { Reporter, TestModule, Vitest } from "vitest/node";

interface Lacking {
  hint: string;
  skipped: number;
  required?: string;
}

const tests = (n: number) => `${n} test${n === 1 ? "" : "s"}`;

export default class LocalToolsReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byTool = new Map<string, Lacking>();
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const lacking = test.meta().lacking;
        if (!lacking) continue;
        const entry = byTool.get(lacking.tool) ?? { hint: lacking.hint, skipped: 0 };
        if (lacking.required) entry.required = lacking.required;
        else if (test.result().state === "skipped") entry.skipped++;
        byTool.set(lacking.tool, entry);
      }
    }
    const log = (line: string) => this.vitest?.logger.log(line);
    const skipped = [...byTool].filter(([, l]) => l.skipped > 0);
    const required = [...byTool].filter(([, l]) => l.required);
    if (skipped.length > 0) {
      log(
        ` Skipped for lack of a local tool: ${skipped.map(([tool, l]) => `${tool} (${tests(l.skipped)})`).join(", ")}`,
      );
      for (const [tool, { hint }] of skipped) log(`   ${tool}: ${hint}`);
    }
    if (required.length > 0) {
      log(` Required and missing: ${required.map(([tool, l]) => `${tool} (${l.required}=1)`).join(", ")}`);
    }
  }
}
