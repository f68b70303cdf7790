import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { webApi } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boltLogger } from "../../src/slack/log.js";
import { uploadFile } from "../../src/slack/upload.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { silent } from "./harness.js";

let fake: FakeSlack;
beforeEach(async () => {
  fake = await startFakeSlack();
});
afterEach(async () => {
  await fake.close();
});

const spools = () => readdirSync(tmpdir()).filter((name) => name.startsWith("slack-upload-"));

describe("a Slack upload of unknown size", () => {
  it("is spooled to disk only up to the upload limit, then dropped before Slack is asked", async () => {
    const client = new webApi.WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logger: boltLogger(silent),
    });
    const before = spools();
    let produced = 0;
    // An endless source: without the bound it would fill the disk.
    const endless = Readable.from(
      (function* () {
        for (;;) {
          produced += 64 * 1024;
          yield Buffer.alloc(64 * 1024);
        }
      })(),
    );

    const failed = uploadFile(
      (_method, call) => call(client),
      { name: "endless.mp4", contentType: "video/mp4", open: async () => endless },
      { channelId: fake.channelId, threadTs: "1.2" },
      1024 * 1024,
    );

    await expect(failed).rejects.toThrow(/endless\.mp4 is over Slack's upload limit of 1048576 bytes/);
    expect(produced).toBeLessThan(2 * 1024 * 1024);
    expect(endless.destroyed).toBe(true);
    expect(spools()).toEqual(before);
    expect(fake.calls.map((c) => c.method)).not.toContain("files.getUploadURLExternal");
  });
});
