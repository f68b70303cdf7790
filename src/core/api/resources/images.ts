import { z } from "zod";
import { ImageJob, JobCreated } from "../schemas.js";
import {
  type Caller,
  type CallOptions,
  type FilePart,
  type OneOf,
  type PostOptions,
  path,
} from "./caller.js";

export const ImageAspectRatio = z.enum(["1:1", "16:9", "9:16", "4:3", "3:4"]);
export type ImageAspectRatio = z.infer<typeof ImageAspectRatio>;

/**
 * The fields of every image creation. The inputs have schemas because a job keeps its request
 * (as plain JSON) to send it again: it is parsed when it is read back.
 */
export const ImageCommon = z.object({
  prompt: z.string(),
  name: z.string(),
  aspectRatio: ImageAspectRatio.optional(),
  negativePrompt: z.string().optional(),
  seed: z.number().optional(),
});
export type ImageCommon = z.infer<typeof ImageCommon>;

/** Any of the three creations with the images given by media id: the JSON body a job keeps. */
export const ImageByIds = ImageCommon.extend({
  referenceImageMediaId: z.string().optional(),
  referenceImageMediaIds: z.array(z.string()).optional(),
  originalImageMediaId: z.string().optional(),
  maskImageMediaId: z.string().optional(),
});

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
