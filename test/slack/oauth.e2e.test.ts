import { createHash, createHmac } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { solidPng } from "../fakes/media-api/png.js";
import type { FakeSlack, Workspace } from "../fakes/slack/index.js";
import { sqlite } from "../store/backends.js";
import { headerOf, jobIdOf, type SlackWorld, slackWorldPerTest } from "./harness.js";

/**
 * Slack in many workspaces: Bolt's OAuth install through the bot's one HTTP server, against the
 * fake Slack, whose tokens each act for one workspace only (a call with another workspace's
 * token fails as on Slack: channel_not_found, user_not_found, invalid_trigger_id, the sign-in
 * page for a file).
 */

let fake: FakeSlack;
let world: SlackWorld;
const start = slackWorldPerTest(
  (started) => {
    world = started;
    fake = started.fake;
  },
  { oauth: true, apiKeyTenants: ["*"] },
);

const ref = (workspace: Workspace) => ({ platform: "slack" as const, workspaceId: workspace.id });

/** `/media <text>` typed by the workspace's requester in its channel. */
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
  }, 10_000);
}

/** Polls an asynchronous predicate (the store) until it gives something. */
async function eventually<T>(
  predicate: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The store's raw value, as someone holding the sqlite file would read it. */
async function rawInstallation(workspace: Workspace): Promise<string | undefined> {
  const rows = await sqlite(
    join(world.dir, "bot.sqlite"),
    "SELECT value FROM keyv WHERE key = ?",
    `installations:slack:${workspace.id}`,
  );
  return rows[0]?.value;
}

/** The Web API calls about a workspace's channel or people. */
function callsAbout(workspace: Workspace, from = 0) {
  const people = new Set(Object.values(workspace.userIds));
  return fake.calls.slice(from).filter((c) => {
    const { channel, channel_id: channelId, user } = c.args;
    return channel === workspace.channelId || channelId === workspace.channelId || people.has(String(user));
  });
}

/** A state signed with another secret than SLACK_STATE_SECRET (an HS256 JWT, as Bolt makes them). */
const signedElsewhere = (state: string) => {
  const [header, payload] = state.split(".");
  const signature = createHmac("sha256", "not-the-state-secret")
    .update(`${header}.${payload}`)
    .digest("base64url");
  return `${header}.${payload}.${signature}`;
};

describe("Slack OAuth installs", () => {
  it("installs two workspaces, stores their tokens encrypted, and answers each with its own token", async () => {
    await start();
    const acme = await world.installWorkspace("Acme");
    const globex = await world.installWorkspace("Globex");
    const tokens = new Map([acme, globex].map((w) => [w.id, fake.botTokenOf(w.id)]));

    // Bolt traded each code at oauth.v2.access, then checked the new token with auth.test.
    expect(fake.calls.map((c) => [c.method, c.answered.ok])).toEqual([
      ["oauth.v2.access", true],
      ["auth.test", true],
      ["oauth.v2.access", true],
      ["auth.test", true],
    ]);
    expect(new Set(tokens.values()).size).toBe(2);
    for (const workspace of [acme, globex]) {
      const raw = await rawInstallation(workspace);
      expect(raw).toMatch(/"installation":"v1:[\w-]+:[\w-]+:[\w-]+"/);
      expect(raw).not.toContain(tokens.get(workspace.id));
      expect(raw).not.toContain("xoxb-");
      expect((await world.stores.installations.get(ref(workspace))) as object).toMatchObject({
        team: { id: workspace.id, name: workspace.name },
        bot: { token: tokens.get(workspace.id), userId: workspace.botUserId },
      });
    }

    const installed = fake.calls.length;
    await command(acme, "image generate a fox in snow");
    await command(globex, "image generate a heron at dawn");
    const [acmeJob, globexJob] = [await finished(acme), await finished(globex)];

    expect(headerOf(acmeJob)).toMatch(/^✅ Image: a fox in snow/);
    expect(headerOf(globexJob)).toMatch(/^✅ Image: a heron at dawn/);
    for (const workspace of [acme, globex]) {
      expect(fake.uploads.filter((u) => u.channel === workspace.channelId)).toHaveLength(1);
      const calls = callsAbout(workspace, installed);
      expect(calls.map((c) => c.method)).toEqual(
        expect.arrayContaining([
          "users.info",
          "chat.postMessage",
          "chat.update",
          "files.completeUploadExternal",
        ]),
      );
      expect(calls.filter((c) => c.token !== tokens.get(workspace.id))).toEqual([]);
    }
    // Every call since the installs used one of the two tokens, and Slack accepted all of them.
    const since = fake.calls.slice(installed);
    expect(since.filter((c) => !c.answered.ok)).toEqual([]);
    expect(new Set(since.map((c) => c.token))).toEqual(new Set(tokens.values()));
  });

  it("delivers a job finished after a restart with its workspace's token", async () => {
    await start();
    await world.installWorkspace("Acme");
    const globex = await world.installWorkspace("Globex");
    world.emu.planNextJob("image", { durationMs: 1_500 });

    await command(globex, "image generate a lighthouse in a storm");
    await world.until(() => jobMessages(globex)[0]);
    await world.restart();
    const restarted = fake.calls.length;
    const done = await finished(globex);

    expect(headerOf(done)).toMatch(/^✅ Image: a lighthouse/);
    const delivery = fake.calls.slice(restarted);
    expect(delivery.map((c) => c.method)).toEqual(
      expect.arrayContaining(["chat.update", "files.completeUploadExternal", "chat.postMessage"]),
    );
    expect(delivery.filter((c) => c.token !== fake.botTokenOf(globex.id) || !c.answered.ok)).toEqual([]);
  });

  it("opens a workspace's form and downloads its attached file with that workspace's token", async () => {
    await start();
    await world.installWorkspace("Acme");
    const globex = await world.installWorkspace("Globex");
    const views = fake.views.length;
    const png = solidPng([10, 120, 200]);
    const file = fake.addUserFile(png, {
      name: "heron.png",
      mimetype: "image/png",
      user: globex.userIds.requester,
    });

    await command(globex, "image edit put a party hat on the heron");
    const view = await world.until(() => fake.views[views]);
    await fake.viewSubmission(world.eventsUrl, {
      viewId: view.id,
      values: { image: [file], prompt: "put a party hat on the heron" },
      user: globex.userIds.requester,
    });
    await finished(globex);

    // The bytes reached the service: the fake serves url_private only to the file's own workspace.
    const [finalized] = world.emu.callsTo("POST", "/api/media/finalize");
    const mediaId = (finalized?.json as { mediaId?: string } | undefined)?.mediaId ?? "";
    expect(world.emu.media(mediaId)?.sha256).toBe(createHash("sha256").update(png).digest("hex"));
    const token = fake.botTokenOf(globex.id);
    const formCalls = fake.calls.filter(
      (c) => c.method === "views.open" || (c.method === "files.info" && c.args.file === file.id),
    );
    expect(formCalls.map((c) => [c.method, c.token, c.answered.ok])).toEqual([
      ["views.open", token, true],
      ["files.info", token, true],
    ]);
  });

  it("takes a message shortcut's image in a workspace with that workspace's token", async () => {
    await start();
    await world.installWorkspace("Acme");
    const globex = await world.installWorkspace("Globex");
    const png = solidPng([200, 90, 30]);
    const file = fake.addUserFile(png, {
      name: "kite.png",
      mimetype: "image/png",
      user: globex.userIds.requester,
    });
    const posted = fake.postAsUser({
      user: globex.userIds.requester,
      channel: globex.channelId,
      files: [file],
    });
    const views = fake.views.length;

    await fake.messageShortcut(world.eventsUrl, {
      callbackId: "edit_image",
      message: posted.ts,
      user: globex.userIds.admin,
      channel: globex.channelId,
    });
    const view = await world.until(() => fake.views[views]);
    await fake.viewSubmission(world.eventsUrl, {
      viewId: view.id,
      values: { prompt: "give the kite a tail" },
      user: globex.userIds.admin,
    });
    await finished(globex);

    const [finalized] = world.emu.callsTo("POST", "/api/media/finalize");
    const mediaId = (finalized?.json as { mediaId?: string } | undefined)?.mediaId ?? "";
    expect(world.emu.media(mediaId)?.sha256).toBe(createHash("sha256").update(png).digest("hex"));
    const token = fake.botTokenOf(globex.id);
    const shortcutCalls = fake.calls.filter(
      (c) => c.method === "views.open" || (c.method === "files.info" && c.args.file === file.id),
    );
    expect(shortcutCalls.map((c) => [c.method, c.token, c.answered.ok])).toEqual([
      ["views.open", token, true],
      ["files.info", token, true],
    ]);
  });

  it("on uninstall, removes the installation and ends the workspace's jobs without calling Slack again", async () => {
    await start();
    const acme = await world.installWorkspace("Acme");
    const globex = await world.installWorkspace("Globex");
    const token = fake.botTokenOf(globex.id);
    // Long enough to be running still when the uninstall arrives, on a loaded machine too.
    world.emu.planNextJob("image", { durationMs: 2_500 });
    await command(globex, "image generate a heron at dawn");
    const jobId = jobIdOf(await world.until(() => jobMessages(globex)[0])) ?? "";

    const answers = await fake.uninstall(world.eventsUrl, globex.id);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    await eventually(async () => !(await world.stores.installations.get(ref(globex))));
    const removed = fake.calls.length;
    expect(await rawInstallation(globex)).toBeUndefined();
    expect((await world.stores.jobs.get(jobId))?.delivery).toBe("pending");

    // The job ends as not posted, saying why, once the bot gave up on the workspace.
    const job = await eventually(async () => {
      const record = await world.stores.jobs.get(jobId);
      return record?.delivery === "delivered" ? record : undefined;
    });
    expect(job).toMatchObject({
      state: "done",
      error: { code: "chat.undeliverable", message: expect.stringMatching(/removed from this workspace/) },
    });

    // Nothing more went to Slack with the revoked token; a command from there is acknowledged and
    // ignored; the other workspace goes on.
    expect(await command(globex, "usage")).toMatchObject({ status: 200 });
    await command(acme, "image generate a fox in snow");
    await finished(acme);
    expect(fake.calls.slice(removed).filter((c) => c.token === token)).toEqual([]);
  });

  it("removes the installation when only the bot token is revoked", async () => {
    await start();
    const globex = await world.installWorkspace("Globex");

    expect(await fake.revokeBotToken(world.eventsUrl, globex.id)).toMatchObject({ status: 200 });
    await eventually(async () => !(await world.stores.installations.get(ref(globex))));
  });

  it("refuses an install whose state was forged or comes from another browser, storing nothing", async () => {
    await start();
    const globex = fake.addWorkspace("Globex");

    const forged = await fake.install(world.installUrl, globex.id, { forgeState: signedElsewhere });
    const elsewhere = await fake.install(world.installUrl, globex.id, { otherBrowser: true });
    const cancelled = await fake.install(world.installUrl, globex.id, { deny: true });

    for (const refused of [forged, elsewhere]) {
      expect(refused.status).toBe(400);
      expect(refused.body).toContain("This install link has expired or was opened in another browser.");
    }
    expect(cancelled).toMatchObject({
      status: 400,
      body: expect.stringContaining("The install was cancelled"),
    });
    expect(fake.calls.filter((c) => c.method === "oauth.v2.access")).toEqual([]);
    expect(await world.stores.installations.get(ref(globex))).toBeUndefined();

    // The same browser with the genuine state installs.
    expect(await fake.install(world.installUrl, globex.id)).toMatchObject({ status: 200 });
    expect(await world.stores.installations.get(ref(globex))).toBeDefined();
  });

  it("refuses an org-wide install with a sentence that says what to do", async () => {
    await start();
    const globex = fake.addWorkspace("Globex");

    const refused = await fake.install(world.installUrl, globex.id, { orgWide: true });

    expect(refused.status).toBe(400);
    expect(refused.body).toContain(
      "an org-wide install is not supported. Install it from each workspace instead.",
    );
    expect(await world.stores.installations.get(ref(globex))).toBeUndefined();
    // Undone on Slack's side too: the token the org-wide install gave is revoked.
    const revoke = fake.calls.find((c) => c.method === "auth.revoke");
    expect(revoke).toMatchObject({ answered: { ok: true } });
    expect(fake.calls.find((c) => c.method === "oauth.v2.access")).toBeDefined();
    expect(fake.botTokenOf(globex.id)).toBeUndefined();
  });
});

describe("Slack with one bot token", () => {
  const startSingle = slackWorldPerTest((started) => {
    world = started;
  });

  it("serves no install pages", async () => {
    await startSingle();
    const base = world.eventsUrl.replace(/\/slack\/events$/, "");
    for (const path of ["/slack/install", "/slack/oauth_redirect"])
      expect((await fetch(`${base}${path}`, { redirect: "manual" })).status).toBe(404);
  });
});
