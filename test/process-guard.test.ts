import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The guard src/main.ts installs, in a process of its own with a fault let loose on purpose. */

const root = fileURLToPath(new URL("..", import.meta.url));

function run(fault: string): Promise<{ code: number; lines: Record<string, unknown>[]; alive: boolean }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "test/process-guard-child.ts", fault],
      { cwd: root, timeout: 20_000 },
      (error, stdout) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        const out = stdout.trim().split("\n");
        resolve({
          code,
          alive: out.includes("alive"),
          lines: out.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line)),
        });
      },
    );
  });
}

describe("the process guard", () => {
  it("logs a stray rejection with a reference and keeps the process running", async () => {
    const { code, alive, lines } = await run("rejection");
    expect(alive).toBe(true);
    expect(code).toBe(0);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "unhandled rejection (the bot keeps running)",
        reference: expect.stringMatching(/^[0-9a-f]{8}$/),
        err: expect.objectContaining({ message: "nobody caught this" }),
      }),
    ]);
  });

  it("logs a request's stray stream error (a body closed unread) and keeps the process running", async () => {
    const { code, alive, lines } = await run("stray-body");
    expect(alive).toBe(true);
    expect(code).toBe(0);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: "stray request error (the bot keeps running)",
        reference: expect.stringMatching(/^[0-9a-f]{8}$/),
        err: expect.objectContaining({ code: "UND_ERR_ABORTED" }),
      }),
    ]);
  });

  it("stops the process with code 1 on any other uncaught exception, logged with a reference", async () => {
    const { code, alive, lines } = await run("bug");
    expect(alive).toBe(false);
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 60,
        msg: "uncaught exception: stopping",
        reference: expect.stringMatching(/^[0-9a-f]{8}$/),
        err: expect.objectContaining({ type: "TypeError" }),
      }),
    ]);
  });
});
