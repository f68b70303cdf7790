import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeDiscord, startFakeDiscord } from "./fakes/discord/index.js";
import { type Emulator, startEmulator } from "./fakes/media-api/index.js";
import { type FakeSlack, startFakeSlack } from "./fakes/slack/index.js";
import { freePort, until } from "./main-process.js";

/** `npm start` as a newcomer runs it: the real entry point in its own process, configured by env. */

const root = fileURLToPath(new URL("..", import.meta.url));
const started: {
  child?: ChildProcess;
  emu?: Emulator;
  fake?: FakeSlack | FakeDiscord;
  dir?: string;
  server?: Server;
}[] = [];

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    // PORT 0 (any free port) unless a test names one: the one HTTP server opens on every start.
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", PORT: "0", ...env },
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

/** The port the bot's HTTP server took, from its start-up log line. */
function httpPort(stdout: string): number | undefined {
  const line = stdout.split("\n").find((l) => l.includes("serving /healthz"));
  return line ? (JSON.parse(line) as { port: number }).port : undefined;
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

/** Whether something answers HTTP at `url` (false when the connection is refused). */
async function answers(url: string): Promise<boolean> {
  return fetch(url).then(
    async (res) => {
      await res.body?.cancel();
      return true;
    },
    () => false,
  );
}

/** A port another process holds on every interface, as a second bot or a dev server would. */
async function takenPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  started.push({ server });
  return (server.address() as { port: number }).port;
}

/** A port that takes connections and never answers on them (a hung proxy, a wrong service). */
async function silentPort(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  started.push({ server });
  return (server.address() as { port: number }).port;
}

/** The value of one series in Prometheus' text format (0 when absent). */
function sample(metrics: string, series: string): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

afterEach(async () => {
  for (const world of started.splice(0)) {
    world.child?.kill("SIGKILL");
    await world.emu?.close();
    await world.fake?.close();
    await new Promise((resolve) => (world.server ? world.server.close(resolve) : resolve(undefined)));
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  }
});

describe("npm start", () => {
  it("with nothing configured, points to .env.example and the playground in its one line", async () => {
    const { output, exited } = run({});
    expect(await exited).toBe(1);
    const lines = output.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Cannot start: MEDIA_API_URL and a chat platform .*\.env\.example.*npm run playground/,
    );
    expect(output.stdout).toBe("");
  });

  it("refuses to start without a chat platform, in one line naming the variables", async () => {
    const { output, exited } = run({ MEDIA_API_URL: "http://127.0.0.1:9" });
    expect(await exited).toBe(1);
    expect(output.stderr.trim().split("\n")).toHaveLength(1);
    expect(output.stderr).toContain("DISCORD_TOKEN");
    expect(output.stderr).toContain("SLACK_BOT_TOKEN");
  });

  it("installs Slack in a workspace through /slack/install and answers it with that workspace's token", async () => {
    const emu = await startEmulator();
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const port = await freePort();
    const globex = fake.addWorkspace("Globex");
    const stateSecret = "state-secret-of-the-main-test";
    const { child, output } = run({
      MEDIA_API_URL: emu.url,
      MEDIA_API_KEY: "test-key",
      MEDIA_API_KEY_TENANTS: "*",
      SECRETS_KEY: "7f".repeat(32),
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      SLACK_CLIENT_ID: fake.clientId,
      SLACK_CLIENT_SECRET: fake.clientSecret,
      SLACK_STATE_SECRET: stateSecret,
      SLACK_SIGNING_SECRET: fake.signingSecret,
      SLACK_API_URL: fake.apiUrl,
      PORT: String(port),
      // Bolt, its InstallProvider and the WebClient say the most at debug: still no secret.
      LOG_LEVEL: "debug",
    });
    started.push({ child, emu, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      15_000,
      () => output.stdout + output.stderr,
    );
    const base = `http://127.0.0.1:${port}`;
    fake.redirectUrls.push(`${base}/slack/oauth_redirect`);

    expect(await fake.install(`${base}/slack/install`, globex.id)).toMatchObject({ status: 200 });
    const token = fake.botTokenOf(globex.id) ?? "";
    const answer = await fake.slashCommand(`${base}/slack/events`, {
      text: "usage",
      user: globex.userIds.requester,
      channel: globex.channelId,
    });
    expect(answer.status).toBe(200);
    await until(
      () => fake.ephemerals(globex.channelId).find((m) => JSON.stringify(m).includes("1000")),
      10_000,
      () => JSON.stringify(fake.calls),
    );
    const calls = fake.calls.filter((c) => c.method !== "oauth.v2.access");
    expect(calls.map((c) => [c.method, c.token === token, c.answered.ok])).toEqual(
      expect.arrayContaining([
        ["auth.test", true, true],
        ["users.info", true, true],
        ["chat.postEphemeral", true, true],
      ]),
    );
    expect(calls.filter((c) => c.token !== token)).toEqual([]);
    for (const secret of [token, fake.clientSecret, stateSecret])
      expect(output.stdout + output.stderr).not.toContain(secret);
  });

  it("answers /media on Slack with the service's figures, then stops cleanly on SIGTERM", async () => {
    const emu = await startEmulator();
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const port = await freePort();
    const { child, output, exited } = run({
      MEDIA_API_URL: `${emu.url}/api`,
      MEDIA_API_KEY: "test-key",
      MEDIA_API_KEY_TENANTS: fake.teamId,
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: fake.signingSecret,
      SLACK_API_URL: fake.apiUrl,
      // The name of old: PORT (unset here) would win over it.
      PORT: "",
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

    // The same server answers the operator's probes and Slack's events.
    const base = `http://127.0.0.1:${port}`;
    expect((await get(`${base}/healthz`)).status).toBe(200);
    const ready = await get(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ status: "ready", checks: { store: "ok", slack: "ok" } });
    const metrics = (await get(`${base}/metrics`)).text;
    expect(sample(metrics, 'mediabot_commands_total{command="usage",outcome="ok"}')).toBe(1);
    expect(sample(metrics, 'mediabot_ack_seconds_count{platform="slack"}')).toBeGreaterThanOrEqual(1);
    expect(
      sample(metrics, 'mediabot_service_request_seconds_count{method="GET",route="/api/usage"}'),
    ).toBeGreaterThanOrEqual(1);

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
      MEDIA_API_KEY_TENANTS: fake.guild.id,
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

    // A Discord-only bot opens the HTTP server too, for probes and metrics, on every interface
    // when HOST is unset (127.0.0.2 is loopback too, and no address the tests name).
    const base = `http://127.0.0.1:${httpPort(output.stdout)}`;
    expect((await get(`${base}/healthz`)).status).toBe(200);
    expect(await answers(`http://127.0.0.2:${httpPort(output.stdout)}/healthz`)).toBe(true);
    const ready = await get(`${base}/readyz`);
    expect(JSON.parse(ready.text)).toEqual({ status: "ready", checks: { store: "ok", discord: "ok" } });
    const metrics = (await get(`${base}/metrics`)).text;
    expect(sample(metrics, 'mediabot_commands_total{command="usage",outcome="ok"}')).toBe(1);
    expect(sample(metrics, 'mediabot_ack_seconds_count{platform="discord"}')).toBeGreaterThanOrEqual(1);
    expect(metrics).toContain("process_resident_memory_bytes");

    // Discord gone: the bot is alive but not ready, and says why.
    await fake.close();
    started[started.length - 1]!.fake = undefined;
    const unready = await eventually(async () => {
      const answer = await get(`${base}/readyz`);
      return answer.status === 503 ? answer : undefined;
    }, 15_000);
    expect(JSON.parse(unready.text).checks.discord).toMatch(/gateway/);
    expect((await get(`${base}/healthz`)).status).toBe(200);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);
  it("answers Discord over HTTP interactions with DISCORD_PUBLIC_KEY, without a gateway connection", async () => {
    const emu = await startEmulator();
    const fake = await startFakeDiscord();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const { child, output, exited } = run({
      MEDIA_API_URL: emu.url,
      MEDIA_API_KEY: "test-key",
      MEDIA_API_KEY_TENANTS: fake.guild.id,
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      DISCORD_TOKEN: fake.token,
      DISCORD_REST_URL: fake.restUrl,
      DISCORD_GUILD_ID: fake.guild.id,
      DISCORD_PUBLIC_KEY: fake.publicKey,
    });
    started.push({ child, emu, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      20_000,
      () => output.stdout + output.stderr,
    );
    const base = `http://127.0.0.1:${httpPort(output.stdout)}`;
    // What saving the Interactions Endpoint URL in the portal does: a signed PING, a forged request.
    await fake.setInteractionsEndpoint(`${base}/discord/interactions`);

    const interaction = await fake.sendCommand({ name: "usage" });
    const answer = await until(
      () => fake.original(interaction.id)?.embeds.find((e) => /Credits left/.test(JSON.stringify(e))),
      10_000,
      () => JSON.stringify(fake.original(interaction.id)),
    );
    expect(JSON.stringify(answer)).toContain("1000");
    // The defer came in the body of the 200 that answered Discord's POST, not by callback.
    expect(fake.interaction(interaction.id)?.http?.status).toBe(200);
    expect(fake.callbacks(interaction.id).map((c) => c.via)).toEqual(["body"]);
    expect(fake.gatewayFrames).toEqual([]);
    fake.assertNoValidationErrors();
    const ready = await get(`${base}/readyz`);
    expect(JSON.parse(ready.text)).toEqual({ status: "ready", checks: { store: "ok", discord: "ok" } });
    const metrics = (await get(`${base}/metrics`)).text;
    expect(sample(metrics, 'mediabot_ack_seconds_count{platform="discord"}')).toBe(1);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);

  it("listens only on the address HOST names", async () => {
    const fake = await startFakeDiscord();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const { child, output, exited } = run({
      MEDIA_API_URL: "http://127.0.0.1:9",
      SECRETS_KEY: "7f".repeat(32),
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      DISCORD_TOKEN: fake.token,
      DISCORD_REST_URL: fake.restUrl,
      DISCORD_GUILD_ID: fake.guild.id,
      HOST: "127.0.0.1",
    });
    started.push({ child, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      20_000,
      () => output.stdout + output.stderr,
    );
    const port = httpPort(output.stdout);
    expect((await get(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(await answers(`http://127.0.0.2:${port}/healthz`)).toBe(false);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);

  it("refuses to start when no API key could ever be used, saying what to set", async () => {
    const { output, exited } = run({ MEDIA_API_URL: "http://127.0.0.1:9", DISCORD_TOKEN: "x" });
    expect(await exited).toBe(1);
    const lines = output.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot start: .*MEDIA_API_KEY.*SECRETS_KEY/);
  });

  it("refuses a MEDIA_API_KEY the service rejects, in one line, before connecting anywhere", async () => {
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
  }, 30_000);

  it("starts with a warning when the service cannot be reached to check the key", async () => {
    const fake = await startFakeDiscord();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const { child, output, exited } = run({
      // Port 9 (discard): nothing listens there, unlike a free port another test may take meanwhile.
      MEDIA_API_URL: "http://127.0.0.1:9",
      MEDIA_API_KEY: "test-key",
      MEDIA_API_KEY_TENANTS: "*",
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      DISCORD_TOKEN: fake.token,
      DISCORD_REST_URL: fake.restUrl,
      DISCORD_GUILD_ID: fake.guild.id,
    });
    started.push({ child, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      20_000,
      () => output.stdout + output.stderr,
    );
    const warning = output.stdout.split("\n").find((l) => l.includes("could not check MEDIA_API_KEY"));
    expect(JSON.parse(warning!)).toMatchObject({ level: 40, reason: expect.stringMatching(/ECONNREFUSED/) });
    // The service's trouble in a line: no stack trace of the bot's own code.
    expect(warning).not.toContain("stack");
    // The key's check is the one question asked of the service at start: one warning, not two.
    expect(output.stdout).not.toContain("MEDIA_API_URL does not answer");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);
});

describe("npm start with a bad credential or dependency", () => {
  /** Runs the bot until it exits (with a usable key path, so the credential under test decides). */
  async function failedStart(env: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const { child, output, exited } = run({
      SECRETS_KEY: "7f".repeat(32),
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      ...env,
    });
    started.push({ child, dir });
    const code = await exited;
    return { code, ...output };
  }

  /** One line on stderr, no stack, no secret. */
  function expectOneLine(stderr: string, pattern: RegExp, ...secrets: string[]) {
    const lines = stderr.trim().split("\n");
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(stderr).not.toMatch(/\n\s+at /);
    for (const secret of secrets) expect(stderr).not.toContain(secret);
  }

  describe("each says what to fix in one line", () => {
    it("a DISCORD_SHARDS that is not auto or a range of its count", async () => {
      const { code, stderr } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        DISCORD_TOKEN: "discord-token",
        DISCORD_SHARDS: "1-2/2",
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: DISCORD_SHARDS must name shards within 0-1\/2, first to last/);
    }, 30_000);

    it("a Discord token Discord refuses", async () => {
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
    }, 30_000);

    it("a Slack bot token Slack refuses", async () => {
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
    }, 30_000);

    it("a Slack app token Slack refuses (Socket Mode)", async () => {
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
    }, 30_000);

    it("a signing secret that is not one (a token pasted in its place)", async () => {
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
    });

    it("a partial set of the Slack OAuth variables, without their secrets", async () => {
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
    });

    it("a PORT another process holds, without a stack trace in the log", async () => {
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
    }, 30_000);

    it("a SLACK_PORT (the old name, PORT unset) another process holds", async () => {
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
    }, 30_000);

    it("a HOST that is no address of this machine", async () => {
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
    }, 30_000);

    it("the placeholder MEDIA_API_URL of .env.example, with the key filled in", async () => {
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
    }, 30_000);

    it("a MEDIA_API_URL whose host does not exist", async () => {
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
    }, 30_000);

    it("a sqlite STORE_URL that cannot be opened", async () => {
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
    }, 30_000);

    it("a SLACK_API_URL where nothing listens, at once instead of half an hour of retries", async () => {
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
    }, 60_000);

    it("a SLACK_API_URL that takes the connection but never answers, within its deadline", async () => {
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
    }, 60_000);

    it("a redis that does not answer, without its password", async () => {
      const password = "hunter2-redis-password";
      const { code, stderr, stdout } = await failedStart({
        MEDIA_API_URL: "http://127.0.0.1:9",
        STORE_URL: `redis://:${password}@127.0.0.1:${await freePort()}`,
        DISCORD_TOKEN: "unused.because.the-store-comes-first",
      });
      expect(code).toBe(1);
      expectOneLine(stderr, /^Cannot start: STORE_URL: cannot reach redis at .*ECONNREFUSED/, password);
      expect(stdout).not.toContain(password);
    }, 40_000);
  });

  it("a media service that does not answer, over plain http to a remote host, only warns", async () => {
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const { child, output, exited } = run({
      // TEST-NET-1 (RFC 5737): a remote address nothing answers at.
      MEDIA_API_URL: "http://192.0.2.1",
      SECRETS_KEY: "7f".repeat(32),
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: fake.signingSecret,
      SLACK_API_URL: fake.apiUrl,
      SLACK_PORT: String(await freePort()),
    });
    started.push({ child, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      20_000,
      () => output.stdout + output.stderr,
    );
    const warnings = output.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40)
      .map((line) => line.msg);
    expect(warnings).toContainEqual(expect.stringMatching(/^MEDIA_API_URL is plain http to a remote host/));
    expect(warnings).toContainEqual(expect.stringMatching(/^MEDIA_API_URL does not answer/));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);
});

describe("npm start at LOG_LEVEL=debug", () => {
  it("logs no secret in Socket Mode, not even an API key typed into the setup form", async () => {
    const typedKey = "sk-typed-into-the-form-5e1f0c";
    const operatorKey = "test-key-of-the-operator";
    const emu = await startEmulator({ accounts: [{ apiKey: operatorKey }, { apiKey: typedKey }] });
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), "main-"));
    const secretsKey = "0f1e2d3c4b5a69780f1e2d3c4b5a69780f1e2d3c4b5a69780f1e2d3c4b5a6978";
    const { child, output, exited } = run({
      LOG_LEVEL: "debug",
      MEDIA_API_URL: emu.url,
      MEDIA_API_KEY: operatorKey,
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      SECRETS_KEY: secretsKey,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_API_URL: fake.apiUrl,
    });
    started.push({ child, emu, fake, dir });
    await until(
      () => output.stdout.includes("media bot started"),
      20_000,
      () => output.stdout + output.stderr,
    );
    await fake.socketMode.connected();

    const admin = fake.users.admin.id;
    const command = fake.payloads.slashCommand({ text: "setup", user: admin }).payload;
    await fake.socketMode.send("slash_commands", command);
    const view = await until(
      () => fake.views[0],
      10_000,
      () => output.stdout,
    );
    await fake.socketMode.send(
      "interactive",
      fake.payloads.viewSubmission({ viewId: view.id, values: { api_key: typedKey }, user: admin }).payload,
    );
    await until(
      () => fake.ephemerals().find((m) => JSON.stringify(m).includes("Settings saved")),
      10_000,
      () => JSON.stringify(fake.ephemerals()),
    );
    // The key was tried against the service, and the payloads went through the debug log.
    expect(emu.calls.some((c) => c.apiKey === typedKey)).toBe(true);
    expect(output.stdout).toContain("view_submission");

    const logged = output.stdout + output.stderr;
    for (const secret of [
      typedKey,
      operatorKey,
      secretsKey,
      fake.botToken,
      fake.appToken,
      command.response_url as string,
      command.trigger_id as string,
    ]) {
      expect(logged).not.toContain(secret);
    }
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 40_000);
});
