import { ServiceFailureError } from "../base/errors.js";
import type { CallOptions } from "./http.js";
import { discardSource, type FilePart } from "./multipart.js";
import type { MediaInitialized } from "./schemas.js";

/** The three steps of the upload flow, as the media resource group offers them. */
export interface UploadSteps {
  initialize(
    input: { fileName: string; contentType: string; fileSize: number },
    opts?: CallOptions,
  ): Promise<MediaInitialized>;
  put(uploadUrl: string, file: FilePart, opts?: CallOptions): Promise<void>;
  finalize(mediaId: string, opts?: CallOptions): Promise<{ success?: boolean | undefined }>;
}

/**
 * initialize -> PUT -> finalize. The file goes from its stream straight onto the wire (a 50 MB
 * video is never held whole); when a step fails before the stream is read, the stream is closed
 * so the download it comes from does not hang open.
 */
export async function uploadMedia(steps: UploadSteps, file: FilePart, opts?: CallOptions): Promise<string> {
  let upload: MediaInitialized;
  try {
    upload = await steps.initialize(
      { fileName: file.fileName, contentType: file.contentType, fileSize: file.size },
      opts,
    );
  } catch (error) {
    discardSource(file);
    throw error;
  }
  await steps.put(upload.uploadUrl, file, opts);
  const finalized = await steps.finalize(upload.mediaId, opts);
  if (finalized.success === false) {
    throw new ServiceFailureError("the upload could not be finalized", undefined, "POST /api/media/finalize");
  }
  return upload.mediaId;
}
