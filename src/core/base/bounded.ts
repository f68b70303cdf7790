import { Readable } from "node:stream";
import { abandon } from "./streams.js";

/**
 * Byte bounds on what the bot reads or holds of one transfer: a body longer than its bound fails
 * with the caller's error as soon as the bound is passed, instead of filling memory or a disk.
 */

/** The stream, failing with `tooBig()` once more than `max` bytes went through. */
export function bounded(source: AsyncIterable<Uint8Array>, max: number, tooBig: () => Error): Readable {
  let seen = 0;
  const limited = Readable.from(
    (async function* () {
      for await (const chunk of source) {
        seen += chunk.byteLength;
        if (seen > max) throw tooBig();
        yield chunk;
      }
    })(),
    { objectMode: false },
  );
  // The source is ours to close when the reader stops early or the bound is passed.
  limited.once("close", () => abandon(source));
  return limited;
}

/**
 * The whole body, failing with `tooBig()` past `max` bytes (the rest is not read). Read straight
 * from the source, without `bounded`'s stream around it: every status read goes through here, and
 * the extra stream was a tenth of the cost of one (bench/results/jobs-profile-before.md).
 */
export async function boundedBytes(
  source: AsyncIterable<Uint8Array>,
  max: number,
  tooBig: () => Error,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let seen = 0;
  let ended = false;
  try {
    for await (const chunk of source) {
      seen += chunk.byteLength;
      if (seen > max) throw tooBig();
      chunks.push(chunk);
    }
    ended = true;
  } finally {
    if (!ended) abandon(source);
  }
  return Buffer.concat(chunks, seen);
}

/** The whole body as text, failing with `tooBig()` past `max` bytes (the rest is not read). */
export async function boundedText(
  source: AsyncIterable<Uint8Array>,
  max: number,
  tooBig: () => Error,
): Promise<string> {
  return (await boundedBytes(source, max, tooBig)).toString("utf8");
}
