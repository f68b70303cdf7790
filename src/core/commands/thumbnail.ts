import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import { ThumbnailGenerateInput } from "../api/resources/thumbnails.js";
import { defineCommand, type StartedJob } from "./define.js";
import { imageFile } from "./files.js";
import { seed, text, titleFrom, WIDE_OR_TALL } from "./options.js";

async function startThumbnail(media: MediaApi, request: ThumbnailGenerateInput): Promise<StartedJob> {
  const { jobId } = await media.thumbnails.generate(request);
  return {
    kind: "thumbnail",
    serviceJobId: jobId,
    title: `Thumbnail: ${request.name}`,
    inputs: { request: { ...request } },
  };
}

export const thumbnailGenerate = defineCommand({
  name: "thumbnail.generate",
  help: "Generate a video thumbnail from a prompt, optionally with reference images",
  options: z.object({
    prompt: text(2000, "What the thumbnail should show"),
    name: text(100, "Name of the thumbnail (default: the first words of the prompt)").optional(),
    aspect_ratio: z.enum(WIDE_OR_TALL).describe("16:9 for videos (default), 9:16 for shorts").optional(),
    negative_prompt: text(1000, "What the thumbnail should not show").optional(),
    seed: seed.optional(),
  }),
  main: "prompt",
  files: { references: imageFile("Reference images (faces, products, style)", { required: false, max: 4 }) },
  starts: "thumbnail",
  async run({ options, media, upload }) {
    const references = await upload("references");
    return {
      job: await startThumbnail(media, {
        prompt: options.prompt,
        name: options.name ?? titleFrom(options.prompt),
        ...(options.aspect_ratio && { aspectRatio: options.aspect_ratio }),
        ...(options.negative_prompt && { negativePrompt: options.negative_prompt }),
        ...(options.seed !== undefined && { seed: options.seed }),
        ...(references.length > 0 && { referenceImageMediaIds: references }),
      }),
    };
  },
  again: (media, request) => startThumbnail(media, ThumbnailGenerateInput.loose().parse(request)),
  seeded: true,
});
