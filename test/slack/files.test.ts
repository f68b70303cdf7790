import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { webApi } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SlackFileError, userFile } from "../../src/slack/files.js";
import { boltLogger } from "../../src/slack/log.js";
import { type SlackCall, uploadFile } from "../../src/slack/upload.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { silent } from "./harness.js";

let fake: FakeSlack;

beforeEach(async () => {
  fake = await startFakeSlack();
});

afterEach(async () => {
  await fake.close();
});

/** The bot's own logging path, silenced: Slack's expected refusals are not noise in the output. */
const quiet = boltLogger(silent);

const client = (token = fake.botToken) =>
  new webApi.WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, logger: quiet });

async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("files people attach", () => {
  it("are described by files.info and streamed from url_private_download with the bot token", async () => {
    const bytes = Buffer.from("fake png bytes");
    const file = fake.addUserFile(bytes, { name: "fox.png", mimetype: "image/png" });

    const attachment = await userFile(client(), file.id);

    expect(attachment).toMatchObject({ name: "fox.png", contentType: "image/png", size: bytes.length });
    expect(await read(await attachment.open())).toEqual(bytes);
  });

  it("turn Slack's sign-in page into a clear error instead of passing HTML on as the image", async () => {
    const file = fake.addUserFile(Buffer.from("png"), { name: "fox.png", mimetype: "image/png" });
    // A token Slack does not accept for files (the app lacks files:read): files.info itself
    // answers, as it would for the real token, but the download gets the sign-in page.
    const web = client("xoxb-without-files-read");
    vi.spyOn(web.files, "info").mockResolvedValue({ ok: true, file });

    const attachment = await userFile(web, file.id);
    const error = await attachment.open().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SlackFileError);
    expect(error).toMatchObject({
      code: "upload.slack_file",
      userMessage: expect.stringContaining('Slack sent a sign-in page instead of "fox.png"'),
    });
  });

  it("a file gone before the bot read it (404) or served as the sign-in page is a clear error", async () => {
    const gone = fake.addUserFile(Buffer.from("png"), {
      name: "gone.png",
      mimetype: "image/png",
      download: 404,
    });
    const page = fake.addUserFile(Buffer.from("png"), {
      name: "page.png",
      mimetype: "image/png",
      download: "sign-in-page",
    });

    const goneError = await (await userFile(client(), gone.id)).open().catch((e: unknown) => e);
    const pageError = await (await userFile(client(), page.id)).open().catch((e: unknown) => e);

    expect(goneError).toMatchObject({
      code: "upload.slack_file",
      userMessage: 'Slack did not hand over "gone.png" (HTTP 404). Attach it again.',
    });
    expect(pageError).toMatchObject({
      code: "upload.slack_file",
      userMessage: expect.stringContaining('Slack sent a sign-in page instead of "page.png"'),
    });
  });
});

/** Each Web API call of the upload made straight with the client, neither paced nor judged. */
const direct = (): SlackCall => (_method, call) => call(client());

describe("uploadFile", () => {
  it("uploads in three steps into a thread, streaming the bytes raw", async () => {
    const parent = await client().chat.postMessage({ channel: fake.channelId, text: "Your image" });
    const bytes = Buffer.alloc(300_000, 9);

    const id = await uploadFile(
      direct(),
      {
        name: "fox.png",
        contentType: "image/png",
        size: bytes.length,
        open: async () => Readable.from([bytes]),
      },
      { channelId: fake.channelId, threadTs: parent.ts! },
    );

    expect(fake.calls.map((c) => c.method)).toEqual([
      "chat.postMessage",
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
    expect(fake.calls[1]?.args).toMatchObject({ filename: "fox.png", length: String(bytes.length) });
    expect(fake.uploads).toEqual([
      expect.objectContaining({
        fileId: id,
        threadTs: parent.ts,
        channel: fake.channelId,
        title: "fox.png",
        received: { bytes: bytes.length, sha256: sha256(bytes), format: "raw" },
      }),
    ]);
  });

  it("measures a file of unknown size on disk first, since Slack wants the length up front", async () => {
    const parent = await client().chat.postMessage({ channel: fake.channelId, text: "Your video" });
    const chunk = Buffer.alloc(64 * 1024, 3);

    await uploadFile(
      direct(),
      {
        name: "clip.mp4",
        contentType: "video/mp4",
        open: async () => Readable.from(Array.from({ length: 40 }, () => chunk)),
      },
      { channelId: fake.channelId, threadTs: parent.ts! },
    );

    expect(fake.calls[1]?.args).toMatchObject({ length: String(40 * chunk.length) });
    expect(fake.uploads[0]?.received?.bytes).toBe(40 * chunk.length);
  });

  it("fails when the bytes are not what was announced, and completes nothing", async () => {
    const parent = await client().chat.postMessage({ channel: fake.channelId, text: "Your image" });

    const failed = uploadFile(
      direct(),
      {
        name: "short.png",
        contentType: "image/png",
        size: 1000,
        open: async () => Readable.from([Buffer.alloc(10)]),
      },
      { channelId: fake.channelId, threadTs: parent.ts! },
    );

    await expect(failed).rejects.toThrow();
    expect(fake.uploads).toEqual([]);
    expect(fake.calls.map((c) => c.method)).not.toContain("files.completeUploadExternal");
  });
});
