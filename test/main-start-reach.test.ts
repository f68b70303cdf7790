import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "./main-process.js";
import {
  expectOneLine,
  failedStart,
  root,
  silentPort,
  started,
  stopStarted,
  TEST_MS,
  takenPort,
} from "./npm-start.js";

/**
 * `npm start` when something it must bind or reach is not there: a port taken, an address not
 * this machine's, a media service, Slack API or store that does not answer. Each is one line on
 * stderr naming the setting to change, with no stack and no secret, at once or within its deadline.
 */

afterEach(stopStarted);

describe("npm start with a dependency it cannot bind or reach, in one line saying what to fix", () => {
  it(
    "a PORT another process holds, without a stack trace in the log",
    async () => {
      const port = await takenPort();
      const { code, stderr, stdout } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        DISCORD_TOKEN: "unused.because.the-port-comes-first",
        PORT: String(port),
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        new RegExp(
          `^Cannot start: PORT ${port} is taken: another process listens there \\(EADDRINUSE\\)\\. Set PORT to a free port`,
        ),
      );
      expect(stdout).not.toContain("stack");
    },
    TEST_MS,
  );

  it(
    "a SLACK_PORT (the old name, PORT unset) another process holds",
    async () => {
      const port = await takenPort();
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        SLACK_BOT_TOKEN: "xoxb-1000000001-2000000002-unusedBecauseThePortComesFirst",
        SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
        PORT: "",
        SLACK_PORT: String(port),
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        new RegExp(`^Cannot start: SLACK_PORT ${port} is taken: .*Set SLACK_PORT to a free port`),
      );
    },
    TEST_MS,
  );

  it(
    "a HOST that is no address of this machine",
    async () => {
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        DISCORD_TOKEN: "unused.because.the-port-comes-first",
        // TEST-NET-1 (RFC 5737): an address no machine has.
        HOST: "192.0.2.1",
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        /^Cannot start: HOST 192\.0\.2\.1 is not an address of this machine \(EADDRNOTAVAIL\)/,
      );
    },
    TEST_MS,
  );

  it(
    "the placeholder MEDIA_API_URL of .env.example, with the key filled in",
    async () => {
      const placeholder = /^MEDIA_API_URL=(.+)$/m.exec(readFileSync(join(root, ".env.example"), "utf8"))?.[1];
      expect(placeholder).toBeDefined();
      const { code, stderr, stdout } = await failedStart({
        MEDIA_API_URL: placeholder!,
        MEDIA_API_KEY: "sk-a-key-of-the-operator",
        MEDIA_API_KEY_TENANTS: "*",
        DISCORD_TOKEN: "unused.because.the-service-comes-first",
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        /^Cannot start: MEDIA_API_URL is still the placeholder of \.env\.example \(https:\/\/.*\): set it to the address of your Media Generation Service/,
        "sk-a-key-of-the-operator",
      );
      expect(stdout).toBe("");
    },
    TEST_MS,
  );

  it(
    "a MEDIA_API_URL whose host does not exist",
    async () => {
      const { code, stderr, stdout } = await failedStart({
        // .invalid (RFC 6761) never resolves.
        MEDIA_API_URL: "https://media.nowhere.invalid",
        DISCORD_TOKEN: "unused.because.the-service-comes-first",
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        /^Cannot start: MEDIA_API_URL names a host that does not exist \(media\.nowhere\.invalid: ENOTFOUND\)/,
      );
      expect(stdout).toBe("");
    },
    TEST_MS,
  );

  it(
    "a sqlite STORE_URL that cannot be opened",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "main-"));
      started.push({ dir });
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        DISCORD_TOKEN: "unused.because.the-store-comes-first",
        // A directory, not a file.
        STORE_URL: `sqlite://${dir}`,
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: STORE_URL: cannot open the sqlite store at .*SQLITE_CANTOPEN/);
    },
    TEST_MS,
  );

  it(
    "a SLACK_API_URL where nothing listens, at once instead of half an hour of retries",
    async () => {
      const apiUrl = `http://127.0.0.1:${await freePort()}/api/`;
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        SLACK_BOT_TOKEN: "xoxb-1000000001-2000000002-neverChecked",
        SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
        SLACK_API_URL: apiUrl,
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        new RegExp(
          `^Cannot start: Slack at ${apiUrl} \\(SLACK_API_URL\\) could not be used: nothing answers there \\(ECONNREFUSED\\)\\.$`,
        ),
      );
    },
    TEST_MS,
  );

  it(
    "a SLACK_API_URL that takes the connection but never answers, within its deadline",
    async () => {
      const apiUrl = `http://127.0.0.1:${await silentPort()}/api/`;
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        SLACK_BOT_TOKEN: "xoxb-1000000001-2000000002-neverChecked",
        SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
        SLACK_API_URL: apiUrl,
      });
      expect(code).toBe(1);
      expectOneLine(
        stderr,
        new RegExp(
          `^Cannot start: Slack at ${apiUrl} \\(SLACK_API_URL\\) could not be used: no answer within 10 s\\.$`,
        ),
      );
    },
    TEST_MS,
  );

  it(
    "a redis that does not answer, without its password",
    async () => {
      const password = "hunter2-redis-password";
      const { code, stderr, stdout } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        STORE_URL: `redis://:${password}@127.0.0.1:${await freePort()}`,
        DISCORD_TOKEN: "unused.because.the-store-comes-first",
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: STORE_URL: cannot reach redis at .*ECONNREFUSED/, password);
      expect(stdout).not.toContain(password);
    },
    TEST_MS,
  );
});
