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

/** The whole body, failing with `tooBig()` past `max` bytes (the rest is not read). */
export async function boundedBytes(
  source: AsyncIterable<Uint8Array>,
  max: number,
  tooBig: () => Error,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bounded(source, max, tooBig)) chunks.push(chunk as Uint8Array);
  return Buffer.concat(chunks);
}

/** The whole body as text, failing with `tooBig()` past `max` bytes (the rest is not read). */
export async function boundedText(
  source: AsyncIterable<Uint8Array>,
  max: number,
  tooBig: () => Error,
): Promise<string> {
  return (await boundedBytes(source, max, tooBig)).toString("utf8");
}
