import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeDiscord, startFakeDiscord } from "./fakes/discord/index.js";
import { type Emulator, startEmulator } from "./fakes/media-api/index.js";
import { type FakeSlack, startFakeSlack } from "./fakes/slack/index.js";
import { freePort, until } from "./main-process.js";

/** `npm start` as a newcomer runs it: the real entry point in its own process, configured by env. */

const root = new URL("..", import.meta.url).pathname;
const started: {
  child?: ChildProcess;
  emu?: Emulator;
  fake?: FakeSlack | FakeDiscord;
  dir?: string;
}[] = [];

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, output, exited };
}

afterEach(async () => {
  for (const world of started.splice(0)) {
    world.child?.kill("SIGKILL");
    await world.emu?.close();
    await world.fake?.close();
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  }
});

describe("npm start", () => {
  it("refuses to start without a chat platform, in one line naming the variables", async () => {
    const { output, exited } = run({ MEDIA_API_URL: "http://127.0.0.1:9" });
    expect(await exited).toBe(1);
    expect(output.stderr.trim().split("\n")).toHaveLength(1);
    expect(output.stderr).toContain("DISCORD_TOKEN");
    expect(output.stderr).toContain("SLACK_BOT_TOKEN");
  });

  it("answers /media on Slack with the service's figures, then stops cleanly on SIGTERM", async () => {
    const emu = await startEmulator();
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const port = await freePort();
    const { child, output, exited } = run({
      MEDIA_API_URL: `${emu.url}/api`,
      MEDIA_API_KEY: "test-key",
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: fake.signingSecret,
      SLACK_API_URL: fake.apiUrl,
      SLACK_PORT: String(port),
    });
    started.push({ child, emu, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      15_000,
      () => output.stdout + output.stderr,
    );

    const answer = await fake.slashCommand(`http://127.0.0.1:${port}/slack/events`, { text: "usage" });
    expect(answer.status).toBe(200);
    const shown = await until(
      () =>
        [
          ...fake.ephemerals().map((m) => JSON.stringify(m)),
          ...answer.responseUrlPosts.map((p) => JSON.stringify(p)),
        ].find((text) => text.includes("1000")),
      10_000,
      () => JSON.stringify({ ephemerals: fake.ephemerals(), posts: answer.responseUrlPosts }),
    );
    expect(shown).toMatch(/pro/i);
    expect(emu.callsTo("GET", "/api/usage").length).toBeGreaterThan(0);
    // The key reached the service but never the logs.
    expect(output.stdout + output.stderr).not.toContain("test-key");
    expect(output.stdout + output.stderr).not.toContain(fake.botToken);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);

  it("logs into Discord, registers the commands and answers /usage, then stops cleanly", async () => {
    const emu = await startEmulator();
    const fake = await startFakeDiscord();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const { child, output, exited } = run({
      MEDIA_API_URL: emu.url,
      MEDIA_API_KEY: "test-key",
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      DISCORD_TOKEN: fake.token,
      DISCORD_REST_URL: fake.restUrl,
      DISCORD_GUILD_ID: fake.guild.id,
    });
    started.push({ child, emu, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      20_000,
      () => output.stdout + output.stderr,
    );
    expect(fake.commands(fake.guild.id).map((c) => c.name)).toContain("usage");

    const interaction = await fake.sendCommand({ name: "usage" });
    const answer = await until(
      () => fake.original(interaction.id)?.embeds.find((e) => /Credits left/.test(JSON.stringify(e))),
      10_000,
      () => JSON.stringify(fake.original(interaction.id)),
    );
    expect(JSON.stringify(answer)).toContain("1000");
    fake.assertNoValidationErrors();
    expect(output.stdout + output.stderr).not.toContain(fake.token);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);
});
