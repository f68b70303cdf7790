import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Copy, DockerfileParser, type Instruction, type JSONInstruction } from "dockerfile-ast";
import { validate } from "dockerfile-utils";
import { describe, expect, it } from "vitest";

/**
 * The image as far as it can be checked without a Docker daemon: the Dockerfile parsed with the
 * parser and linter of VS Code's Docker support (dockerfile-ast, dockerfile-utils). Building and
 * running the image is .ci/image-check's part, after the tests.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const text = readFileSync(`${root}Dockerfile`, "utf8");
const dockerfile = DockerfileParser.parse(text);
const instructions = dockerfile.getInstructions();
const lastFrom = instructions.map((i) => i.getKeyword()).lastIndexOf("FROM");
/** The runtime stage: what the image runs with. */
const runtime = instructions.slice(lastFrom);
const args = (i: Instruction) => i.getArguments().map((a) => a.getValue());
const of = (keyword: string) => runtime.filter((i) => i.getKeyword() === keyword);

describe("the Dockerfile", () => {
  it("passes the linter without an error or a warning", () => {
    expect(validate(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it("starts node itself as PID 1, in exec form, so SIGTERM reaches the bot", () => {
    expect(of("ENTRYPOINT")).toEqual([]);
    const cmds = of("CMD") as JSONInstruction[];
    expect(cmds).toHaveLength(1);
    const command = cmds[0]!.getJSONStrings().map((s) => s.getJSONValue());
    expect(command[0]).toBe("node");
    expect(command.at(-1)).toBe("dist/main.js");
    expect(command).not.toContain("npm");
  });

  it("asks /healthz in its HEALTHCHECK", () => {
    const checks = of("HEALTHCHECK");
    expect(checks).toHaveLength(1);
    expect(checks[0]!.getArgumentsContent()).toMatch(/\/healthz/);
    expect(checks[0]!.getArgumentsContent()).toMatch(/CMD \["node"/);
  });

  it("builds and runs on the Node line the tests run on (.node-version), Debian bookworm slim", () => {
    // CI installs .node-version's Node and runs every test on it: the image runs what is tested.
    const tested = readFileSync(`${root}.node-version`, "utf8").trim();
    expect(tested).toMatch(/^24\.\d+\.\d+$/);
    const images = dockerfile.getFROMs().map((from) => from.getImage());
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toBe(`node:${tested.split(".")[0]}-bookworm-slim`);
  });

  it("keeps build leftovers out of the runtime stage, and runs unprivileged", () => {
    // Only the compiled bot and what it needs come over from the build stage.
    const copies = of("COPY") as Copy[];
    expect(copies.map((copy) => args(copy)[0])).toEqual([
      "/app/package.json",
      "/app/scripts",
      "/app/node_modules",
      "/app/dist",
    ]);
    expect(copies.map((copy) => copy.getFromFlag()?.getValue())).toEqual(Array(4).fill("build"));
    const build = instructions
      .slice(0, lastFrom)
      .map((i) => i.getArgumentsContent() ?? "")
      .join("\n");
    expect(build).toMatch(/npm prune --omit=dev/);
    expect(build).toMatch(/-name '\*\.map' -delete/);
    expect(of("USER").map((u) => args(u)[0])).toEqual(["node"]);
  });

  it("never sends a .env file or the local store into the build", () => {
    const ignored = readFileSync(`${root}.dockerignore`, "utf8").split("\n");
    for (const path of [".env", "node_modules", "dist", "data", "*.sqlite"]) expect(ignored).toContain(path);
  });
});
