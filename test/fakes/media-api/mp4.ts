import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import type { AspectRatio } from "./pictures.js";

/**
 * The emulator's videos: short H.264 clips, one per aspect ratio, made once by
 * scripts/make-emulator-clips.sh and kept in clips/. Browsers, Discord and Slack play them; every
 * frame says it is the emulator's. A video planned large is its clip followed by a `free` box of
 * filler (players skip it), streamed from one shared buffer so a 100 MB answer never sits in memory.
 */

const FILLER = Buffer.alloc(64 * 1024);
const clips = new Map<AspectRatio, Buffer>();

/** The clip of an aspect ratio, read from disk once. */
export function clipOf(aspectRatio: AspectRatio): Buffer {
  let clip = clips.get(aspectRatio);
  if (!clip) {
    clip = readFileSync(new URL(`./clips/${aspectRatio.replace(":", "x")}.mp4`, import.meta.url));
    clips.set(aspectRatio, clip);
  }
  return clip;
}

/**
 * A video of the aspect ratio: the clip alone, or padded to `totalBytes` when that is larger
 * (large results for the upload and memory tests).
 */
export function mp4Stream(aspectRatio: AspectRatio, totalBytes = 0): { size: number; stream: Readable } {
  const clip = clipOf(aspectRatio);
  if (totalBytes < clip.length + 8) return { size: clip.length, stream: Readable.from([clip]) };
  const freeHeader = Buffer.alloc(8);
  freeHeader.writeUInt32BE(totalBytes - clip.length);
  freeHeader.write("free", 4, "latin1");
  function* chunks(): Generator<Buffer> {
    yield Buffer.concat([clip, freeHeader]);
    for (let left = totalBytes - clip.length - 8; left > 0; left -= FILLER.length) {
      yield left >= FILLER.length ? FILLER : FILLER.subarray(0, left);
    }
  }
  return { size: totalBytes, stream: Readable.from(chunks(), { objectMode: false }) };
}
