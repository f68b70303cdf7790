import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/core/base/log.js";
import type { FakeSlack, Workspace } from "../fakes/slack/index.js";
import { sqlite } from "../store/backends.js";
import { FAKE_SLACK, headerOf, jobIdOf, type SlackWorld, shown, slackWorldPerTest } from "./harness.js";

/**
 * Token rotation, on for the app (it cannot be turned off once on): every OAuth install gets an
 * access token of 12 hours and a refresh token. The bot renews a token before it runs out, and
 * when Slack answers token_expired it renews it and makes the call once more, so that a job
 * running across the expiry still reaches its person once. Refresh tokens are kept encrypted
 * with the installation and never logged.
 */

const lines: string[] = [];
const logger = createLogger({
  level: "debug",
  destination: new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  }),
});

let fake: FakeSlack;
let world: SlackWorld;
const start = slackWorldPerTest(
  (started) => {
    world = started;
    fake = started.fake;
    lines.length = 0;
  },
  { oauth: true, apiKeyTenants: ["*"], logger },
  { ...FAKE_SLACK, tokenRotation: {} },
);

function command(workspace: Workspace, text: string) {
  return fake.slashCommand(world.eventsUrl, {
    text,
    user: workspace.userIds.requester,
    channel: workspace.channelId,
  });
}

const jobMessages = (workspace: Workspace) =>
  fake.messages(workspace.channelId).filter((m) => m.thread_ts === undefined && jobIdOf(m));

/** The workspace's job message once its job ended and the requester was told. */
function finished(workspace: Workspace) {
  return world.until(() => {
    const [job] = jobMessages(workspace);
    const notified = fake.messages(workspace.channelId).some((m) => !jobIdOf(m) && m.text.includes("<@"));
    return job && notified && headerOf(job)?.startsWith("✅") ? job : undefined;
  }, 15_000);
}

const refreshes = () =>
  fake.calls.filter((c) => c.method === "oauth.v2.access" && c.args.grant_type === "refresh_token");

async function rawInstallation(workspace: Workspace): Promise<string | undefined> {
  const rows = await sqlite(
    join(world.dir, "bot.sqlite"),
    "SELECT value FROM keyv WHERE key = ?",
    `installations:slack:${workspace.id}`,
  );
  return rows[0]?.value;
}

describe("a rotating token that expires while a job runs", () => {
  it("is renewed once, the refused call made once more, and the result reaches the person once", async () => {
    await start();
    const globex = await world.installWorkspace("Globex");
    const installed = fake.botTokenOf(globex.id)!;
    world.emu.planNextJob("image", { durationMs: 1_500 });
    await command(globex, "image generate a tide that turns");
    const job = await world.until(() => {
      const [message] = jobMessages(globex);
      return message && shown(message).includes("Working") ? message : undefined;
    });

    const before = fake.calls.length;
    fake.expireToken(globex.id);
    const done = await finished(globex);

    const renewed = fake.botTokenOf(globex.id)!;
    expect(renewed).not.toBe(installed);
    expect(refreshes()).toHaveLength(1);
    expect(refreshes()[0]?.answered.ok).toBe(true);
    // Slack refused the expired token; each refused call was made once more with the new one.
    const since = fake.calls.slice(before);
    const expired = since.filter((c) => c.answered.error === "token_expired");
    expect(expired.length).toBeGreaterThan(0);
    for (const call of expired) expect(call.token).toBe(installed);
    const afterRenewal = since.filter((c) => c.at > refreshes()[0]!.at && c.method !== "oauth.v2.access");
    expect(afterRenewal.length).toBeGreaterThan(0);
    expect(afterRenewal.filter((c) => c.token !== renewed)).toEqual([]);
    // Once: one message, one file in its thread, one notice.
    expect(headerOf(done)).toBe("✅ Image: a tide that turns");
    expect(jobMessages(globex)).toHaveLength(1);
    expect(fake.uploads.filter((u) => u.threadTs === job.ts)).toHaveLength(1);
    expect(fake.messages(globex.channelId).filter((m) => !jobIdOf(m) && m.text.includes("<@"))).toHaveLength(
      1,
    );

    // The new pair is kept encrypted with the installation, and neither token shows in the logs.
    const stored = (await world.stores.installations.get({ platform: "slack", workspaceId: globex.id })) as {
      bot: { token: string; refreshToken: string; expiresAt: number };
    };
    expect(stored.bot.token).toBe(renewed);
    expect(stored.bot.refreshToken).toMatch(/^xoxe-1-/);
    expect(stored.bot.expiresAt * 1000).toBeGreaterThan(Date.now() + 11 * 60 * 60_000);
    const raw = await rawInstallation(globex);
    for (const secret of [installed, renewed, stored.bot.refreshToken]) {
      expect(raw).not.toContain(secret);
      expect(lines.join("")).not.toContain(secret);
    }
    expect(lines.join("")).not.toMatch(/xoxe-1-[0-9a-f]/);
  });
});

describe("a rotating token near the end of its 12 hours", () => {
  it("is renewed before Slack refuses it: no call is answered token_expired, for commands or deliveries", async () => {
    await start();
    // Installed with a token of one hour: within the bot's two hours of renewal.
    fake.rotateTokens(60 * 60);
    const globex = await world.installWorkspace("Globex");
    fake.rotateTokens();
    const installed = fake.botTokenOf(globex.id)!;

    await command(globex, "image generate a fresh tide");
    await finished(globex);

    expect(refreshes()).toHaveLength(1);
    expect(fake.calls.filter((c) => c.answered.error === "token_expired")).toEqual([]);
    const renewal = refreshes()[0]!;
    const bot = fake.calls.filter((c) => c.at > renewal.at && c.method !== "oauth.v2.access");
    expect(bot.length).toBeGreaterThan(0);
    expect(bot.filter((c) => c.token === installed)).toEqual([]);
  });
});
