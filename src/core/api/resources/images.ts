import { ImageJob, JobCreated } from "../schemas.js";
import {
  type Caller,
  type CallOptions,
  type FilePart,
  type OneOf,
  type PostOptions,
  path,
} from "./caller.js";

export type ImageAspectRatio = "1:1" | "16:9" | "9:16" | "4:3" | "3:4";

export interface ImageCommon {
  prompt: string;
  name: string;
  aspectRatio?: ImageAspectRatio;
  negativePrompt?: string;
  seed?: number;
}

/** The image(s) to edit: media ids as JSON, files as multipart. */
export type ImageEditInput = ImageCommon &
  OneOf<{
    referenceImageMediaId: string;
    referenceImageMediaIds: string[];
    referenceImage: FilePart;
    referenceImages: FilePart[];
  }>;

export type ImageInpaintInput = ImageCommon &
  (
    | { originalImageMediaId: string; maskImageMediaId: string; originalImage?: never; maskImage?: never }
    | { originalImage: FilePart; maskImage: FilePart; originalImageMediaId?: never; maskImageMediaId?: never }
  );

/** Spec 4.6. */
export function images(c: Caller) {
  return {
    /** JSON by default; `{ encoding: "multipart" }` sends the same fields as a form. */
    generate: (input: ImageCommon, opts?: PostOptions) =>
      c.post("/api/image/generate", JobCreated, input, opts),
    edit: (input: ImageEditInput, opts?: CallOptions) => c.post("/api/image/edit", JobCreated, input, opts),
    /** The mask is black and white: white is replaced, black is kept. */
    inpaint: (input: ImageInpaintInput, opts?: CallOptions) =>
      c.post("/api/image/inpaint", JobCreated, input, opts),
    /** The job's status while it runs, its Image info once complete. */
    get: (jobId: string, opts?: CallOptions) => c.get(path`/api/image/${jobId}`, ImageJob, opts),
  };
}
