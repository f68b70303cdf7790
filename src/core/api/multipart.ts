import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { AttachmentReadError } from "../base/errors.js";
import { abandon } from "../base/streams.js";

/** A file to send, read once from its stream (a chat attachment being downloaded, a file on disk). */
export interface FilePart {
  stream: Readable | AsyncIterable<Uint8Array>;
  fileName: string;
  contentType: string;
  /** Exact size in bytes: sent as Content-Length, and checked against what the stream yields. */
  size: number;
}

/** A request body that is produced while it is sent, never held whole. */
export interface StreamBody {
  contentType: string;
  length: number;
  chunks: AsyncIterable<Uint8Array>;
  /** Frees the sources when the request ends before reading them (a failed call, an abort). */
  discard(): void;
}

export type FieldValue = string | number | boolean | string[] | FilePart | FilePart[] | undefined;

export function isFilePart(value: unknown): value is FilePart {
  return typeof value === "object" && value !== null && "stream" in value && "fileName" in value;
}

/** Closes a file's stream that will not be read (or not to its end), so its source does not hang open. */
export function discardSource(part: FilePart): void {
  abandon(part.stream);
}

/** The file's bytes, failing loudly when the stream yields more or fewer than declared. */
async function* exactly(part: FilePart): AsyncGenerator<Uint8Array> {
  let seen = 0;
  try {
    for await (const chunk of part.stream) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Uint8Array);
      seen += bytes.byteLength;
      if (seen > part.size)
        throw new AttachmentReadError(`${part.fileName}: more than the declared ${part.size} bytes`);
      yield bytes;
    }
  } catch (error) {
    if (error instanceof AttachmentReadError) throw error;
    throw new AttachmentReadError(`${part.fileName}: reading failed: ${(error as Error).message}`, error);
  }
  if (seen !== part.size) {
    throw new AttachmentReadError(`${part.fileName}: ended after ${seen} of ${part.size} declared bytes`);
  }
}

/** The raw file as a body: the presigned upload PUT. */
export function fileBody(part: FilePart): StreamBody {
  return {
    contentType: part.contentType,
    length: part.size,
    chunks: exactly(part),
    discard: () => discardSource(part),
  };
}

/** WHATWG's escaping of names in Content-Disposition, as browsers and undici's FormData do it. */
function escapeName(name: string): string {
  return name.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");
}

/** A content type comes from the chat platform's attachment: it must not end the part's headers early. */
function headerValue(value: string): string {
  return value.replace(/[\r\n]/g, "");
}

/**
 * multipart/form-data written by hand instead of through undici's FormData: FormData only takes
 * real Blob/File objects, and a Blob cannot be backed by a stream that is still arriving, so the
 * file would have to be buffered whole first. Sizes are known, so the exact Content-Length is
 * sent too (no chunked encoding, which some upload endpoints refuse).
 */
export function multipartBody(fields: Record<string, FieldValue>): StreamBody {
  const boundary = `----media-bot-${randomBytes(12).toString("hex")}`;
  const pieces: (Buffer | FilePart)[] = [];
  const files: FilePart[] = [];

  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isFilePart(item)) {
        pieces.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"; filename="${escapeName(item.fileName)}"\r\nContent-Type: ${headerValue(item.contentType)}\r\n\r\n`,
          ),
          item,
          Buffer.from("\r\n"),
        );
        files.push(item);
      } else {
        pieces.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n${String(item)}\r\n`,
          ),
        );
      }
    }
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));

  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (const piece of pieces) {
      if (Buffer.isBuffer(piece)) yield piece;
      else yield* exactly(piece);
    }
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: pieces.reduce((sum, piece) => sum + (Buffer.isBuffer(piece) ? piece.byteLength : piece.size), 0),
    chunks: chunks(),
    discard: () => files.forEach(discardSource),
  };
}
