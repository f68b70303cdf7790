import { webApi } from "@slack/bolt";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import documented from "./documented.json" with { type: "json" };
import {
  type FakeSlack,
  type FakeSlackOptions,
  POST_BURST,
  startFakeSlack,
  TIER_PER_MINUTE,
} from "./index.js";
import { quiet } from "./quiet-logger.js";

/**
 * What the fake refuses as Slack documents it: rate tiers per method and workspace, admins'
 * upload restrictions, files still being processed, the history limits of apps outside the
 * Marketplace, and rotating tokens that expire.
 */

const fakes: FakeSlack[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

async function fakeSlack(opts?: FakeSlackOptions): Promise<FakeSlack> {
  const fake = await startFakeSlack(opts);
  fakes.push(fake);
  return fake;
}

/** A WebClient that neither retries nor waits: each call is one request, a 429 comes back at once. */
function client(fake: FakeSlack, token = fake.botToken): webApi.WebClient {
  return new webApi.WebClient(token, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: quiet,
  });
}

const errorOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: unknown) => e as { code?: string; retryAfter?: number; data?: { error?: string } },
  );

/** Uploads bytes under `filename` and shares them in the channel; resolves with the file id. */
async function upload(web: webApi.WebClient, fake: FakeSlack, filename: string, bytes = 10): Promise<string> {
  const ticket = await web.files.getUploadURLExternal({ filename, length: bytes });
  await (await request(ticket.upload_url!, { method: "POST", body: Buffer.alloc(bytes, 1) })).body.text();
  await web.files.completeUploadExternal({ files: [{ id: ticket.file_id! }], channel_id: fake.channelId });
  return ticket.file_id!;
}

/** Another workspace installs the app through OAuth (consent page, then oauth.v2.access). */
async function installed(fake: FakeSlack) {
  const away = fake.addWorkspace("Away");
  fake.redirectUrls.push("http://127.0.0.1:1/slack/oauth_redirect");
  const consent = await fetch(
    `${fake.apiUrl}../oauth/v2/authorize?client_id=${fake.clientId}&scope=chat:write`,
    {
      redirect: "manual",
      headers: { cookie: `fake-slack-team=${away.id}` },
    },
  );
  const code = new URL(consent.headers.get("location")!).searchParams.get("code")!;
  const anonymous = new webApi.WebClient(undefined, { slackApiUrl: fake.apiUrl, logger: quiet });
  const app = { client_id: fake.clientId, client_secret: fake.clientSecret };
  const access = await anonymous.oauth.v2.access({ ...app, code });
  return { away, access, anonymous, app, web: client(fake, access.access_token) };
}

describe("rate tiers", () => {
  it("holds each method to its tier per workspace, answering 429 with the seconds until the minute frees", async () => {
    const fake = await fakeSlack({ tiers: { minuteMs: 60_000 } });
    const web = client(fake);
    const { ts } = await web.chat.postMessage({ channel: fake.channelId, text: "job" });
    const tier3 = TIER_PER_MINUTE[3]!;

    for (let i = 0; i < tier3; i++)
      await web.chat.update({ channel: fake.channelId, ts: ts!, text: `${i}%` });
    const refused = await errorOf(web.chat.update({ channel: fake.channelId, ts: ts!, text: "too many" }));
    // Another method of the same workspace is not held by chat.update's limit.
    const other = await web.chat.postEphemeral({
      channel: fake.channelId,
      user: fake.users.requester.id,
      text: "still here",
    });

    expect(documented.methods["chat.update"].tier).toBe(3);
    expect(refused).toMatchObject({ code: webApi.ErrorCode.RateLimitedError });
    expect(refused?.retryAfter).toBeGreaterThanOrEqual(59);
    expect(fake.calls.at(-2)).toMatchObject({
      method: "chat.update",
      status: 429,
      answered: { error: "ratelimited" },
    });
    expect(other.ok).toBe(true);
    expect(fake.messages()[0]?.text).toBe(`${tier3 - 1}%`);
  });

  it("counts each workspace apart", async () => {
    const fake = await fakeSlack({ tiers: { minuteMs: 60_000 } });
    const { web: away } = await installed(fake);
    const web = client(fake);
    for (let i = 0; i < TIER_PER_MINUTE[2]!; i++) await web.usergroups.list();

    expect(await errorOf(web.usergroups.list())).toMatchObject({ code: webApi.ErrorCode.RateLimitedError });
    expect((await away.usergroups.list()).ok).toBe(true);
  });

  it("lets chat.postMessage post about once a second per channel, in short bursts", async () => {
    const fake = await fakeSlack({ tiers: { minuteMs: 60_000 } });
    const web = client(fake);
    const other = fake.addChannel("other");

    for (let i = 0; i < POST_BURST.messages; i++)
      await web.chat.postMessage({ channel: fake.channelId, text: `${i}` });
    const refused = await errorOf(web.chat.postMessage({ channel: fake.channelId, text: "one more" }));
    const elsewhere = await web.chat.postMessage({ channel: other, text: "another channel" });

    expect(refused).toMatchObject({ code: webApi.ErrorCode.RateLimitedError });
    expect(refused?.retryAfter).toBeLessThanOrEqual(POST_BURST.seconds);
    expect(elsewhere.ok).toBe(true);
  });

  it("compresses the minute for tests", async () => {
    const fake = await fakeSlack({ tiers: { minuteMs: 600 } });
    const web = client(fake);
    for (let i = 0; i < TIER_PER_MINUTE[2]!; i++) await web.usergroups.list();
    expect(await errorOf(web.usergroups.list())).toMatchObject({ code: webApi.ErrorCode.RateLimitedError });
    await new Promise((resolve) => setTimeout(resolve, 650));
    expect((await web.usergroups.list()).ok).toBe(true);
  });

  it("answers a storm on one method with 429 until it ends, changing nothing, while the other methods work", async () => {
    const fake = await fakeSlack();
    const web = client(fake);
    const { ts } = await web.chat.postMessage({ channel: fake.channelId, text: "before" });
    fake.rateLimit("chat.update", { forMs: 2_500 });

    const refused = await errorOf(web.chat.update({ channel: fake.channelId, ts: ts!, text: "after" }));
    const posted = await web.chat.postMessage({ channel: fake.channelId, text: "a result" });

    expect(refused).toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 3 });
    expect(posted.ok).toBe(true);
    expect(fake.messages()[0]?.text).toBe("before");
  });
});

describe("admins' upload restrictions", () => {
  it.each([
    [{ disabled: true }, "photo.png", "file_uploads_disabled"],
    [{ imagesOnly: true }, "clip.mp4", "file_uploads_except_images_disabled"],
    [{ allowedTypes: ["pdf"] }, "photo.png", "file_type_not_allowed"],
    [{ maxBytes: 5 }, "photo.png", "file_upload_size_restricted"],
    [{ storageFull: true }, "photo.png", "storage_limit_reached"],
  ])("%o refuses %s with %s at files.getUploadURLExternal", async (policy, filename, code) => {
    const fake = await fakeSlack();
    fake.restrictUploads(policy);
    const refused = await errorOf(client(fake).files.getUploadURLExternal({ filename, length: 10 }));

    expect(refused?.data?.error).toBe(code);
    expect(documented.methods["files.getUploadURLExternal"].errors).toContain(code);
  });

  it("lets images through where only images are allowed, and refuses a restriction set mid-upload at completion", async () => {
    const fake = await fakeSlack();
    fake.restrictUploads({ imagesOnly: true });
    const web = client(fake);
    expect(await upload(web, fake, "photo.png")).toMatch(/^F/);

    const ticket = await web.files.getUploadURLExternal({ filename: "photo.png", length: 3 });
    await (await request(ticket.upload_url!, { method: "POST", body: Buffer.alloc(3) })).body.text();
    fake.restrictUploads({ allowedTypes: ["pdf"] });
    const refused = await errorOf(
      web.files.completeUploadExternal({ files: [{ id: ticket.file_id! }], channel_id: fake.channelId }),
    );
    expect(refused?.data?.error).toBe("file_type_not_allowed");
  });
});

describe("files Slack is still processing", () => {
  it("are shown without a mimetype by files.info and refused in image blocks until processed", async () => {
    const fake = await fakeSlack({ fileProcessingMs: 300 });
    const web = client(fake);
    const id = await upload(web, fake, "photo.png");
    const image = [{ type: "image" as const, alt_text: "photo", slack_file: { id } }];

    const early = await web.files.info({ file: id });
    const refused = await errorOf(
      web.chat.postMessage({ channel: fake.channelId, text: "x", blocks: image }),
    );
    await new Promise((resolve) => setTimeout(resolve, 350));
    const later = await web.files.info({ file: id });
    const shown = await web.chat.postMessage({ channel: fake.channelId, text: "x", blocks: image });

    expect(early.file?.mimetype).toBe("");
    expect(refused?.data).toMatchObject({ error: "invalid_blocks" });
    expect(later.file?.mimetype).toBe("image/png");
    expect(shown.ok).toBe(true);
  });
});

describe("apps distributed outside the Slack Marketplace", () => {
  it("read history 15 messages a page, one call a minute, in workspaces that installed them through OAuth", async () => {
    const fake = await fakeSlack({ tiers: { minuteMs: 60_000 } });
    const { away, web } = await installed(fake);
    for (let i = 0; i < 20; i++) fake.postAsUser({ channel: away.channelId, user: away.userIds.requester });

    const first = await web.conversations.history({ channel: away.channelId, limit: 200 });
    const second = await errorOf(web.conversations.history({ channel: away.channelId }));
    const own = await client(fake).conversations.history({ channel: fake.channelId, limit: 200 });

    expect(first.messages).toHaveLength(15);
    expect(second).toMatchObject({ code: webApi.ErrorCode.RateLimitedError });
    expect(own.ok).toBe(true);
  });

  it("keep Tier 3 and the large pages once approved for the Marketplace", async () => {
    const fake = await fakeSlack({ tiers: { minuteMs: 60_000 } });
    fake.approveForMarketplace();
    const { away, web } = await installed(fake);
    for (let i = 0; i < 20; i++) fake.postAsUser({ channel: away.channelId, user: away.userIds.requester });

    expect((await web.conversations.history({ channel: away.channelId, limit: 200 })).messages).toHaveLength(
      20,
    );
    expect((await web.conversations.history({ channel: away.channelId })).ok).toBe(true);
  });
});

describe("token rotation", () => {
  it("issues expiring tokens with a refresh token, answers token_expired after, and trades each refresh token once", async () => {
    const fake = await fakeSlack({ tokenRotation: {} });
    const { away, anonymous, app, access } = await installed(fake);

    expect(access).toMatchObject({
      access_token: expect.stringMatching(/^xoxe\.xoxb-/),
      expires_in: 43_200,
    });
    expect(access.refresh_token).toMatch(/^xoxe-1-/);
    expect((await client(fake, access.access_token).auth.test()).team_id).toBe(away.id);

    fake.expireToken(away.id);
    const expired = await errorOf(client(fake, access.access_token).auth.test());
    const renewed = await anonymous.oauth.v2.access({
      ...app,
      grant_type: "refresh_token",
      refresh_token: access.refresh_token!,
    });
    const again = await errorOf(
      anonymous.oauth.v2.access({
        ...app,
        grant_type: "refresh_token",
        refresh_token: access.refresh_token!,
      }),
    );

    expect(expired?.data?.error).toBe("token_expired");
    expect(renewed.access_token).not.toBe(access.access_token);
    expect(renewed.refresh_token).not.toBe(access.refresh_token);
    expect((await client(fake, renewed.access_token).auth.test()).ok).toBe(true);
    expect(again?.data?.error).toBe("invalid_refresh_token");
    expect(documented.methods["oauth.v2.access"].errors).toContain("invalid_refresh_token");
    expect(documented.common).toContain("token_expired");
  });
});
