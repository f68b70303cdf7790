import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeDiscord } from "./fakes/discord/index.js";
import { startEmulator } from "./fakes/media-api/index.js";
import { startFakeSlack } from "./fakes/slack/index.js";
import { freePort } from "./main-process.js";
import { expectOneLine, failedStart, run, started, stopStarted, TEST_MS } from "./npm-start.js";

/**
 * `npm start` refusing what it was given: a missing or malformed setting, a credential its service
 * refuses. Each failed start is one line on stderr naming what to set, with no stack and no secret.
 */

afterEach(stopStarted);

describe("npm start without what it needs", () => {
  it(
    "with nothing configured, points to .env.example and the playground in its one line",
    async () => {
      const { output, exited } = run({});
      expect(await exited).toBe(1);
      const lines = output.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^Cannot start: MEDIA_API_URL and a chat platform .*\.env\.example.*npm run playground/,
      );
      expect(output.stdout).toBe("");
    },
    TEST_MS,
  );

  it(
    "refuses to start without a chat platform, in one line naming the variables",
    async () => {
      const { output, exited } = run({ MEDIA_API_URL: "http://127.0.0.1:9" });
      expect(await exited).toBe(1);
      expect(output.stderr.trim().split("\n")).toHaveLength(1);
      expect(output.stderr).toContain("DISCORD_TOKEN");
      expect(output.stderr).toContain("SLACK_BOT_TOKEN");
    },
    TEST_MS,
  );

  it(
    "refuses to start when no API key could ever be used, saying what to set",
    async () => {
      const { output, exited } = run({ MEDIA_API_URL: "http://127.0.0.1:9", DISCORD_TOKEN: "x" });
      expect(await exited).toBe(1);
      const lines = output.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^Cannot start: .*MEDIA_API_KEY.*SECRETS_KEY/);
    },
    TEST_MS,
  );

  it(
    "refuses a MEDIA_API_KEY the service rejects, in one line, before connecting anywhere",
    async () => {
      const emu = await startEmulator();
      const fake = await startFakeDiscord();
      const dir = mkdtempSync(join(tmpdir(), "main-"));
      const { child, output, exited } = run({
        MEDIA_API_URL: emu.url,
        MEDIA_API_KEY: "not-a-key",
        MEDIA_API_KEY_TENANTS: "*",
        STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
        DISCORD_TOKEN: fake.token,
        DISCORD_REST_URL: fake.restUrl,
      });
      started.push({ child, emu, fake, dir });
      expect(await exited).toBe(1);
      const lines = output.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^Cannot start: MEDIA_API_KEY was refused by the service/);
      expect(output.stdout + output.stderr).not.toContain("not-a-key");
      expect(emu.callsTo("GET", "/api/usage")).toHaveLength(1);
    },
    TEST_MS,
  );
});

describe("npm start with a bad credential, in one line saying what to fix", () => {
  it(
    "a DISCORD_SHARDS that is not auto or a range of its count",
    async () => {
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        DISCORD_TOKEN: "discord-token",
        DISCORD_SHARDS: "1-2/2",
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: DISCORD_SHARDS must name shards within 0-1\/2, first to last/);
    },
    TEST_MS,
  );

  it(
    "a Discord token Discord refuses",
    async () => {
      const fake = await startFakeDiscord();
      started.push({ fake });
      const wrong = `${fake.token.slice(0, -6)}WRONG0`;
      const { code, stderr, stdout } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        DISCORD_TOKEN: wrong,
        DISCORD_REST_URL: fake.restUrl,
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: DISCORD_TOKEN was refused by Discord/, wrong);
      expect(stdout).not.toContain(wrong);
    },
    TEST_MS,
  );

  it(
    "a Slack bot token Slack refuses",
    async () => {
      const fake = await startFakeSlack();
      started.push({ fake });
      const wrong = "xoxb-1000000001-2000000002-notTheRightOne";
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        SLACK_BOT_TOKEN: wrong,
        SLACK_SIGNING_SECRET: fake.signingSecret,
        SLACK_API_URL: fake.apiUrl,
        SLACK_PORT: String(await freePort()),
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: SLACK_BOT_TOKEN was refused by Slack \(invalid_auth\)/, wrong);
    },
    TEST_MS,
  );

  it(
    "a Slack app token Slack refuses (Socket Mode)",
    async () => {
      const fake = await startFakeSlack();
      started.push({ fake });
      const wrong = "xapp-1-A0MEDIAAPP-3000000003-notTheRightOne";
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        SLACK_BOT_TOKEN: fake.botToken,
        SLACK_APP_TOKEN: wrong,
        SLACK_API_URL: fake.apiUrl,
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: SLACK_APP_TOKEN was refused by Slack \(invalid_auth\)/, wrong);
    },
    TEST_MS,
  );

  it(
    "a signing secret that is not one (a token pasted in its place)",
    async () => {
      const pasted = "xoxb-1000000001-2000000002-fakeBotTokenValue";
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        SLACK_BOT_TOKEN: pasted,
        SLACK_SIGNING_SECRET: pasted,
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        /^Cannot start: SLACK_SIGNING_SECRET must be the app's 32-character Signing Secret/,
        pasted,
      );
    },
    TEST_MS,
  );

  it(
    "a partial set of the Slack OAuth variables, without their secrets",
    async () => {
      const secret = "0123456789abcdef0123456789abcdef";
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        SLACK_CLIENT_ID: "1000000001.4000000004",
        SLACK_CLIENT_SECRET: secret,
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        /^Cannot start: SLACK_STATE_SECRET is required with SLACK_CLIENT_ID and SLACK_CLIENT_SECRET: Slack OAuth installs need/,
        secret,
      );
    },
    TEST_MS,
  );
});
