import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../fakes/media-api/index.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { linuxProc } from "../local-tools.js";
import { startFlags } from "../main-process.js";

const CHILD = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
/**
 * The bot runs with `npm start`'s heap settings (its old-generation ceiling and semi-space size):
 * without them V8 sizes the heap, and on Node 24 its young generation too, from the machine's
 * memory or the ceiling, and lets far more garbage pile up between collections than the bot ever
 * does when deployed.
 */
const HEAP_FLAGS = startFlags();
const MiB = 1024 * 1024;
const VIDEO_BYTES = 100 * MiB;

let fake: FakeSlack;
let emu: Emulator;
let dir: string;
let child: ChildProcess;
let lines: AsyncIterator<string>;
let reader: Interface;

async function next(): Promise<Record<string, unknown>> {
  const { value, done } = await lines.next();
  if (done) throw new Error("the bot process ended early");
  return JSON.parse(value) as Record<string, unknown>;
}

function ask(command: "measure" | "report") {
  child.stdin!.write(`${command}\n`);
  return next();
}

const completed = (min: number) => fake.uploads.filter((u) => (u.received?.bytes ?? 0) >= min);

linuxProc.describe("a 100 MB result in Slack", () => {
  beforeAll(async () => {
    fake = await startFakeSlack();
    emu = await startEmulator({ timeScale: 0.002, largeVideoBytes: VIDEO_BYTES });
    dir = mkdtempSync(join(tmpdir(), "slack-memory-"));
    child = spawn(
      process.execPath,
      [
        ...HEAP_FLAGS,
        "--expose-gc",
        "--import",
        "tsx",
        CHILD,
        fake.apiUrl,
        fake.botToken,
        fake.signingSecret,
        emu.url,
        dir,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    reader = createInterface({ input: child.stdout! });
    lines = reader[Symbol.asyncIterator]();
  });

  afterAll(async () => {
    child.stdin!.end();
    if (child.exitCode === null) await once(child, "exit");
    reader.close();
    await emu.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("streams from the service into Slack's upload with peak RSS growth under 64 MB", {
    timeout: 60_000,
  }, async () => {
    const { eventsUrl } = (await next()) as { eventsUrl: string };
    // Warm-up: modules, JIT and connection pools are not what is measured.
    emu.planNextJob("cinematic", {});
    await fake.slashCommand(eventsUrl, { text: "video cinematic a short warm-up" });
    await fake.waitFor(() => completed(1).length === 1, 15_000);
    const base = await ask("measure");

    emu.planNextJob("cinematic", { large: true });
    await fake.slashCommand(eventsUrl, { text: "video cinematic waves for a long time" });
    const [upload] = await fake.waitFor(
      () => completed(VIDEO_BYTES).length === 1 && completed(VIDEO_BYTES),
      40_000,
    );
    const report = await ask("report");

    const growth = (report.peak as number) - (base.rss as number);
    console.log(`peak RSS growth while uploading 100 MB: ${(growth / MiB).toFixed(1)} MB`);
    expect(upload).toMatchObject({
      filename: expect.stringMatching(/\.mp4$/),
      received: { bytes: VIDEO_BYTES, format: "raw" },
    });
    expect(growth).toBeLessThan(64 * MiB);
  });
});
