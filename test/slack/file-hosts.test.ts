import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mayCarryToken } from "../../src/slack/file-hosts.js";
import { SlackFileError, userFile } from "../../src/slack/files.js";
import { boltLogger } from "../../src/slack/log.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { silent } from "./harness.js";

/** The bot token goes with a file download only to Slack's file hosts (and SLACK_API_URL's host). */
describe("where the bot token may go", () => {
  const api = "https://slack.com/api/";

  it.each([
    "https://files.slack.com/files-pri/T1-F1/download/fox.png",
    "https://files.slack-gov.com/files-pri/T1-F1/fox.png",
  ])("to %s", (url) => {
    expect(mayCarryToken(url, api)).toBe(true);
  });

  it.each([
    "https://evil.example.com/files-pri/T1-F1/fox.png",
    "https://files.slack.com.evil.example/fox.png",
    "http://files.slack.com/files-pri/T1-F1/fox.png",
    "https://slack.com.evil.example/x",
    "http://169.254.169.254/latest/meta-data",
    "not a url",
  ])("not to %s", (url) => {
    expect(mayCarryToken(url, api)).toBe(false);
  });

  it("to the host of SLACK_API_URL (a proxy, the fake), with its scheme and port only", () => {
    const fake = "http://127.0.0.1:4567/api/";
    expect(mayCarryToken("http://127.0.0.1:4567/files/F1/fox.png", fake)).toBe(true);
    expect(mayCarryToken("http://127.0.0.1:9999/files/F1/fox.png", fake)).toBe(false);
  });
});

describe("a file whose url_private names another host", () => {
  let fake: FakeSlack;
  let foreign: Server;
  const seen: (string | undefined)[] = [];
  beforeAll(async () => {
    fake = await startFakeSlack();
    foreign = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.end("x");
    });
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await fake.close();
    await new Promise((resolve) => foreign.close(resolve));
  });

  it("is refused with a clear message, and the token is not sent there", async () => {
    const file = fake.addUserFile(Buffer.from("png"), { name: "fox.png", mimetype: "image/png" });
    const web = new webApi.WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logger: boltLogger(silent),
    });
    const { port } = foreign.address() as AddressInfo;
    const elsewhere = `http://localhost:${port}/files-pri/fox.png`;
    vi.spyOn(web.files, "info").mockResolvedValue({
      ok: true,
      file: { ...file, url_private: elsewhere, url_private_download: elsewhere },
    });

    const error = await userFile(web, file.id).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SlackFileError);
    expect((error as SlackFileError).userMessage).toBe(
      "Slack named a file address the bot does not trust. Attach the file again.",
    );
    expect(seen).toEqual([]);
  });
});
