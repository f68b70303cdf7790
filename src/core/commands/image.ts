import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import { ImageByIds } from "../api/resources/images.js";
import { jobName, requestOf, seedOption, serves } from "./declare.js";
import { type CommandContext, defineCommand, type StartedJob } from "./define.js";
import { imageFile } from "./files.js";
import { IMAGE_ASPECT_RATIOS, text, titleFrom } from "./options.js";
import { jobTitle } from "./titles.js";

/** image.generate, image.edit and image.inpaint: one option set, one way to start and regenerate. */

export const imageOptions = z.object({
  prompt: serves("prompt", text(2000, "What the image should show")),
  name: jobName("Name of the image (default: the first words of the prompt)", "prompt"),
  aspect_ratio: serves(
    "aspectRatio",
    z.enum(IMAGE_ASPECT_RATIOS).describe("Shape of the image (default: the server's setting)").optional(),
  ),
  negative_prompt: serves("negativePrompt", text(1000, "What the image should not show").optional()),
  seed: seedOption,
});
type Options = z.output<typeof imageOptions>;

/** The JSON body of the creation call, kept as the job's inputs so Regenerate can send it again. */
export type ImageRequest = z.infer<typeof ImageByIds>;

export type ImageCommand = "image.generate" | "image.edit" | "image.inpaint";

const CREATE: Record<ImageCommand, (media: MediaApi, request: ImageRequest) => Promise<{ jobId: string }>> = {
  "image.generate": (media, request) => media.images.generate(request),
  // The request was built from uploads by `edit` below, so exactly one reference form is present.
  "image.edit": (media, request) => media.images.edit(request as Parameters<MediaApi["images"]["edit"]>[0]),
  "image.inpaint": (media, request) =>
    media.images.inpaint(request as Parameters<MediaApi["images"]["inpaint"]>[0]),
};

export async function startImage(
  media: MediaApi,
  command: ImageCommand,
  request: ImageRequest,
): Promise<StartedJob> {
  const { jobId } = await CREATE[command](media, request);
  return {
    kind: "image",
    serviceJobId: jobId,
    title: jobTitle("image", titleFrom(request.prompt)),
    inputs: { request: { ...request } },
  };
}

function imageCommand(
  name: ImageCommand,
  help: string,
  files: Record<string, ReturnType<typeof imageFile>>,
  references: (ctx: CommandContext<Options>) => Promise<Partial<ImageRequest>>,
) {
  return defineCommand({
    name,
    help,
    options: imageOptions,
    main: "prompt",
    files,
    starts: "image",
    async run(ctx) {
      const request = { ...requestOf(imageOptions, ctx.options), ...(await references(ctx)) };
      return { job: await startImage(ctx.media, name, request) };
    },
    again: (media, request) => startImage(media, name, ImageByIds.loose().parse(request)),
  });
}

export const imageGenerate = imageCommand(
  "image.generate",
  "Generate an image from a text prompt",
  {},
  async () => ({}),
);

export const imageEdit = imageCommand(
  "image.edit",
  "Edit one or more images following a prompt",
  { image: imageFile("The image(s) to edit (PNG, JPEG or WEBP)", { max: 4 }) },
  async (ctx) => {
    const ids = await ctx.upload("image");
    return ids.length === 1 ? { referenceImageMediaId: ids[0]! } : { referenceImageMediaIds: ids };
  },
);

export const imageInpaint = imageCommand(
  "image.inpaint",
  "Repaint the white areas of a mask on an image",
  {
    image: imageFile("The image to repaint (PNG, JPEG or WEBP)"),
    mask: imageFile("Black and white mask: white is repainted, black is kept"),
  },
  async (ctx) => {
    const [originalImageMediaId] = await ctx.upload("image");
    const [maskImageMediaId] = await ctx.upload("mask");
    return { originalImageMediaId: originalImageMediaId!, maskImageMediaId: maskImageMediaId! };
  },
);
