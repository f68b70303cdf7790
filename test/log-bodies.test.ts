import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable, Writable } from "node:stream";
import { WebClient } from "@slack/web-api";
import { REST, Routes } from "discord.js";
import { Agent, interceptors, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMediaClient } from "../src/core/api/client.js";
import { createLogger } from "../src/core/base/log.js";
import { LINE_MAX_BYTES } from "../src/core/base/log-bounds.js";
import { boltLogger } from "../src/slack/log.js";
import { type SlackCall, uploadFile } from "../src/slack/upload.js";
import { type FakeDiscord, startFakeDiscord } from "./fakes/discord/index.js";
import { type Emulator, startEmulator } from "./fakes/media-api/index.js";

/**
 * Refusals whose errors carry a large body, from the real clients, logged through the bot's real
 * loggers as its code logs them: every line is one JSON object under the cap, says what failed
 * (code, status, method, URL), and holds no byte of the request or the answer.
 */

const MiB = 1024 * 1024;
/** The content of every body here: found in the log, it is a body's byte. */
const MARK = "BODYBYTES:";
/** The same marker as a JSON-serialized Buffer writes it ("66,79,68,89" ...). */
const MARK_AS_NUMBERS = [...Buffer.from(MARK.slice(0, 4))].join(",");
const body = (bytes: number) => MARK.repeat(Math.ceil(bytes / MARK.length)).slice(0, bytes);

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: "trace", destination }) };
}

/** Every line within the cap and one JSON object; none holds a body's byte. */
function checked(lines: string[]): Record<string, unknown>[] {
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((line) => {
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LINE_MAX_BYTES);
    expect(line).not.toContain(MARK);
    expect(line).not.toContain(MARK_AS_NUMBERS);
    expect(line).not.toMatch(/"type":"Buffer"|requestBody|"body":/);
    return JSON.parse(line) as Record<string, unknown>;
  });
}

/** A stand-in that answers every request with `status`, `type` and `text`. */
async function answering(status: number, type: string, text: string) {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(status, { "content-type": type, "x-request-id": "req-42" }).end(text));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

describe("a refused 20 MiB Discord upload", () => {
  let fake: FakeDiscord;
  beforeAll(async () => {
    fake = await startFakeDiscord({ attachmentSizeLimit: 50 * MiB });
  });
  afterAll(async () => {
    await fake.close();
  });

  it("logs Discord's code, status and route, none of the file or the message sent with it", async () => {
    const rest = new REST({ api: fake.restUrl, retries: 0 }).setToken(fake.token);
    fake.fail({
      method: "POST",
      path: /^\/channels\/\d+\/messages$/,
      status: 413,
      code: 40005,
      message: "Request entity too large",
    });
    const error = await rest
      .post(Routes.channelMessages(fake.channel.id), {
        body: { content: body(2000) },
        files: [{ name: "video.mp4", contentType: "video/mp4", data: Buffer.from(body(20 * MiB)) }],
      })
      .then(
        () => expect.unreachable("the fake took the upload"),
        (e: unknown) => e,
      );
    // What discord.js hands the bot: the whole request, the file's bytes included.
    expect((error as { requestBody: { files: { data: Buffer }[] } }).requestBody.files[0]?.data.length).toBe(
      20 * MiB,
    );

    const { lines, logger } = capture();
    logger
      .child({ component: "jobs" })
      .warn({ err: error, jobId: "j1", attempts: 1, retryInMs: 5000 }, "delivery failed; will retry");
    logger.error(error);
    logger.warn({ failure: { during: "upload", error } }, "an error under another key");
    const [engine, bare, nested] = checked(lines);
    const said = {
      type: "DiscordAPIError",
      code: 40005,
      status: 413,
      method: "POST",
      message: "Request entity too large",
    };
    expect(engine?.err).toMatchObject({ ...said, url: expect.stringMatching(/\/channels\/\d+\/messages$/) });
    expect(bare?.err).toMatchObject(said);
    expect(nested?.failure).toMatchObject({ during: "upload", error: said });
    expect(lines.join("").length).toBeLessThan(3 * 4096);
  });
});

describe("a Slack upload refused with a large answer", () => {
  const file = {
    name: "result.png",
    contentType: "image/png",
    size: 64 * 1024,
    open: async () => Readable.from([Buffer.from(body(64 * 1024))]),
  };

  async function refused(status: number, type: string, text: string) {
    const standIn = await answering(status, type, text);
    servers.push(standIn.server);
    const { lines, logger } = capture();
    // As the bot builds its WebClient (slack/app.ts): Bolt's logger over pino, at trace here, so
    // the client's own debug lines (request bodies, results) are written too.
    const client = new WebClient("xoxb-1-2-test", {
      slackApiUrl: `${standIn.url}/api/`,
      logger: boltLogger(logger),
      retryConfig: { retries: 0 },
    });
    const slack: SlackCall = (_method, call) => call(client);
    const error = await uploadFile(slack, file, { channelId: "C1", threadTs: "1.2" }).then(
      () => expect.unreachable("the stand-in took the upload"),
      (e: unknown) => e,
    );
    logger.child({ component: "jobs" }).warn({ err: error, jobId: "j2" }, "delivery failed; will retry");
    boltLogger(logger).error(error);
    return { error, lines: checked(lines) };
  }

  it("as a platform error whose answer is 1 MB: Slack's error word is kept, nothing else of the answer", async () => {
    const answer = JSON.stringify({ ok: false, error: "file_upload_size_restricted", detail: body(MiB) });
    const { lines } = await refused(200, "application/json", answer);
    const engine = lines.find((l) => l.msg === "delivery failed; will retry");
    expect(engine?.err).toMatchObject({
      type: "WebAPIPlatformError",
      code: "slack_webapi_platform_error",
      error: "file_upload_size_restricted",
    });
  });

  it("as an HTTP 413 with a 1 MB page: the status and request id are kept, not the page", async () => {
    const { lines } = await refused(413, "text/html", `<html>${body(MiB)}</html>`);
    const engine = lines.find((l) => l.msg === "delivery failed; will retry");
    expect(engine?.err).toMatchObject({
      type: "WebAPIHTTPError",
      code: "slack_webapi_http_error",
      status: 413,
      requestId: "req-42",
      headers: { "x-request-id": "req-42", "content-type": "text/html" },
    });
  });
});

describe("an undici error that holds the answer's body", () => {
  it("logs undici's code and the status, not the 1 MB body", async () => {
    const standIn = await answering(
      500,
      "application/json",
      JSON.stringify({ error: "boom", trace: body(MiB) }),
    );
    servers.push(standIn.server);
    const dispatcher = new Agent().compose(interceptors.responseError());
    const error = await request(standIn.url, { dispatcher }).then(
      () => expect.unreachable("a 500 is thrown by the interceptor"),
      (e: unknown) => e,
    );
    expect(JSON.stringify((error as { body: unknown }).body)).toContain(MARK);
    await dispatcher.close();

    const { lines, logger } = capture();
    logger.warn({ err: error }, "could not fetch the result");
    const [line] = checked(lines);
    expect(line?.err).toMatchObject({ code: "UND_ERR_RESPONSE", status: 500, requestId: "req-42" });
  });
});

describe("a media service 500 with a 1 MB body", () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ timeScale: 0.002 });
  });
  afterAll(async () => {
    await emu.close();
  });

  async function failedRead(raw: string) {
    const { lines, logger } = capture();
    const media = createMediaClient({ baseUrl: emu.url, retries: { maxRetries: 0 }, logger });
    emu.inject({ method: "GET", path: "/api/usage", status: 500, raw });
    const error = await media
      .as("test-key")
      .usage.get()
      .then(
        () => expect.unreachable("the fault answers"),
        (e: unknown) => e,
      );
    await media.close();
    // As the job engine's poller logs a failed status read.
    logger
      .child({ component: "jobs" })
      .warn({ err: error, jobId: "j3" }, "job status read failed; will retry");
    return lines;
  }

  it("logs the service's error code and status, none of the body", async () => {
    const lines = checked(await failedRead(JSON.stringify({ error: "internal", trace: body(MiB) })));
    const engine = lines.find((l) => l.msg === "job status read failed; will retry");
    expect(engine?.err).toMatchObject({
      type: "ServiceUnavailableError",
      code: "service.unavailable",
      status: 500,
      message: "GET /api/usage: HTTP 500 internal",
    });
  });

  it("keeps no more than the first 1,000 characters of a service's words that run to 1 MB", async () => {
    const lines = await failedRead(JSON.stringify({ error: body(MiB) }));
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LINE_MAX_BYTES);
    const engine = lines
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "job status read failed; will retry");
    expect(engine.err.message).toMatch(
      /^GET \/api\/usage: HTTP 500 (BODYBYTES:)+.*… \[\d+ more characters\]$/,
    );
    expect(engine.err.message.length).toBeLessThan(1100);
  });
});
