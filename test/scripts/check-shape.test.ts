import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

/** `npm test`'s shape step (scripts/check-shape.mjs), run as npm runs it, on sources of its own. */

const script = fileURLToPath(new URL("../../scripts/check-shape.mjs", import.meta.url));
let dir: string | undefined;

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A source tree of `files` (path -> text); returns its src folder. */
function tree(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "shape-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, "src", path, ".."), { recursive: true });
    writeFileSync(join(dir, "src", path), text);
  }
  return join(dir, "src");
}

/** A function whose text spans `lines` lines, braces included. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  return `export function ${name}() {\n${body}\n}\n`;
}

function check(src: string) {
  const run = spawnSync(process.execPath, [script, src], { cwd: join(src, ".."), encoding: "utf8" });
  return { status: run.status, lines: run.stdout.trim().split("\n").filter(Boolean), stderr: run.stderr };
}

describe("check-shape", () => {
  it("passes sources whose functions are 120 lines at most and that never cast through unknown", () => {
    const src = tree({
      "a.ts": functionOf("justFits", 120),
      // Words in comments and strings are not casts.
      "b/c.ts":
        '// never write `x as unknown as T`\nexport const said = "as unknown as";\nexport const n = 1 as number;\n',
    });
    const run = check(src);
    expect(run.stderr).toBe("");
    expect(run.lines).toEqual([]);
    expect(run.status).toBe(0);
  });

  it("fails on a function over 120 lines and on each cast through unknown, naming each", () => {
    const src = tree({
      "long.ts": `${functionOf("fine", 30)}${functionOf("tooLong", 121)}`,
      "deep/casts.ts": [
        "export const a = (1 as unknown as string).length;",
        "export const handler = () => {",
        "  return {} as unknown as Map<string, number>;",
        "};",
        "",
      ].join("\n"),
      "methods.ts": `export class Big {\n  run() {\n${Array.from({ length: 125 }, () => "    void 0;").join("\n")}\n  }\n}\n`,
    });
    const run = check(src);
    expect(run.status).toBe(1);
    expect(run.lines).toEqual([
      "src/deep/casts.ts:1: casts through unknown (as unknown as)",
      "src/deep/casts.ts:3: casts through unknown (as unknown as)",
      "src/long.ts:31: tooLong is 121 lines long (over 120)",
      "src/methods.ts:2: run is 127 lines long (over 120)",
      "check-shape: 4 offender(s) in src",
    ]);
  });
});
