import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

/**
 * `npm start`'s build step on a small project of its own (the real script and the real tsc):
 * it compiles when dist/ is missing or older than a source, and not otherwise.
 */

const repo = fileURLToPath(new URL("../..", import.meta.url));
let dir: string | undefined;

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function project(): string {
  dir = mkdtempSync(join(tmpdir(), "build-"));
  mkdirSync(join(dir, "scripts"));
  mkdirSync(join(dir, "src"));
  copyFileSync(join(repo, "scripts/build-if-stale.mjs"), join(dir, "scripts/build-if-stale.mjs"));
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
  const options = {
    target: "ES2022",
    module: "NodeNext",
    strict: true,
    types: [],
    rootDir: "src",
    outDir: "dist",
  };
  writeFileSync(
    join(dir, "tsconfig.build.json"),
    JSON.stringify({ compilerOptions: options, include: ["src"] }),
  );
  writeFileSync(join(dir, "src/main.ts"), "export const answer: number = 42;\n");
  return dir;
}

function build(root: string) {
  const run = spawnSync(process.execPath, [join(root, "scripts/build-if-stale.mjs")], { encoding: "utf8" });
  return { status: run.status, stderr: run.stderr };
}

/** Moves a file's clock back, as if it had been written a minute ago. */
function age(path: string, seconds = 60) {
  const then = new Date(Date.now() - seconds * 1000);
  utimesSync(path, then, then);
}

describe("npm start's build step", () => {
  it("builds a clone without dist/, leaves an unchanged one alone, and builds again after an edit", () => {
    const root = project();
    expect(build(root).status).toBe(0);
    const output = join(root, "dist/main.js");
    for (const source of ["src/main.ts", "src", "tsconfig.build.json"]) age(join(root, source), 180);
    age(output, 120);
    age(join(root, "dist/.build-stamp"), 120);
    const before = statSync(output).mtimeMs;

    expect(build(root).status).toBe(0);
    expect(statSync(output).mtimeMs).toBe(before);

    writeFileSync(join(root, "src/main.ts"), "export const answer: number = 43;\n");
    expect(build(root).status).toBe(0);
    expect(statSync(output).mtimeMs).toBeGreaterThan(before);
  }, 60_000);

  it("stops the start when the build fails", () => {
    const root = project();
    writeFileSync(join(root, "src/main.ts"), 'export const answer: number = "forty-two";\n');
    const failed = build(root);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain("The build failed");
  }, 60_000);
});
