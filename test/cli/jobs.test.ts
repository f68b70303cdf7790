import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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

  it("says so in one line when the store cannot be opened", () => {
    const failed = jobsCli("mysql://nowhere");
    expect(failed.status).toBe(1);
    expect(failed.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^Could not read the jobs: STORE_URL/),
    ]);
  });
});
