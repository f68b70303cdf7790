import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import { ThumbnailGenerateInput } from "../api/resources/thumbnails.js";
import { jobName, requestOf, seedOption, serves } from "./declare.js";
import { defineCommand, type StartedJob } from "./define.js";
import { imageFile } from "./files.js";
import { text, WIDE_OR_TALL } from "./options.js";
import { jobTitle } from "./titles.js";

async function startThumbnail(media: MediaApi, request: ThumbnailGenerateInput): Promise<StartedJob> {
  const { jobId } = await media.thumbnails.generate(request);
  return {
    kind: "thumbnail",
    serviceJobId: jobId,
    title: jobTitle("thumbnail", request.name),
    inputs: { request: { ...request } },
  };
}

const options = z.object({
  prompt: serves("prompt", text(2000, "What the thumbnail should show")),
  name: jobName("Name of the thumbnail (default: the first words of the prompt)", "prompt"),
  aspect_ratio: serves(
    "aspectRatio",
    z.enum(WIDE_OR_TALL).describe("16:9 for videos (default), 9:16 for shorts").optional(),
  ),
  negative_prompt: serves("negativePrompt", text(1000, "What the thumbnail should not show").optional()),
  seed: seedOption,
});

export const thumbnailGenerate = defineCommand({
  name: "thumbnail.generate",
  help: "Generate a video thumbnail from a prompt, optionally with reference images",
  options,
  main: "prompt",
  files: { references: imageFile("Reference images (faces, products, style)", { required: false, max: 4 }) },
  starts: "thumbnail",
  async run({ options: given, media, upload }) {
    const references = await upload("references");
    return {
      job: await startThumbnail(media, {
        ...requestOf(options, given),
        ...(references.length > 0 && { referenceImageMediaIds: references }),
      }),
    };
  },
  again: (media, request) => startThumbnail(media, ThumbnailGenerateInput.loose().parse(request)),
});
