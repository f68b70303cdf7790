import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found = text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g);
  return [...found].map((m) => m[1]!);
}

describe("architecture", () => {
  it("keeps src/core free of Discord and Slack libraries", () => {
    const platformPackage = /^(discord\.js|discord-api-types|discord-api-spec|@discordjs\/|@slack\/)/;
    const leaks = sourceFiles(join(root, "src/core")).flatMap((file) =>
      importsOf(file)
        .filter((spec) => platformPackage.test(spec) || /\/(discord|slack)\//.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(leaks).toEqual([]);
  });

  it("never reads the design folder outside the repository, so a bare clone works", () => {
    const readers = [...sourceFiles(join(root, "src")), ...sourceFiles(join(root, "test"))]
      .filter((file) => /\.\.\/shared\b|\/work\/shared\b/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file));
    expect(readers).toEqual([]);
  });
});
