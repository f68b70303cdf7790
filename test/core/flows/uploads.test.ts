import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BadRequestError,
  ServiceUnavailableError,
  UnauthorizedError,
} from "../../../src/core/base/errors.js";
import type { Attachment } from "../../../src/core/base/ports.js";
import { openAll } from "../../../src/core/media/uploads.js";
import { solidPng } from "../../fakes/media-api/png.js";
import { rejectionOf, useEmulator } from "../api/support.js";

/**
 * Attachments opened for a multipart creation call: downloads from a real HTTP server (as the
 * chat platforms' files are), whose bodies report an abort when closed unread. An 'error' event
 * nobody handled would fail this run as an unhandled error.
 */

const ctx = useEmulator();
const png = solidPng([10, 200, 10]);
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/missing") res.writeHead(404).end("gone");
    else res.writeHead(200, { "content-type": "image/png", "content-length": png.length }).end(png);
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});

const opened: Readable[] = [];

function attachment(path: string, name = "photo.png"): Attachment {
  return {
    name,
    contentType: "image/png",
    size: png.length,
    async open() {
      const answer = await request(`${origin}${path}`);
      if (answer.statusCode !== 200) {
        await answer.body.dump();
        throw new Error(`HTTP ${answer.statusCode}`);
      }
      opened.push(answer.body);
      return answer.body;
    },
  };
}

/** Lets a tick pass so that an 'error' event of a closed body would fire (and fail the run). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("a multipart creation call refused by the service", () => {
  it.each([
    [400, BadRequestError],
    [401, UnauthorizedError],
    [500, ServiceUnavailableError],
  ])("HTTP %i: its typed error, the attachment's download closed, nothing created", async (status, type) => {
    ctx.emu.inject({ method: "POST", path: "/api/image/edit", status });
    const [part] = await openAll([attachment("/photo.png")]);
    // The whole small file has arrived, unread: the case that used to end the process.
    await settle();

    const error = await rejectionOf(ctx.api.images.edit({ prompt: "p", name: "n", referenceImage: part! }));
    await settle();

    expect(error).toBeInstanceOf(type);
    expect(opened.at(-1)!.destroyed).toBe(true);
    expect(ctx.emu.account("test-key").creditsUsed).toBe(0);
  });

  it("refused before it is sent (no API key): the unread download is closed, nothing escapes", async () => {
    const [part] = await openAll([attachment("/photo.png")]);
    await settle();

    const error = await rejectionOf(
      ctx.client.as(undefined).images.edit({ prompt: "p", name: "n", referenceImage: part! }),
    );
    await settle();

    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(opened.at(-1)!.destroyed).toBe(true);
    expect(ctx.emu.callsTo("POST", "/api/image/edit")).toHaveLength(0);
  });
});

describe("openAll", () => {
  it("closes the files it opened when another cannot be opened", async () => {
    const before = opened.length;
    const error = await rejectionOf(
      openAll([
        attachment("/a.png", "a.png"),
        attachment("/missing", "b.png"),
        attachment("/c.png", "c.png"),
      ]),
    );
    await settle();

    expect(error).toMatchObject({ message: "HTTP 404" });
    const mine = opened.slice(before);
    expect(mine).toHaveLength(2);
    expect(mine.every((body) => body.destroyed)).toBe(true);
  });
});
