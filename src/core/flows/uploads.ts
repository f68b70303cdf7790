import type { MediaApi } from "../api/client.js";
import type { FilePart } from "../api/multipart.js";
import type { Attachment } from "../ports.js";

/**
 * Attachments go from the adapter's download straight into the service's upload flow: one file
 * at a time, streamed, so a big file is never held in memory.
 */
export async function uploadAll(media: MediaApi, files: readonly Attachment[]): Promise<string[]> {
  const ids: string[] = [];
  for (const file of files) {
    ids.push(
      await media.media.upload(await file.open(), {
        fileName: file.name,
        contentType: file.contentType,
        size: file.size,
      }),
    );
  }
  return ids;
}

/** The files as parts of a multipart creation call, opened now and read while the call sends them. */
export async function openAll(files: readonly Attachment[]): Promise<FilePart[]> {
  return Promise.all(
    files.map(async (file) => ({
      stream: await file.open(),
      fileName: file.name,
      contentType: file.contentType,
      size: file.size,
    })),
  );
}
