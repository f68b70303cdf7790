import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { openStores } from "../../src/store/index.js";

/** `npm run jobs` as an operator runs it: its own process, reading the bot's sqlite file. */

const root = fileURLToPath(new URL("../..", import.meta.url));
let dir: string | undefined;

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function jobsCli(storeUrl: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ["--import", "tsx", "src/cli/jobs.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", STORE_URL: storeUrl },
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const requester = { platform: "discord" as const, tenantId: "guild-1", userId: "user-7" };

/** A store with one unfinished job; resolves with its id. */
async function storeWithAJob(storeUrl: string): Promise<string> {
  const stores = await openStores(storeUrl, undefined, pino({ level: "silent" }));
  const job = await stores.jobs.create({
    kind: "image",
    command: "image.generate",
    serviceJobId: "svc-9",
    requester,
    conversation: {},
    message: null,
    inputs: {},
  });
  await stores.close();
  return job.id;
}

/**
 * `npm run …` as an operator types it, through the real npm and this repository's own `prejobs`
 * and `jobs` scripts, in a copy of the project whose dist/cli/jobs.js is the source (through tsx)
 * and whose build is up to date (so the build step has nothing to do, as after `npm start`).
 */
function npmRun(dir: string, storeUrl: string, ...args: string[]) {
  const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const project = join(dir, "project");
  mkdirSync(join(project, "scripts"), { recursive: true });
  mkdirSync(join(project, "dist/cli"), { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "media-bot",
      version: "0.1.0",
      scripts: { prejobs: scripts.prejobs, jobs: scripts.jobs },
    }),
  );
  copyFileSync(join(root, "scripts/build-if-stale.mjs"), join(project, "scripts/build-if-stale.mjs"));
  symlinkSync(join(root, "node_modules"), join(project, "node_modules"));
  writeFileSync(
    join(project, "dist/cli/jobs.js"),
    `import { register } from "tsx/esm/api";\nregister();\nawait import(${JSON.stringify(join(root, "src/cli/jobs.ts"))});\n`,
  );
  writeFileSync(join(project, "dist/.build-stamp"), `${new Date().toISOString()}\n`);
  const run = spawnSync("npm", ["run", ...args], {
    cwd: project,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: dir,
      STORE_URL: storeUrl,
      npm_config_update_notifier: "false",
    },
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("npm run jobs", () => {
  it("lists the store's unfinished jobs with where, command, state and requester, and not the finished ones", async () => {
    dir = mkdtempSync(join(tmpdir(), "jobs-cli-"));
    const storeUrl = `sqlite://${join(dir, "bot.sqlite")}`;
    const stores = await openStores(storeUrl, undefined, pino({ level: "silent" }));
    const job = (command: string, serviceJobId: string) =>
      stores.jobs.create({
        kind: "image",
        command,
        serviceJobId,
        requester,
        conversation: {},
        message: null,
        inputs: {},
      });
    const running = await job("image.generate", "svc-1");
    await stores.jobs.update(running.id, 1, { state: "working", progress: 40 });
    const finished = await job("image.edit", "svc-2");
    await stores.jobs.update(finished.id, 1, { state: "done", delivery: "delivered" });
    await stores.close();

    const listed = jobsCli(storeUrl);
    expect(listed.status).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^job\s+where\s+command\s+state\s+delivery\s+requester\s+age$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${running.id}\\s+discord:guild-1\\s+image\\.generate\\s+working 40%\\s+pending\\s+user-7\\s+0 min$`,
      ),
    );
    expect(listed.stdout).not.toContain(finished.id);
    expect(lines.at(-1)).toMatch(/^1 unfinished/);

    const json = jobsCli(storeUrl, "--json");
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ job: running.id, serviceJobId: "svc-1" });
  });

  it("npm run jobs --json pipes nothing but JSON, npm's banners going to stderr", async () => {
    dir = mkdtempSync(join(tmpdir(), "jobs-cli-"));
    const storeUrl = `sqlite://${join(dir, "bot.sqlite")}`;
    const id = await storeWithAJob(storeUrl);

    const piped = npmRun(dir, storeUrl, "jobs", "--json");
    expect(piped.status, piped.stderr).toBe(0);
    // What `| jq .` reads: JSON values and nothing else.
    const values = piped.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { job: string });
    expect(values).toEqual([expect.objectContaining({ job: id, serviceJobId: "svc-9" })]);
    expect(piped.stderr).toContain("> media-bot@0.1.0 jobs");

    // After `--` the flag is the script's alone, and npm's banner is on stdout first: it says how.
    mkdirSync(join(dir, "again"));
    const passed = npmRun(join(dir, "again"), storeUrl, "jobs", "--", "--json");
    expect(passed.stdout).toContain("> media-bot@0.1.0 jobs");
    expect(passed.stderr).toContain("for the JSON alone, run npm run jobs --json");
  }, 60_000);

  it("says so in one line when the store cannot be opened", () => {
    const failed = jobsCli("mysql://nowhere");
    expect(failed.status).toBe(1);
    expect(failed.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^Could not read the jobs: STORE_URL/),
    ]);
  });
});
