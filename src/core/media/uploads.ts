import type { Readable } from "node:stream";
import type { MediaApi } from "../api/client.js";
import type { FilePart } from "../api/multipart.js";
import { ServiceError, UploadFailedError } from "../base/errors.js";
import type { Attachment } from "../base/ports.js";
import { abandon } from "../base/streams.js";

/**
 * Attachments go from the adapter's download straight into the service's upload flow: one file
 * at a time, streamed, so a big file is never held in memory.
 */
export async function uploadAll(media: MediaApi, files: readonly Attachment[]): Promise<string[]> {
  const ids: string[] = [];
  for (const file of files) {
    const stream = await file.open();
    try {
      ids.push(
        await media.media.upload(stream, {
          fileName: file.name,
          contentType: file.contentType,
          size: file.size,
        }),
      );
    } catch (error) {
      throw error instanceof ServiceError ? new UploadFailedError(file.name, error) : error;
    }
  }
  return ids;
}

/**
 * The files as parts of a multipart creation call, opened now and read while the call sends them.
 * When one cannot be opened, the others are closed again: the call will not be made.
 */
export async function openAll(files: readonly Attachment[]): Promise<FilePart[]> {
  const opened = await Promise.allSettled(files.map((file) => file.open()));
  const failed = opened.find((result) => result.status === "rejected");
  if (failed) {
    for (const result of opened) if (result.status === "fulfilled") abandon(result.value);
    throw failed.reason;
  }
  return files.map((file, index) => ({
    stream: (opened[index] as PromiseFulfilledResult<Readable>).value,
    fileName: file.name,
    contentType: file.contentType,
    size: file.size,
  }));
}
