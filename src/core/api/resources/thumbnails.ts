import { z } from "zod";
import { JobCreated, ThumbnailJob, ThumbnailPage } from "../schemas.js";
import { type Caller, type CallOptions, path } from "./caller.js";

/** A schema too: a job keeps its request (as plain JSON) to send it again, and parses it then. */
export const ThumbnailGenerateInput = z.object({
  prompt: z.string(),
  name: z.string(),
  /** 9:16 is for short-form video; the service defaults to 16:9. */
  aspectRatio: z.enum(["16:9", "9:16"]).optional(),
  referenceImageMediaIds: z.array(z.string()).optional(),
  negativePrompt: z.string().optional(),
  seed: z.number().optional(),
});
export type ThumbnailGenerateInput = z.infer<typeof ThumbnailGenerateInput>;

/** Spec 4.8. The list's path is not in the spec, so it is configuration. */
export function thumbnails(c: Caller, listPath: string) {
  return {
    generate: (input: ThumbnailGenerateInput, opts?: CallOptions) =>
      c.post("/api/thumbnail/generate", JobCreated, input, opts),
    /** `{status, progress}` while generating, the thumbnail's details once complete. */
    get: (id: string, opts?: CallOptions) => c.get(path`/api/thumbnail/${id}`, ThumbnailJob, opts),
    /** Pages start at 1. */
    list: (input: { page?: number } = {}, opts?: CallOptions) =>
      c.get(listPath, ThumbnailPage, opts, { page: input.page }),
  };
}
