import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { afterEach, describe, expect, it } from "vitest";
import { createMediaClient, type MediaClient } from "../../../src/core/api/client.js";
import { AUDIO_MAX_BYTES } from "../../../src/core/commands/files.js";
import { withLinkedFiles } from "../../../src/core/commands/linked-files.js";
import { solidPng } from "../../fakes/media-api/png.js";

/**
 * Files given by link (a workflow step's Image URL). The host stands for the media service's own
 * (a trusted host); a link's answer may or may not say its length.
 */

const open: { server: Server; client: MediaClient }[] = [];
afterEach(async () => {
  for (const { server, client } of open.splice(0)) {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A host answering /chunked/* without a length, /sized/* with one and /to/<address> with a
 * redirect there; it keeps the headers it was sent.
 */
async function host(body: Buffer | (() => AsyncIterable<Buffer>)) {
  const heard: Record<string, unknown>[] = [];
  const server = createServer(async (req, res) => {
    heard.push(req.headers);
    // /to/<address>: a redirect there, as a sharing link answers.
    if (req.url?.startsWith("/to/")) {
      res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) });
      res.end();
      return;
    }
    const chunked = req.url?.startsWith("/chunked/");
    res.writeHead(200, {
      "content-type": "image/png",
      ...(!chunked && Buffer.isBuffer(body) && { "content-length": body.length }),
    });
    if (Buffer.isBuffer(body)) {
      res.end(body);
      return;
    }
    for await (const chunk of body()) if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createMediaClient({ baseUrl: base });
  open.push({ server, client });
  return { base, server, heard, media: client.as("tenant-secret-key") };
}

describe("a file given by link", () => {
  it("with its length: read once, sized, the same bytes opened; a name from the link's last part", async () => {
    const png = solidPng([200, 40, 40]);
    const { base, media, heard } = await host(png);

    const { image } = await withLinkedFiles(media, {}, { image: [`${base}/sized/red%20fox.png?sig=1`] });

    expect(image).toHaveLength(1);
    expect(image![0]).toMatchObject({ name: "red fox.png", contentType: "image/png", size: png.length });
    expect(await buffer(await image![0]!.open())).toEqual(png);
    expect(heard).toHaveLength(1);
  });

  it("without a length: read once to learn its size, and the same bytes opened", async () => {
    const png = solidPng([40, 200, 40]);
    const { base, media } = await host(png);

    const { image } = await withLinkedFiles(media, {}, { image: [`${base}/chunked/frame.png`] });

    expect(image![0]).toMatchObject({ name: "frame.png", size: png.length });
    expect(await buffer(await image![0]!.open())).toEqual(png);
  });

  it("with a length bigger than any option takes: refused as too big", async () => {
    const { base, media } = await host(Buffer.alloc(AUDIO_MAX_BYTES + 1));

    await expect(withLinkedFiles(media, {}, { image: [`${base}/sized/huge.png`] })).rejects.toMatchObject({
      code: "input.file_size",
    });
  });

  it("without a length and bigger than any option takes: refused as too big, the rest not read", async () => {
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let sent = 0;
    const { base, media } = await host(async function* () {
      for (; sent < AUDIO_MAX_BYTES * 4; sent += chunk.length) yield chunk;
    });

    await expect(withLinkedFiles(media, {}, { image: [`${base}/chunked/huge.png`] })).rejects.toMatchObject({
      code: "input.file_size",
      userMessage: expect.stringContaining("is more than 25 MB"),
    });
    expect(sent).toBeLessThan(AUDIO_MAX_BYTES * 2);
  });

  it("comes after the option's attached files", async () => {
    const png = solidPng([1, 2, 3]);
    const { base, media } = await host(png);
    const attached = {
      name: "a.png",
      contentType: "image/png",
      size: 1,
      open: async () => Readable.from([png]),
    };

    const { references } = await withLinkedFiles(
      media,
      { references: [attached] },
      { references: [`${base}/sized/b.png`] },
    );

    expect(references?.map((f) => f.name)).toEqual(["a.png", "b.png"]);
  });

  it("is never sent the tenant's key, even below the service's /api/", async () => {
    const png = solidPng([5, 5, 5]);
    const { base, media, heard } = await host(png);

    await withLinkedFiles(media, {}, { image: [`${base}/api/media/m1/view`] });

    expect(heard.length).toBeGreaterThan(0);
    for (const headers of heard) expect(headers).not.toHaveProperty("x-api-key");
  });

  it("on the service's host but another port (what else runs there): refused before any request", async () => {
    const service = await host(solidPng([5, 5, 5]));
    const other = await host(solidPng([6, 6, 6]));

    await expect(
      withLinkedFiles(service.media, {}, { image: [`${other.base}/sized/secret.png`] }),
    ).rejects.toMatchObject({ code: "input.link_refused" });
    expect(other.heard).toHaveLength(0);
  });

  it("that trickles its bytes: given up after the reading's time limit, saying so", async () => {
    const { base, media } = await host(async function* () {
      for (let i = 0; i < 100; i++) {
        yield Buffer.from([i]);
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const started = Date.now();

    await expect(
      withLinkedFiles(media, {}, { image: [`${base}/chunked/slow.png`] }, 400),
    ).rejects.toMatchObject({
      code: "input.link_unreadable",
      userMessage: expect.stringContaining("within 0.4 s"),
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("that redirects: followed to the file, each hop held to the same rule", async () => {
    const png = solidPng([7, 7, 7]);
    const service = await host(png);
    const other = await host(png);
    const to = (address: string) => `${service.base}/to/${encodeURIComponent(address)}`;

    const { image } = await withLinkedFiles(service.media, {}, { image: [to("/sized/shared.png")] });
    expect(image![0]).toMatchObject({ name: "shared.png", size: png.length });
    expect(await buffer(await image![0]!.open())).toEqual(png);

    await expect(
      withLinkedFiles(service.media, {}, { image: [to(`${other.base}/sized/secret.png`)] }),
    ).rejects.toMatchObject({ code: "input.link_refused" });
    await expect(
      withLinkedFiles(service.media, {}, { image: [to("file:///etc/passwd")] }),
    ).rejects.toMatchObject({ code: "input.link_refused" });
    expect(other.heard).toHaveLength(0);
  });
});
