import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedLookup, isInternalAddress, RefusedFetchError } from "../../../src/core/api/fetch-policy.js";
import { MAX_RESPONSE_BYTES } from "../../../src/core/api/http.js";
import { InvalidResponseError } from "../../../src/core/base/errors.js";
import { fileOrLink } from "../../../src/core/media/files.js";
import { rejectionOf, useEmulator } from "./support.js";

/**
 * Result URLs come from the service: a spoofed or compromised one must not make the bot read its
 * own network, nor post something that is not the result. The emulator runs on 127.0.0.1, the
 * host of MEDIA_API_URL here, which stays trusted.
 */

const ctx = useEmulator();

/** A stand-in for a cloud metadata endpoint, or any internal service; it counts who asked. */
function internalServer(host: string, answer: (res: import("node:http").ServerResponse) => void) {
  const state = { hits: 0, url: "", server: undefined as Server | undefined };
  beforeAll(async () => {
    state.server = createServer((_req, res) => {
      state.hits += 1;
      answer(res);
    });
    await new Promise<void>((resolve) => state.server!.listen(0, host, resolve));
    state.url = `http://${host}:${(state.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    state.server?.closeAllConnections();
    await new Promise((resolve) => state.server?.close(resolve));
  });
  return state;
}

const metadata = internalServer("127.0.0.2", (res) => {
  res.setHeader("content-type", "image/png");
  res.end(JSON.stringify({ AccessKeyId: "ASIA...", SecretAccessKey: "..." }));
});
/** On the trusted host: what it serves is judged by its type and size. */
const trusted = internalServer("127.0.0.1", (res) => {
  if (res.req.url === "/page") {
    res.setHeader("content-type", "text/html");
    res.end("<html>sign in</html>");
  } else {
    res.setHeader("content-type", "image/png");
    // No content-length: chunked, as long as the server likes.
    res.write(Buffer.alloc(4096));
    res.end(Buffer.alloc(4096));
  }
});

describe("result fetches", () => {
  it("refuse an internal address, by number or by a name that resolves to one, and never connect", async () => {
    const port = new URL(metadata.url).port;
    for (const url of [
      `${metadata.url}/latest/meta-data/iam/security-credentials/role`,
      `http://localhost:${port}/latest/meta-data`,
      `http://[::1]:${port}/x.png`,
      "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.8/x.png",
    ]) {
      const error = await rejectionOf(ctx.api.media.download(url));
      expect(error, url).toBeInstanceOf(RefusedFetchError);
      expect((error as RefusedFetchError).userMessage).toBe(
        "The media service pointed at a file the bot is not allowed to fetch.",
      );
    }
    expect(metadata.hits).toBe(0);
  });

  it("refuse anything but http(s)", async () => {
    for (const url of ["file:///etc/passwd", "ftp://files.example.com/x.png", "data:image/png;base64,AAAA"]) {
      expect(await rejectionOf(ctx.api.media.download(url)), url).toBeInstanceOf(RefusedFetchError);
    }
  });

  it("fetch from the service's own host", async () => {
    const file = await ctx.api.media.download(`${trusted.url}/x.png`);
    file.body.destroy();
    expect(file.contentType).toBe("image/png");
  });

  it("refuse a result that is not what the job makes (an HTML page as an image)", async () => {
    const url = `${trusted.url}/page`;
    const error = await rejectionOf(
      fileOrLink("image", "fox", () => ctx.api.media.download(url), url, 10_000_000),
    );
    expect(error).toBeInstanceOf(RefusedFetchError);
    expect((error as RefusedFetchError).userMessage).toMatch(/not an image/);
  });

  it("stop a result of unknown size at the upload limit instead of reading it whole", async () => {
    // A relative path has no link to fall back on, so the file is attached and read when sent.
    const url = `${trusted.url}/big.png`;
    const shown = await fileOrLink("image", "fox", () => ctx.api.media.download(url), undefined, 5_000);
    const chunks: Buffer[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const chunk of await shown.file!.open()) chunks.push(chunk as Buffer);
      })(),
    );
    expect(error).toBeInstanceOf(RefusedFetchError);
    expect(Buffer.concat(chunks).length).toBeLessThanOrEqual(5_000);
  });

  it("a service answer over the bound is refused, not read whole", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/usage", raw: `"${"x".repeat(MAX_RESPONSE_BYTES + 10)}"` });
    const error = await rejectionOf(ctx.api.usage.get());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toMatch(/over 8388608 bytes/);
  });
});

describe("the lookup a connection makes", () => {
  const resolve = (trusted: string, name: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
      guardedLookup(trusted)(name, {}, (error, address) => done({ error, address })),
    );

  it("refuses a name that resolves to an internal address at connect time (DNS rebinding)", async () => {
    const { error } = await resolve("media.example.com", "localhost");
    expect(error?.code).toBe("ERR_INTERNAL_ADDRESS");
  });

  it("lets the service's own host resolve to wherever it is", async () => {
    const { error, address } = await resolve("localhost", "localhost");
    expect(error).toBeNull();
    expect(isInternalAddress(String(address))).toBe(true);
  });
});

describe("internal addresses", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "::",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "198.18.0.1",
    "198.19.255.255",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::127.0.0.1",
  ])("%s is internal", (address) => {
    expect(isInternalAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "172.32.0.1",
    "192.169.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "198.20.0.1",
    "64:ff9b::808:808",
  ])("%s is not", (address) => {
    expect(isInternalAddress(address)).toBe(false);
  });
});
