import { MediaFinalized, MediaInitialized } from "../schemas.js";
import { uploadMedia } from "../upload.js";
import type { Caller, CallOptions, Download, FilePart } from "./caller.js";

/** Spec 4.2: register a file, PUT it to the presigned address, finalize; plus reading media back. */
export function media(c: Caller) {
  const group = {
    initialize: (input: { fileName: string; contentType: string; fileSize: number }, opts?: CallOptions) =>
      c.post("/api/media/initialize", MediaInitialized, input, opts),

    /** The raw bytes to the presigned address (which never receives the API key). */
    put: (uploadUrl: string, file: FilePart, opts?: CallOptions) => c.put(uploadUrl, file, opts),

    finalize: (mediaId: string, opts?: CallOptions) =>
      c.post("/api/media/finalize", MediaFinalized, { mediaId }, opts),

    /** The whole sequence, streamed: returns the mediaId that other calls accept. */
    upload: (
      stream: FilePart["stream"],
      file: { fileName: string; contentType: string; size: number },
      opts?: CallOptions,
    ): Promise<string> => uploadMedia(group, { ...file, stream }, opts),

    /**
     * A file the service points at: a relative path such as a mockup's `/api/media/<id>/view`
     * (sent with the key), or an absolute `downloadUrl` (signed, so sent without the key unless it
     * is below the service's /api/).
     */
    download: (pathOrUrl: string, opts?: CallOptions): Promise<Download> => c.download(pathOrUrl, opts),

    /**
     * A file at an address a person gave (a workflow step's Image URL): sent without the key, and
     * refused in the bot's own network unless it is the service's own origin.
     */
    fetchGiven: (url: string, opts?: CallOptions): Promise<Download> => c.fetchGiven(url, opts),
  };
  return group;
}
