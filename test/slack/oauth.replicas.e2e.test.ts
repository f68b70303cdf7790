import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../fakes/media-api/index.js";
import { type FakeSlack, startFakeSlack, type Workspace } from "../fakes/slack/index.js";
import { BotProcess, freePort, until } from "../main-process.js";

/**
 * Two bot processes on one store, as replicas behind a load balancer: an install begun on one
 * may come back on the other (the state is signed with SLACK_STATE_SECRET and kept in the
 * browser's cookie, not in a process), and either then answers the workspace with its token.
 */

let emu: Emulator;
let fake: FakeSlack;
let dir: string;
const bots: { process: BotProcess; url: string }[] = [];

beforeAll(async () => {
  emu = await startEmulator();
  fake = await startFakeSlack();
  dir = mkdtempSync(join(tmpdir(), "oauth-replicas-"));
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const process = BotProcess.start({
      MEDIA_API_URL: emu.url,
      MEDIA_API_KEY: "test-key",
      MEDIA_API_KEY_TENANTS: "*",
      SECRETS_KEY: "7f".repeat(32),
      STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
      SLACK_CLIENT_ID: fake.clientId,
      SLACK_CLIENT_SECRET: fake.clientSecret,
      SLACK_STATE_SECRET: "one-state-secret-for-every-replica",
      SLACK_SIGNING_SECRET: fake.signingSecret,
      SLACK_API_URL: fake.apiUrl,
      INSTANCE_ID: `replica-${i}`,
      PORT: String(port),
    });
    bots.push({ process, url: `http://127.0.0.1:${port}` });
  }
  await Promise.all(bots.map((bot) => bot.process.ready()));
}, 60_000);

afterAll(async () => {
  await Promise.all(bots.map((bot) => bot.process.kill()));
  await fake?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `usage` from the workspace through one replica; resolves once its requester saw the answer. */
async function usage(workspace: Workspace, replica: { url: string }) {
  const before = fake.ephemerals(workspace.channelId).length;
  const answer = await fake.slashCommand(`${replica.url}/slack/events`, {
    text: "usage",
    user: workspace.userIds.requester,
    channel: workspace.channelId,
  });
  expect(answer.status).toBe(200);
  return until(
    () => fake.ephemerals(workspace.channelId)[before],
    10_000,
    () => `${bots[0]?.process.tail()}\n${bots[1]?.process.tail()}`,
  );
}

describe("Slack OAuth on two replicas", () => {
  it("completes an install begun on one replica on the other, then both answer with the workspace's token", async () => {
    const [first, second] = bots as [(typeof bots)[0], (typeof bots)[0]];
    const globex = fake.addWorkspace("Globex");
    fake.redirectUrls.push(`${second.url}/slack/oauth_redirect`);

    expect(await fake.install(`${first.url}/slack/install`, globex.id)).toMatchObject({ status: 200 });
    await usage(globex, first);
    await usage(globex, second);

    const token = fake.botTokenOf(globex.id);
    const calls = fake.calls.filter((c) => c.method !== "oauth.v2.access");
    expect(calls.filter((c) => c.token !== token || !c.answered.ok)).toEqual([]);
    expect(calls.filter((c) => c.method === "chat.postEphemeral")).toHaveLength(2);

    // Uninstalled through one replica: the other no longer answers the workspace either.
    await fake.uninstall(`${first.url}/slack/events`, globex.id);
    await until(
      () => first.process.tail().includes("Slack: installation removed"),
      10_000,
      () => first.process.tail(),
    );
    const removed = fake.calls.length;
    const answer = await fake.slashCommand(`${second.url}/slack/events`, {
      text: "usage",
      user: globex.userIds.requester,
      channel: globex.channelId,
    });
    expect(answer.status).toBe(200);
    await until(
      () => second.process.tail().includes("a request from a workspace without an installation"),
      10_000,
      () => second.process.tail(),
    );
    expect(fake.calls.slice(removed)).toEqual([]);
  });
});
