import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { LocalTool } from "../../local-tools.js";
import { useEmulator } from "./harness.js";
import { mp4Stream } from "./mp4.js";
import { PNG_SIGNATURE } from "./png.js";

const LARGE = 100 * 1024 * 1024;
const t = useEmulator({ timeScale: 0.001, largeVideoBytes: LARGE });

/** file(1), the tool people use to ask what a file is. */
const fileCommand = new LocalTool({
  name: "file(1)",
  hint: "apt-get install file (Debian/Ubuntu); macOS has it",
  probe: () => spawnSync("file", ["--version"]).status === 0,
});

function fileSays(bytes: Buffer, name: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "media-api-")), name);
  writeFileSync(path, bytes);
  return execFileSync("file", ["-b", path], { encoding: "utf8" });
}

/** Top-level ISO-BMFF boxes as [type, size]. */
function boxes(bytes: Buffer): [string, number][] {
  const out: [string, number][] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = bytes.readUInt32BE(at);
    out.push([bytes.toString("latin1", at + 4, at + 8), size]);
    at += size;
  }
  return out;
}

async function finishedImage(): Promise<Buffer> {
  const { jobId } = (await t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } })).body;
  t.clock.advance(20);
  const { downloadUrl } = (await t.call("GET", `/api/image/${jobId}`)).body;
  return Buffer.from(await (await fetch(downloadUrl)).arrayBuffer());
}

async function finishedVideo(large = false) {
  if (large) t.em.planNextJob("video", { large: true });
  const { jobId } = (
    await t.call("POST", "/api/video/create", {
      json: { avatarId: "cm2yaz9j10008l0qg9npyjgs3", name: "v", voiceId: "1", text: "hi" },
    })
  ).body;
  t.clock.advance(180);
  const { videoId } = (await t.call("GET", `/api/video/${jobId}/status`)).body;
  return (await t.call("GET", `/api/video/${videoId}`)).body as { id: string; downloadUrl: string };
}

describe("served PNG", () => {
  it("is a valid PNG: signature, IHDR with a correct CRC, inflatable 64x64 RGB pixels, IEND", async () => {
    const png = await finishedImage();
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(png.readUInt32BE(8)).toBe(13);
    expect(png.toString("latin1", 12, 16)).toBe("IHDR");
    expect(png.readUInt32BE(29)).toBe(crc32(png.subarray(12, 29)));
    expect([png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25]]).toEqual([64, 64, 8, 2]);
    const idatLength = png.readUInt32BE(33);
    expect(png.toString("latin1", 37, 41)).toBe("IDAT");
    expect(inflateSync(png.subarray(41, 41 + idatLength)).length).toBe(64 * (1 + 64 * 3));
    expect(png.toString("latin1", png.length - 8, png.length - 4)).toBe("IEND");
  });

  fileCommand.it("is recognised by file(1)", async () => {
    expect(fileSays(await finishedImage(), "image.png")).toMatch(/PNG image data, 64 x 64/);
  });
});

describe("served MP4", () => {
  it("starts with an ftyp box and is a sequence of ftyp, moov, mdat boxes", async () => {
    const video = await finishedVideo();
    const mp4 = Buffer.from(await (await fetch(video.downloadUrl)).arrayBuffer());
    expect(mp4.toString("latin1", 4, 12)).toBe("ftypisom");
    expect(boxes(mp4).map(([type]) => type)).toEqual(["ftyp", "moov", "mdat"]);
    expect(boxes(mp4).reduce((sum, [, size]) => sum + size, 0)).toBe(mp4.length);
  });

  fileCommand.it("is recognised by file(1)", async () => {
    const video = await finishedVideo();
    const mp4 = Buffer.from(await (await fetch(video.downloadUrl)).arrayBuffer());
    expect(fileSays(mp4, "video.mp4")).toMatch(/ISO Media/);
  });

  it("builds any size without holding it", async () => {
    const { size, stream } = mp4Stream(1_000_000);
    let total = 0;
    const distinct = new Set<ArrayBufferLike>();
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      distinct.add(chunk.buffer);
    }
    expect([size, total]).toEqual([1_000_000, 1_000_000]);
    expect(distinct.size).toBeLessThanOrEqual(3); // the head, plus one shared filler
  });

  it("streams a video planned as large: HEAD tells the size, GET delivers every byte", async () => {
    const video = await finishedVideo(true);
    const head = await fetch(video.downloadUrl, { method: "HEAD" });
    expect(Number(head.headers.get("content-length"))).toBe(LARGE);

    const res = await fetch(`${t.em.url}/api/video/${video.id}/download`, {
      headers: { "x-api-key": "test-key" },
    });
    expect(Number(res.headers.get("content-length"))).toBe(LARGE);
    let total = 0;
    let first: Buffer | undefined;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      first ??= Buffer.from(chunk);
      total += chunk.length;
    }
    expect(total).toBe(LARGE);
    expect(first?.toString("latin1", 4, 8)).toBe("ftyp");
  });
});
