import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlack, type FakeSlackOptions, LOGIN_PAGE, startFakeSlack } from "./index.js";
import { quiet } from "./quiet-logger.js";

const fakes: FakeSlack[] = [];

afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

async function fakeSlack(opts?: FakeSlackOptions): Promise<FakeSlack> {
  const fake = await startFakeSlack(opts);
  fakes.push(fake);
  return fake;
}

function client(
  fake: FakeSlack,
  token = fake.botToken,
  options: webApi.WebClientOptions = {},
): webApi.WebClient {
  return new webApi.WebClient(token, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logger: quiet,
    ...options,
  });
}

async function refusal(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: webApi.ErrorCode.PlatformError });
  return (error as { data: Record<string, unknown> }).data;
}

const MiB = 1024 * 1024;

/** 100 MiB produced chunk by chunk, hashed on the way out, never held whole. */
function streamed(totalMiB: number): { body: Readable; sha256: () => string } {
  const hash = createHash("sha256");
  const chunk = Buffer.alloc(MiB, 7);
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent === totalMiB) return this.push(null);
      sent += 1;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { body, sha256: () => hash.digest("hex") };
}

describe("the fake Slack Web API, called by @slack/web-api's WebClient", () => {
  it("takes a streamed 100 MiB external upload in three steps and shares it in a thread", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const parent = await web.chat.postMessage({ channel: fake.channelId, text: "Your video is ready" });
    const length = 100 * MiB;

    const { upload_url, file_id } = await web.files.getUploadURLExternal({ filename: "fox.mp4", length });
    const source = streamed(100);
    const posted = await request(upload_url!, { method: "POST", body: source.body });
    const postedText = await posted.body.text();
    const completed = await web.files.completeUploadExternal({
      files: [{ id: file_id!, title: "A red fox" }],
      channel_id: fake.channelId,
      thread_ts: parent.ts!,
      initial_comment: "Here it is",
    });

    expect([posted.statusCode, postedText]).toEqual([200, `OK - ${length}`]);
    expect(completed.files).toEqual([
      expect.objectContaining({ id: file_id, title: "A red fox", size: length }),
    ]);
    expect(fake.uploads).toEqual([
      expect.objectContaining({
        fileId: file_id,
        declaredLength: length,
        received: { bytes: length, sha256: source.sha256(), format: "raw" },
        channel: fake.channelId,
        threadTs: parent.ts,
        initialComment: "Here it is",
      }),
    ]);
    const reply = fake.messages().find((m) => m.thread_ts === parent.ts);
    expect(reply).toMatchObject({
      text: "Here it is",
      upload: true,
      files: [{ id: file_id, mimetype: "video/mp4" }],
    });
    const info = await web.files.info({ file: file_id! });
    expect(info.file).toMatchObject({
      id: file_id,
      name: "fox.mp4",
      url_private_download: expect.stringContaining(`${file_id}/download/fox.mp4`),
      shares: { public: { [fake.channelId]: [{ ts: reply?.ts, thread_ts: parent.ts }] } },
    });
  });

  it("reads WebClient's own upload POST: multipart with one part named `body`", async () => {
    const fake = await fakeSlack();

    await client(fake).filesUploadV2({
      channel_id: fake.channelId,
      filename: "a.png",
      file: Buffer.alloc(4096, 1),
    });

    expect(fake.uploads[0]?.received).toMatchObject({ bytes: 4096, format: "multipart", partName: "body" });
  });

  it("refuses to complete an upload whose bytes never arrived, into an unknown channel, or twice", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const empty = await web.files.getUploadURLExternal({ filename: "x.png", length: 10 });
    const full = await web.files.getUploadURLExternal({ filename: "y.png", length: 3 });
    await request(full.upload_url!, { method: "POST", body: "abc" }).then((r) => r.body.dump());
    const files: [{ id: string }] = [{ id: full.file_id! }];

    const notUploaded = await refusal(web.files.completeUploadExternal({ files: [{ id: empty.file_id! }] }));
    const nowhere = await refusal(web.files.completeUploadExternal({ files, channel_id: "C0NOWHERE" }));
    const privately = await web.files.completeUploadExternal({ files });
    const again = await refusal(web.files.completeUploadExternal({ files }));

    expect([notUploaded.error, nowhere.error, privately.ok, again.error]).toEqual([
      "file_not_found",
      "invalid_channel",
      true,
      "file_not_found",
    ]);
    expect(fake.uploads).toEqual([expect.objectContaining({ fileId: full.file_id, channel: undefined })]);
    expect(fake.messages()).toEqual([]);
  });

  it("lets the bot post in any public channel, but share files and whisper only where it is a member", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const open = fake.addChannel("open", { botIsMember: false });
    const secret = fake.addChannel("secret", { private: true, botIsMember: false });
    const ticket = await web.files.getUploadURLExternal({ filename: "fox.png", length: 3 });
    await request(ticket.upload_url!, { method: "POST", body: "abc" }).then((r) => r.body.dump());
    const files: [{ id: string }] = [{ id: ticket.file_id! }];
    const user = fake.users.requester.id;

    const posted = await web.chat.postMessage({ channel: open, text: "hello" });
    const refused = await Promise.all([
      refusal(web.files.completeUploadExternal({ files, channel_id: open })),
      refusal(web.chat.postEphemeral({ channel: open, user, text: "psst" })),
      refusal(web.chat.postMessage({ channel: secret, text: "hello" })),
      refusal(web.conversations.join({ channel: secret })),
    ]);
    const joined = await web.conversations.join({ channel: open });
    const again = await web.conversations.join({ channel: open });
    const shared = await web.files.completeUploadExternal({ files, channel_id: open, thread_ts: posted.ts! });

    expect(refused.map((r) => r.error)).toEqual([
      "not_in_channel",
      "not_in_channel",
      "channel_not_found",
      "channel_not_found",
    ]);
    expect(joined).toMatchObject({ ok: true, channel: { id: open, is_member: true } });
    expect(joined.warning).toBeUndefined();
    expect(again.warning).toBe("already_in_channel");
    expect(shared.ok).toBe(true);
    expect(fake.uploads).toEqual([expect.objectContaining({ channel: open, threadTs: posted.ts })]);
  });

  it("opens one DM per person, where the bot posts and shares files but cannot join", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const user = fake.users.requester.id;
    const opened = await web.conversations.open({ users: user });
    const again = await web.conversations.open({ users: user });
    const dm = opened.channel!.id!;
    const refused = await Promise.all([
      refusal(web.conversations.open({ users: "U0NOBODY01" })),
      refusal(web.conversations.open({ users: `${user},${fake.users.other.id}` })),
      refusal(web.conversations.join({ channel: dm })),
    ]);
    const ticket = await web.files.getUploadURLExternal({ filename: "fox.png", length: 3 });
    await request(ticket.upload_url!, { method: "POST", body: "abc" }).then((r) => r.body.dump());
    const posted = await web.chat.postMessage({ channel: dm, text: "yours" });
    const shared = await web.files.completeUploadExternal({
      files: [{ id: ticket.file_id! }],
      channel_id: dm,
      thread_ts: posted.ts!,
    });

    expect(dm).toMatch(/^D/);
    expect(again).toMatchObject({ channel: { id: dm }, already_open: true });
    expect(refused.map((r) => r.error)).toEqual([
      "user_not_found",
      "not_supported",
      "method_not_supported_for_channel_type",
    ]);
    expect(shared.ok).toBe(true);
    expect(fake.messages(dm)[0]?.text).toBe("yours");
    expect(fake.uploads).toEqual([expect.objectContaining({ channel: dm, threadTs: posted.ts })]);
  });

  it("serves a user's file at url_private_download only with the bot token, else Slack's HTML sign-in page", async () => {
    const fake = await fakeSlack();
    const bytes = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
    const file = fake.addUserFile(bytes, { name: "selfie.png", mimetype: "image/png" });
    const streamedFile = fake.addUserFile(() => Readable.from([Buffer.from("RIFF"), Buffer.from("WAVE")]), {
      name: "voice.wav",
      mimetype: "audio/wav",
      size: 8,
    });
    const auth = { authorization: `Bearer ${fake.botToken}` };

    const withToken = await fetch(file.url_private_download, { headers: auth });
    const withoutToken = await fetch(file.url_private_download);
    const wrongToken = await fetch(file.url_private, { headers: { authorization: "Bearer xoxb-wrong" } });
    const fromStream = await fetch(streamedFile.url_private_download, { headers: auth });

    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await withToken.arrayBuffer())).toEqual(bytes);
    for (const page of [withoutToken, wrongToken]) {
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await page.text()).toBe(LOGIN_PAGE);
    }
    expect(await fromStream.text()).toBe("RIFFWAVE");
    expect((await client(fake).files.info({ file: file.id })).file).toMatchObject({
      size: 7,
      user: fake.users.requester.id,
    });
  });

  it("answers invalid_blocks like Slack for a message of 51 blocks", async () => {
    const fake = await fakeSlack();
    const blocks: KnownBlock[] = Array.from({ length: 51 }, (_, i) => ({
      type: "section",
      text: { type: "mrkdwn", text: `line ${i}` },
    }));

    const data = await refusal(
      client(fake).chat.postMessage({ channel: fake.channelId, text: "too long", blocks }),
    );

    expect(data).toMatchObject({
      ok: false,
      error: "invalid_blocks",
      errors: ["no more than 50 items allowed [json-pointer:/blocks]"],
      response_metadata: { messages: ["[ERROR] no more than 50 items allowed [json-pointer:/blocks]"] },
    });
    expect(fake.messages()).toEqual([]);
  });

  it("refuses a modal past its limits with invalid_arguments and the reasons", async () => {
    const fake = await fakeSlack();
    const triggerId = fake.payloads.slashCommand().triggerId;
    const blocks: KnownBlock[] = Array.from({ length: 101 }, () => ({ type: "divider" }));

    const data = await refusal(
      client(fake).views.open({
        trigger_id: triggerId,
        view: { type: "modal", title: { type: "plain_text", text: "A title longer than 24 chars" }, blocks },
      }),
    );

    expect(data).toMatchObject({
      error: "invalid_arguments",
      response_metadata: {
        messages: [
          "[ERROR] failed to match all allowed schemas [json-pointer:/view]",
          "[ERROR] must be less than 25 characters [json-pointer:/view/title/text]",
          "[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]",
        ],
      },
    });
  });

  it("answers 429 ratelimited with Retry-After, which the WebClient waits out before it retries", async () => {
    const fake = await fakeSlack({ rateLimitEvery: 2 });
    const waits: number[] = [];
    const web = client(fake, fake.botToken, { retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 } });
    web.on(webApi.WebClientEvent.RATE_LIMITED, (seconds: number) => waits.push(seconds));

    await web.auth.test();
    const started = Date.now();
    const posted = await web.chat.postMessage({ channel: fake.channelId, text: "after the limit" });

    expect(posted.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(waits).toEqual([1]);
    expect(fake.calls.map((c) => [c.method, c.status, c.answered.error])).toEqual([
      ["auth.test", 200, undefined],
      ["chat.postMessage", 429, "ratelimited"],
      ["chat.postMessage", 200, undefined],
    ]);
    expect(fake.messages()).toHaveLength(1);
  });

  it("surfaces the limit at once to a WebClient that rejects rate-limited calls", async () => {
    const fake = await fakeSlack({ rateLimitEvery: 1 });

    const error = await client(fake, fake.botToken, { rejectRateLimitedCalls: true })
      .auth.test()
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 1 });
  });

  it("with retries 0 the WebClient still sleeps out Retry-After, then throws a request error", async () => {
    const fake = await fakeSlack({ rateLimitEvery: 1 });
    const started = Date.now();

    const error = await client(fake)
      .auth.test()
      .catch((e: unknown) => e);

    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(error).toMatchObject({
      code: webApi.ErrorCode.RequestError,
      message: expect.stringContaining("rate limit"),
    });
  });

  it("answers Slack's errors for tokens, channels, messages, users and methods", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const { ts } = await web.chat.postMessage({ channel: fake.channelId, text: "hi" });

    const errors = await Promise.all([
      refusal(client(fake, "xoxb-not-a-token").auth.test()),
      refusal(client(fake, fake.appToken).chat.postMessage({ channel: fake.channelId, text: "x" })),
      refusal(web.apps.connections.open()),
      refusal(web.chat.postMessage({ channel: "C0NOWHERE", text: "x" })),
      refusal(web.chat.postMessage({ channel: fake.channelId, text: "" })),
      refusal(web.chat.update({ channel: fake.channelId, ts: "1700000000.000100", text: "x" })),
      refusal(web.users.info({ user: "U0NOBODY" })),
      refusal(web.files.info({ file: "F0MISSING" })),
      refusal(web.apiCall("chat.unknownMethod")),
    ]);

    expect(errors.map((e) => e.error)).toEqual([
      "invalid_auth",
      "not_allowed_token_type",
      "not_allowed_token_type",
      "channel_not_found",
      "no_text",
      "message_not_found",
      "user_not_found",
      "file_not_found",
      "unknown_method",
    ]);
    expect(ts).toMatch(/^\d{10}\.\d{6}$/);
  });

  it("fails a method on demand as often as told, changing nothing, then serves it again", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    fake.fail({ method: "chat.postMessage", error: "internal_error", times: 2 });

    const refused = [
      await refusal(web.chat.postMessage({ channel: fake.channelId, text: "one" })),
      await refusal(web.chat.postMessage({ channel: fake.channelId, text: "two" })),
    ];
    const posted = await web.chat.postMessage({ channel: fake.channelId, text: "three" });

    expect(refused.map((r) => r.error)).toEqual(["internal_error", "internal_error"]);
    expect(posted.ok).toBe(true);
    expect(fake.messages().map((m) => m.text)).toEqual(["three"]);
  });

  it("takes JSON bodies with a Bearer header and form bodies with the token inside, as Slack does", async () => {
    const fake = await fakeSlack();
    const post = (init: RequestInit) => fetch(`${fake.apiUrl}chat.postMessage`, { method: "POST", ...init });

    const json = await post({
      headers: { authorization: `Bearer ${fake.botToken}`, "content-type": "application/json" },
      body: JSON.stringify({ channel: fake.channelId, text: "json", blocks: [{ type: "divider" }] }),
    });
    const form = await post({
      body: new URLSearchParams({ token: fake.botToken, channel: fake.channelId, text: "form" }),
    });

    expect([await json.json(), await form.json()]).toEqual([
      expect.objectContaining({
        ok: true,
        message: expect.objectContaining({ blocks: [{ type: "divider" }] }),
      }),
      expect.objectContaining({ ok: true }),
    ]);
    expect(fake.messages().map((m) => m.text)).toEqual(["json", "form"]);
  });

  it("updates a view by id or external_id and refuses a stale hash", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const view = (text: string) => ({
      type: "modal" as const,
      external_id: "job-7",
      title: { type: "plain_text" as const, text },
      blocks: [],
    });
    const opened = await web.views.open({
      trigger_id: fake.payloads.slashCommand().triggerId,
      view: view("Queued"),
    });
    const id = opened.view!.id!;

    const updated = await web.views.update({ view_id: id, hash: opened.view!.hash!, view: view("Working") });
    const stale = await refusal(
      web.views.update({ view_id: id, hash: opened.view!.hash!, view: view("Late") }),
    );
    const byExternalId = await web.views.update({ external_id: "job-7", view: view("Done") });
    const missing = await refusal(web.views.update({ view_id: "V0MISSING", view: view("x") }));

    expect(updated.view).toMatchObject({ id, title: { text: "Working" } });
    expect(updated.view?.hash).not.toBe(opened.view?.hash);
    expect([stale.error, missing.error]).toEqual(["hash_conflict", "not_found"]);
    expect(byExternalId.view).toMatchObject({ id, title: { text: "Done" } });
    expect(fake.views).toEqual([
      expect.objectContaining({ id, title: { type: "plain_text", text: "Done" }, open: true }),
    ]);
  });

  it("tells admins from members in users.info and keeps ephemeral messages apart", async () => {
    const fake = await fakeSlack();
    const web = client(fake);

    const [admin, member] = await Promise.all([
      web.users.info({ user: fake.users.admin.id }),
      web.users.info({ user: fake.users.requester.id }),
    ]);
    const ephemeral = await web.chat.postEphemeral({
      channel: fake.channelId,
      user: fake.users.other.id,
      text: "psst",
    });

    expect(admin.user).toMatchObject({ is_admin: true, is_owner: true, is_bot: false });
    expect(member.user).toMatchObject({ is_admin: false, is_owner: false });
    expect(fake.ephemerals()).toEqual([
      expect.objectContaining({ user: fake.users.other.id, text: "psst", message_ts: ephemeral.message_ts }),
    ]);
    expect(fake.messages()).toEqual([]);
  });

  it("lets each workspace's token see only its own workspace, and refuses a revoked one", async () => {
    const fake = await fakeSlack();
    const globex = fake.addWorkspace("Globex");
    const token = await installedToken(fake, globex.id);
    const [home, away] = [client(fake), client(fake, token)];

    expect(await away.auth.test()).toMatchObject({ team_id: globex.id, user_id: globex.botUserId });
    await away.chat.postMessage({ channel: globex.channelId, text: "hello" });
    expect(fake.messages(globex.channelId)).toEqual([
      expect.objectContaining({ team: globex.id, user: globex.botUserId, text: "hello" }),
    ]);
    expect(await refusal(home.chat.postMessage({ channel: globex.channelId, text: "x" }))).toMatchObject({
      error: "channel_not_found",
    });
    expect(await refusal(away.users.info({ user: fake.users.requester.id }))).toMatchObject({
      error: "user_not_found",
    });
    const file = fake.addUserFile(Buffer.from("hi"), { name: "a.txt", mimetype: "text/plain" });
    expect(await refusal(away.files.info({ file: file.id }))).toMatchObject({ error: "file_not_found" });
    const download = await request(file.url_private_download, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await download.body.text()).toBe(LOGIN_PAGE);

    expect(await away.auth.revoke()).toMatchObject({ ok: true, revoked: true });
    expect(await refusal(away.auth.test())).toMatchObject({ error: "token_revoked" });
    expect(await home.auth.test()).toMatchObject({ team_id: fake.teamId });
  });

  it("trades an install's code once at oauth.v2.access, for the app holding the client secret", async () => {
    const fake = await fakeSlack();
    const globex = fake.addWorkspace("Globex");
    const code = await consentCode(fake, globex.id);
    const anonymous = client(fake, "");
    const args = { client_id: fake.clientId, client_secret: fake.clientSecret, code };

    expect(
      await refusal(anonymous.oauth.v2.access({ ...args, client_secret: "0".repeat(32) })),
    ).toMatchObject({ error: "bad_client_secret" });
    const granted = await anonymous.oauth.v2.access(args);
    expect(granted).toMatchObject({
      ok: true,
      token_type: "bot",
      access_token: fake.botTokenOf(globex.id),
      bot_user_id: globex.botUserId,
      team: { id: globex.id, name: "Globex" },
      is_enterprise_install: false,
      scope: "commands,chat:write",
    });
    expect(await refusal(anonymous.oauth.v2.access(args))).toMatchObject({ error: "invalid_code" });
  });
});

/** The consent page's code for `teamId`, as the app's redirect would receive it. */
async function consentCode(fake: FakeSlack, teamId: string): Promise<string> {
  fake.redirectUrls.splice(0, Infinity, "https://bot.example/slack/oauth_redirect");
  const url = new URL("../oauth/v2/authorize", fake.apiUrl);
  url.search = new URLSearchParams({
    client_id: fake.clientId,
    scope: "commands,chat:write",
    state: "s1",
  }).toString();
  const consent = await fetch(url, { redirect: "manual", headers: { cookie: `fake-slack-team=${teamId}` } });
  const back = new URL(consent.headers.get("location") ?? "");
  expect(back.origin + back.pathname).toBe("https://bot.example/slack/oauth_redirect");
  expect(back.searchParams.get("state")).toBe("s1");
  return back.searchParams.get("code") ?? "";
}

async function installedToken(fake: FakeSlack, teamId: string): Promise<string> {
  const code = await consentCode(fake, teamId);
  const granted = await client(fake, "").oauth.v2.access({
    client_id: fake.clientId,
    client_secret: fake.clientSecret,
    code,
  });
  return String(granted.access_token);
}

describe("conversations.history and conversations.replies", () => {
  it("find a post by its metadata, shown only to those who ask for it, newest first and paged", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const channel = fake.channelId;
    const first = await web.chat.postMessage({ channel, text: "before" });
    const keyed = await web.chat.postMessage({
      channel,
      text: "notice",
      metadata: { event_type: "media_bot_post", event_payload: { key: "post:1" } },
    });
    await web.chat.postMessage({ channel, text: "in the thread", thread_ts: keyed.ts! });

    const plain = await web.conversations.history({ channel });
    expect(plain.messages?.map((m) => m.text)).toEqual(["notice", "before"]);
    expect(plain.messages?.[0]).not.toHaveProperty("metadata");

    const since = await web.conversations.history({ channel, oldest: first.ts!, include_all_metadata: true });
    expect(since.messages).toEqual([
      expect.objectContaining({
        ts: keyed.ts,
        metadata: { event_type: "media_bot_post", event_payload: { key: "post:1" } },
      }),
    ]);

    const page1 = await web.conversations.history({ channel, limit: 1 });
    expect(page1.messages?.map((m) => m.text)).toEqual(["notice"]);
    const page2 = await web.conversations.history({
      channel,
      limit: 1,
      cursor: page1.response_metadata?.next_cursor ?? "",
    });
    expect(page2.messages?.map((m) => m.text)).toEqual(["before"]);
    expect(page2.has_more).toBe(false);

    const thread = await web.conversations.replies({ channel, ts: keyed.ts! });
    expect(thread.messages?.map((m) => m.text)).toEqual(["notice", "in the thread"]);
  });

  it("refuse a conversation the bot is not in, and malformed metadata", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const open = fake.addChannel("open", { botIsMember: false });
    expect(await refusal(web.conversations.history({ channel: open }))).toMatchObject({
      error: "not_in_channel",
    });
    expect(
      await refusal(
        web.chat.postMessage({
          channel: fake.channelId,
          text: "x",
          metadata: { event_type: "x" } as never,
        }),
      ),
    ).toMatchObject({ error: "invalid_metadata_format" });
  });
});
