import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { FilePart } from "../../../src/core/api/index.js";

/** Test files made on the fly (no vitest here: the memory probe runs this in a plain child process). */

/** Deterministic bytes, produced in 64 KiB chunks as they are read: nothing is held whole. */
export function generatedBytes(size: number, seed = 7): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const length = Math.min(64 * 1024, size - sent);
      const chunk = Buffer.allocUnsafe(length);
      for (let i = 0; i < length; i++) chunk[i] = (sent + i + seed) & 0xff;
      sent += length;
      this.push(chunk);
    },
  });
}

export async function sha256Of(
  stream: AsyncIterable<Uint8Array>,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.byteLength;
    hash.update(chunk);
  }
  return { bytes, sha256: hash.digest("hex") };
}

export function filePart(fileName: string, contentType: string, size = 2_048, seed = 7): FilePart {
  return { stream: generatedBytes(size, seed), fileName, contentType, size };
}
