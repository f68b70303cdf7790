/**
 * Tests that need something of the machine beyond Node (redis-server, a browser, fonts, Linux's
 * /proc...): they run where it is, are skipped where it is not, and fail instead when the tool's
 * REQUIRE_ variable is 1 (CI sets them). Every skip carries the tool in its meta, so that
 * test/local-tools-reporter.ts can say at the end of the run what did not run and how to get it.
 */
import { existsSync } from "node:fs";
import { describe, expect, it, type TestContext } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** The local tool a test could not run without: skipped, or failed when required. */
    lacking?: { tool: string; hint: string; required?: string };
  }
}

export interface LocalToolSpec {
  /** As the end-of-run line says it: "redis-server", "a browser". */
  name: string;
  /** How to get it, in one line. */
  hint: string;
  /** The variable that turns a skip into a failure when set to 1 ("REQUIRE_REDIS"). */
  requiredBy?: string;
  /**
   * true when the tool is there; false when it is not; a sentence when it was asked for and is not
   * usable (CHROMIUM_PATH naming nothing): that fails rather than skip.
   */
  probe(): boolean | string;
}

export class LocalTool {
  private result: boolean | string | undefined;

  constructor(private readonly spec: LocalToolSpec) {}

  get name(): string {
    return this.spec.name;
  }

  /** Probed once, on first use. */
  get available(): boolean {
    this.result ??= this.spec.probe();
    return this.result === true;
  }

  /** Why the tests must fail rather than skip, or undefined when they may skip (or run). */
  private failure(): string | undefined {
    if (this.available) return undefined;
    const { name, hint, requiredBy } = this.spec;
    if (typeof this.result === "string") return `${this.result}: ${hint}`;
    if (requiredBy && process.env[requiredBy] === "1")
      return `missing: ${name}, which ${requiredBy}=1 asks for: ${hint}`;
    return undefined;
  }

  private lacking(required: boolean) {
    const { name: tool, hint, requiredBy } = this.spec;
    return { tool, hint, ...(required && requiredBy && { required: requiredBy }) };
  }

  /** A block of tests that needs the tool. */
  describe(title: string, body: () => void): void {
    const failure = this.failure();
    if (this.available) describe(title, body);
    else if (failure)
      describe(title, { meta: { lacking: this.lacking(true) } }, () => {
        it(`has ${this.spec.name}`, () => expect.fail(failure));
      });
    else describe(title, { skip: true, meta: { lacking: this.lacking(false) } }, body);
  }

  /**
   * For a lack a test finds only as it runs (what a browser can play): skips the test, counted at
   * the end like the others, or fails it when the tool's REQUIRE_ variable is 1.
   */
  lackedBy(context: TestContext): never {
    const { name, hint, requiredBy } = this.spec;
    if (requiredBy && process.env[requiredBy] === "1") {
      context.task.meta.lacking = this.lacking(true);
      expect.fail(`missing: ${name}, which ${requiredBy}=1 asks for: ${hint}`);
    }
    context.task.meta.lacking = this.lacking(false);
    return context.skip();
  }

  /** One test that needs the tool. */
  it(title: string, fn: () => Promise<void> | void, timeout?: number): void {
    const failure = this.failure();
    if (this.available) it(title, fn, timeout);
    else if (failure) it(title, { meta: { lacking: this.lacking(true) } }, () => expect.fail(failure));
    else it(title, { skip: true, meta: { lacking: this.lacking(false) } }, fn);
  }
}

/** Linux's /proc, where the memory tests read a process's resident size. */
export const linuxProc = new LocalTool({
  name: "Linux's /proc",
  hint: "the memory measurements read /proc/<pid>/status, which only Linux has",
  probe: () => existsSync("/proc/self/status"),
});
