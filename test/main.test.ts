import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeDiscord } from "./fakes/discord/index.js";
import { startEmulator } from "./fakes/media-api/index.js";
import { startFakeSlack } from "./fakes/slack/index.js";
import { freePort, until } from "./main-process.js";
import { answers, get, httpPort, run, sample, started, stopStarted, TEST_MS, WAIT_MS } from "./npm-start.js";

/** `npm start` with what it needs: it starts, answers on each platform, and only warns where it can go on. */

afterEach(stopStarted);

describe("npm start", () => {
  it(
    "installs Slack in a workspace through /slack/install and answers it with that workspace's token",
    async () => {
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
        WAIT_MS,
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
        WAIT_MS,
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
    },
    TEST_MS,
  );

  it(
    "answers /media on Slack with the service's figures, then stops cleanly on SIGTERM",
    async () => {
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
        WAIT_MS,
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
        WAIT_MS,
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
    },
    TEST_MS,
  );

  it(
    "logs into Discord, registers the commands and answers /usage, then stops cleanly",
    async () => {
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
        WAIT_MS,
        () => output.stdout + output.stderr,
      );
      expect(fake.commands(fake.guild.id).map((c) => c.name)).toContain("usage");

      const interaction = await fake.sendCommand({ name: "usage" });
      const answer = await until(
        () => fake.original(interaction.id)?.embeds.find((e) => /Credits left/.test(JSON.stringify(e))),
        WAIT_MS,
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
      const unready = await until(
        async () => {
          const answer = await get(`${base}/readyz`);
          return answer.status === 503 ? answer : undefined;
        },
        WAIT_MS,
        () => "/readyz to say 503 once Discord is gone",
      );
      expect(JSON.parse(unready.text).checks.discord).toMatch(/gateway/);
      expect((await get(`${base}/healthz`)).status).toBe(200);

      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    },
    TEST_MS,
  );

  it(
    "answers Discord over HTTP interactions with DISCORD_PUBLIC_KEY, without a gateway connection",
    async () => {
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
        WAIT_MS,
        () => output.stdout + output.stderr,
      );
      const base = `http://127.0.0.1:${httpPort(output.stdout)}`;
      // What saving the Interactions Endpoint URL in the portal does: a signed PING, a forged request.
      await fake.setInteractionsEndpoint(`${base}/discord/interactions`);

      const interaction = await fake.sendCommand({ name: "usage" });
      const answer = await until(
        () => fake.original(interaction.id)?.embeds.find((e) => /Credits left/.test(JSON.stringify(e))),
        WAIT_MS,
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
    },
    TEST_MS,
  );

  it(
    "listens only on the address HOST names",
    async () => {
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
        WAIT_MS,
        () => output.stdout + output.stderr,
      );
      const port = httpPort(output.stdout);
      expect((await get(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(await answers(`http://127.0.0.2:${port}/healthz`)).toBe(false);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    },
    TEST_MS,
  );

  it(
    "starts with a warning when the service cannot be reached to check the key",
    async () => {
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
        WAIT_MS,
        () => output.stdout + output.stderr,
      );
      const warning = output.stdout.split("\n").find((l) => l.includes("could not check MEDIA_API_KEY"));
      expect(JSON.parse(warning!)).toMatchObject({
        level: 40,
        reason: expect.stringMatching(/ECONNREFUSED/),
      });
      // The service's trouble in a line: no stack trace of the bot's own code.
      expect(warning).not.toContain("stack");
      // The key's check is the one question asked of the service at start: one warning, not two.
      expect(output.stdout).not.toContain("MEDIA_API_URL does not answer");
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    },
    TEST_MS,
  );

  it(
    "a media service that does not answer, over plain http to a remote host, only warns",
    async () => {
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
        WAIT_MS,
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
    },
    TEST_MS,
  );
});

describe("npm start at LOG_LEVEL=debug", () => {
  it(
    "logs no secret in Socket Mode, not even an API key typed into the setup form",
    async () => {
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
        WAIT_MS,
        () => output.stdout + output.stderr,
      );
      await fake.socketMode.connected();

      const admin = fake.users.admin.id;
      const command = fake.payloads.slashCommand({ text: "setup", user: admin }).payload;
      await fake.socketMode.send("slash_commands", command);
      const view = await until(
        () => fake.views[0],
        WAIT_MS,
        () => output.stdout,
      );
      await fake.socketMode.send(
        "interactive",
        fake.payloads.viewSubmission({ viewId: view.id, values: { api_key: typedKey }, user: admin }).payload,
      );
      await until(
        () => fake.ephemerals().find((m) => JSON.stringify(m).includes("Settings saved")),
        WAIT_MS,
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
    },
    TEST_MS,
  );
});
