import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalTool } from "../../local-tools.js";
import { useEmulator } from "./harness.js";
import { mp4Stream } from "./mp4.js";
import { decodePng, pixelAt, solidPng } from "./png.js";

const LARGE = 100 * 1024 * 1024;
const t = useEmulator({ timeScale: 0.001, largeVideoBytes: LARGE });

/** file(1), the tool people use to ask what a file is. */
const fileCommand = new LocalTool({
  name: "file(1)",
  hint: "apt-get install file (Debian/Ubuntu); macOS has it",
  probe: () => spawnSync("file", ["--version"]).status === 0,
});

function fileSays(bytes: Buffer, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), "media-api-"));
  try {
    writeFileSync(join(dir, name), bytes);
    return execFileSync("file", ["-b", join(dir, name)], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Top-level ISO-BMFF boxes as [type, size]. */
function boxes(bytes: Buffer, from = 0, to = bytes.length): [string, number, number][] {
  const out: [string, number, number][] = [];
  for (let at = from; at < to; ) {
    const size = bytes.readUInt32BE(at);
    out.push([bytes.toString("latin1", at + 4, at + 8), size, at]);
    at += size;
  }
  return out;
}

/** A box inside containers, by its path ("moov/trak/tkhd"): where its body starts and ends. */
function box(bytes: Buffer, path: string): { start: number; end: number } | undefined {
  let [from, to] = [0, bytes.length];
  for (const type of path.split("/")) {
    const found = boxes(bytes, from, to).find(([t]) => t === type);
    if (!found) return undefined;
    [from, to] = [found[2] + 8, found[2] + found[1]];
  }
  return { start: from, end: to };
}

async function finishedImage(json: Record<string, unknown> = {}): Promise<Buffer> {
  const body = { name: "n", prompt: "a red fox in the snow", ...json };
  const { jobId } = (await t.call("POST", "/api/image/generate", { json: body })).body;
  t.clock.advance(20);
  const { downloadUrl } = (await t.call("GET", `/api/image/${jobId}`)).body;
  return Buffer.from(await (await fetch(downloadUrl)).arrayBuffer());
}

async function finishedVideo({ large = false, aspectRatio }: { large?: boolean; aspectRatio?: string } = {}) {
  if (large) t.em.planNextJob("cinematic", { large: true });
  const { jobId } = (
    await t.call("POST", "/api/video/cinematic/create", {
      json: { name: "v", prompt: "waves at dusk", ...(aspectRatio && { aspectRatio }) },
    })
  ).body;
  t.clock.advance(120);
  const { videoId } = (await t.call("GET", `/api/video/${jobId}/status`)).body;
  const video = (await t.call("GET", `/api/video/${videoId}`)).body as { id: string; downloadUrl: string };
  return { ...video, bytes: async () => Buffer.from(await (await fetch(video.downloadUrl)).arrayBuffer()) };
}

describe("served PNG", () => {
  it("is a valid PNG at the asked aspect ratio, 768 pixels on its long side", async () => {
    const sizes: [string, number, number][] = [];
    for (const aspectRatio of ["16:9", "9:16", "1:1", "4:3", "3:4"]) {
      const png = decodePng(await finishedImage({ aspectRatio }));
      sizes.push([aspectRatio, png.width, png.height]);
    }
    expect(sizes).toEqual([
      ["16:9", 768, 432],
      ["9:16", 432, 768],
      ["1:1", 768, 768],
      ["4:3", 768, 576],
      ["3:4", 576, 768],
    ]);
  });

  it("is square when no aspect ratio was asked", async () => {
    const png = decodePng(await finishedImage());
    expect([png.width, png.height]).toEqual([768, 768]);
  });

  it("is the same picture for the same prompt and another for another prompt", async () => {
    const fox = sha256(await finishedImage({ prompt: "a red fox" }));
    expect(sha256(await finishedImage({ prompt: "a red fox" }))).toBe(fox);
    expect(sha256(await finishedImage({ prompt: "a blue whale" }))).not.toBe(fox);
  });

  it("draws an edit over the image it was given", async () => {
    const red = await t.upload("image/png", solidPng([220, 20, 20]));
    const { jobId } = (
      await t.call("POST", "/api/image/edit", {
        json: { name: "e", prompt: "make it pop", aspectRatio: "1:1", referenceImageMediaId: red },
      })
    ).body;
    t.clock.advance(20);
    const { downloadUrl } = (await t.call("GET", `/api/image/${jobId}`)).body;
    const png = decodePng(Buffer.from(await (await fetch(downloadUrl)).arrayBuffer()));
    // Above the caption and away from the marks, the picture is the upload.
    expect(pixelAt(png, png.width * 0.3, png.height * 0.45)).toEqual([220, 20, 20]);
  });

  it("draws an edit of its own result sent back (downloaded, then uploaded) as an edit of that result", async () => {
    const { jobId } = (await t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "a kite" } }))
      .body;
    t.clock.advance(20);
    const { downloadUrl, mediaId } = (await t.call("GET", `/api/image/${jobId}`)).body;
    const again = await t.upload("image/png", Buffer.from(await (await fetch(downloadUrl)).arrayBuffer()));
    const edited = async (referenceImageMediaId: string) => {
      const edit = await t.call("POST", "/api/image/edit", {
        json: { name: "e", prompt: "add a cat", referenceImageMediaId },
      });
      t.clock.advance(20);
      const done = (await t.call("GET", `/api/image/${edit.body.jobId}`)).body;
      return sha256(Buffer.from(await (await fetch(done.downloadUrl)).arrayBuffer()));
    };
    // The kite without its caption under the edit's, rather than two captions one over the other.
    expect(await edited(again)).toBe(await edited(mediaId));
  });

  it("paints an inpainting where its mask is white, and leaves the original where it is black", async () => {
    const blue = await t.upload("image/png", solidPng([20, 40, 200]));
    const inpainted = async (mask: [number, number, number]) => {
      const maskId = await t.upload("image/png", solidPng(mask));
      const { jobId } = (
        await t.call("POST", "/api/image/inpaint", {
          json: { name: "i", prompt: "a balloon", originalImageMediaId: blue, maskImageMediaId: maskId },
        })
      ).body;
      t.clock.advance(20);
      const { downloadUrl } = (await t.call("GET", `/api/image/${jobId}`)).body;
      const png = decodePng(Buffer.from(await (await fetch(downloadUrl)).arrayBuffer()));
      return pixelAt(png, png.width * 0.5, png.height * 0.4);
    };
    expect(await inpainted([0, 0, 0])).toEqual([20, 40, 200]);
    expect(await inpainted([255, 255, 255])).not.toEqual([20, 40, 200]);
  });

  it("shows an uploaded image's own bytes in its view", async () => {
    const photo = solidPng([1, 2, 3]);
    const mediaId = await t.upload("image/png", photo);
    const view = await fetch(`${t.em.url}/api/media/${mediaId}/view`, {
      headers: { "x-api-key": "test-key" },
    });
    expect(sha256(Buffer.from(await view.arrayBuffer()))).toBe(sha256(photo));
  });

  fileCommand.it("is recognised by file(1)", async () => {
    expect(fileSays(await finishedImage({ aspectRatio: "16:9" }), "image.png")).toMatch(
      /PNG image data, 768 x 432/,
    );
  });
});

describe("served MP4", () => {
  it("is an H.264 clip of a few seconds at the asked aspect ratio, its index before its frames", async () => {
    const shapes: [string, number, number][] = [];
    for (const aspectRatio of ["16:9", "9:16", "1:1", "4:3", "3:4"]) {
      const mp4 = await (await finishedVideo({ aspectRatio })).bytes();
      expect(mp4.toString("latin1", 4, 8)).toBe("ftyp");
      const types = boxes(mp4).map(([type]) => type);
      // moov before mdat: a browser plays it while it downloads.
      expect(types.indexOf("moov")).toBeLessThan(types.indexOf("mdat"));
      expect(boxes(mp4).reduce((sum, [, size]) => sum + size, 0)).toBe(mp4.length);
      const stsd = box(mp4, "moov/trak/mdia/minf/stbl/stsd")!;
      expect(mp4.toString("latin1", stsd.start + 12, stsd.start + 16)).toBe("avc1");
      const mvhd = box(mp4, "moov/mvhd")!;
      const seconds = mp4.readUInt32BE(mvhd.start + 16) / mp4.readUInt32BE(mvhd.start + 12);
      expect(seconds).toBeGreaterThanOrEqual(2);
      expect(seconds).toBeLessThanOrEqual(10);
      const tkhd = box(mp4, "moov/trak/tkhd")!;
      shapes.push([aspectRatio, mp4.readUInt32BE(tkhd.end - 8) >> 16, mp4.readUInt32BE(tkhd.end - 4) >> 16]);
    }
    expect(shapes.map(([ratio, w, h]) => [ratio, w / h])).toEqual([
      ["16:9", 16 / 9],
      ["9:16", 9 / 16],
      ["1:1", 1],
      ["4:3", 4 / 3],
      ["3:4", 3 / 4],
    ]);
  });

  it("says it is the emulator's in its title", async () => {
    const mp4 = await (await finishedVideo()).bytes();
    expect(mp4.toString("latin1")).toContain("media-bot emulator clip (16:9)");
  });

  fileCommand.it("is recognised by file(1)", async () => {
    expect(fileSays(await (await finishedVideo()).bytes(), "video.mp4")).toMatch(/ISO Media/);
  });

  it("builds any size without holding it", async () => {
    const { size, stream } = mp4Stream("16:9", 1_000_000);
    let total = 0;
    const distinct = new Set<ArrayBufferLike>();
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      distinct.add(chunk.buffer);
    }
    expect([size, total]).toEqual([1_000_000, 1_000_000]);
    expect(distinct.size).toBeLessThanOrEqual(3); // the clip, plus one shared filler
  });

  it("streams a video planned as large: HEAD tells the size, GET delivers every byte, still a playable file", async () => {
    const video = await finishedVideo({ large: true });
    const sized = await fetch(video.downloadUrl, { method: "HEAD" });
    expect(Number(sized.headers.get("content-length"))).toBe(LARGE);

    const res = await fetch(`${t.em.url}/api/video/${video.id}/download`, {
      headers: { "x-api-key": "test-key" },
    });
    expect(Number(res.headers.get("content-length"))).toBe(LARGE);
    let total = 0;
    const head: Buffer[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (total < 256 * 1024) head.push(Buffer.from(chunk));
      total += chunk.length;
    }
    expect(total).toBe(LARGE);
    // The clip, then a free box up to the end, which players skip.
    const start = Buffer.concat(head);
    const top: [string, number][] = [];
    for (let at = 0; at < LARGE; ) {
      const size = start.readUInt32BE(at);
      top.push([start.toString("latin1", at + 4, at + 8), size]);
      at += size;
    }
    expect(top.map(([type]) => type)).toEqual(["ftyp", "moov", "free", "mdat", "free"]);
    expect(top.at(-1)![1]).toBeGreaterThan(LARGE - 256 * 1024);
  });
});
