import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import { styleLabel } from "../render/text.js";
import { defineCommand, type StartedJob } from "./define.js";
import { imageFile } from "./files.js";
import {
  ANIMATION_STYLES,
  type AnimationStyle,
  ASSET_TYPES,
  id,
  text,
  titleFrom,
  WIDE_OR_TALL,
} from "./options.js";

/** Product mockups: generate (synchronous), animate into a video, and logo/product assets. */

export interface MockupVideoRequest {
  mockupId: string;
  style: AnimationStyle;
  prompt?: string;
  aspectRatio?: (typeof WIDE_OR_TALL)[number];
}

/** Shared by mockup.video and the Animate form under a generated mockup. */
export async function startMockupVideo(media: MediaApi, request: MockupVideoRequest): Promise<StartedJob> {
  const { mockupId, style, prompt, aspectRatio } = request;
  const common = { mockupId, ...(aspectRatio && { aspectRatio }) };
  const { jobId } = await (style === "custom"
    ? media.mockups.video({ ...common, animationStyle: style, userPrompt: prompt ?? "" })
    : media.mockups.video({ ...common, animationStyle: style, ...(prompt && { userPrompt: prompt }) }));
  return {
    kind: "mockup",
    serviceJobId: jobId,
    title: `Mockup video: ${styleLabel(style)}`,
    inputs: { mockupId, style },
  };
}

/** Mockups are made at once: the job is finished when it starts (also for Use in mockup under an asset). */
export async function generateMockup(
  media: MediaApi,
  request: { productMediaId: string; logoMediaIds: string[]; instruction: string },
): Promise<StartedJob> {
  const generated = await media.mockups.generate(request);
  // The saved mockup (what a video animates) carries the generation's job id; without an echo
  // of it, the mockup list names it by its image.
  const mockupId =
    generated.jobId ?? (await media.mockups.list()).find((m) => m.imageUrl?.includes(generated.mediaId))?.id;
  return {
    kind: "mockup",
    serviceJobId: generated.jobId ?? generated.mediaId,
    title: `Mockup: ${titleFrom(request.instruction)}`,
    inputs: { instruction: request.instruction, ...(mockupId && { mockupId }) },
    finished: {
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "mockup", imageUrl: generated.imageUrl, mediaId: generated.mediaId },
    },
  };
}

export const mockupGenerate = defineCommand({
  name: "mockup.generate",
  help: "Put your logos on a product photo; the result can be animated into a video",
  options: z.object({ instruction: text(2000, "How the mockup should look, e.g. logo centered on the mug") }),
  main: "instruction",
  files: {
    product: imageFile("Photo of the product (PNG, JPEG or WEBP)"),
    logos: imageFile("Logos to place on the product", { required: false, max: 4 }),
  },
  starts: "mockup",
  async run({ options, media, upload }) {
    const [productMediaId] = await upload("product");
    const logoMediaIds = await upload("logos");
    return {
      job: await generateMockup(media, {
        productMediaId: productMediaId!,
        logoMediaIds,
        instruction: options.instruction,
      }),
    };
  },
});

/** How a mockup is animated: asked by mockup.video and by the Animate form under a mockup. */
const animation = {
  style: z.enum(ANIMATION_STYLES).describe("Animation style; custom follows your prompt"),
  prompt: text(2000, "What should happen (required for the custom style)").optional(),
  aspect_ratio: z.enum(WIDE_OR_TALL).describe("Shape of the video (default 9:16)").optional(),
};

function customNeedsPrompt<S extends z.ZodObject<typeof animation>>(schema: S) {
  return schema.refine((o) => o.style !== "custom" || o.prompt !== undefined, {
    message: "is required with the custom style",
    path: ["prompt"],
  });
}

export const animationOptions = customNeedsPrompt(z.object(animation));

export const mockupVideo = defineCommand({
  name: "mockup.video",
  help: "Animate a saved mockup into an 8-second advertisement video",
  options: customNeedsPrompt(
    z.object({ mockup: id("The mockup to animate (pick from the list)"), ...animation }),
  ),
  main: "prompt",
  picks: { mockup: "mockups" },
  starts: "mockup",
  async run({ options, media }) {
    return {
      job: await startMockupVideo(media, {
        mockupId: options.mockup,
        style: options.style,
        ...(options.prompt && { prompt: options.prompt }),
        ...(options.aspect_ratio && { aspectRatio: options.aspect_ratio }),
      }),
    };
  },
});

const assetOptions = z.object({
  prompt: text(2000, "What the asset should look like"),
  type: z.enum(ASSET_TYPES).describe("Logo or product image"),
});

export const mockupAsset = defineCommand({
  name: "mockup.asset",
  help: "Generate a logo or product image to use in mockups",
  options: assetOptions,
  main: "prompt",
  starts: "mockup",
  async run({ options, media }) {
    // Named one by one: a command's options also hold the bot's own (delivery), not the service's.
    const { jobId } = await media.mockups.generateAsset({ prompt: options.prompt, type: options.type });
    return {
      job: {
        kind: "mockup",
        serviceJobId: jobId,
        title: `Mockup ${options.type}: ${titleFrom(options.prompt)}`,
        inputs: { assetType: options.type },
      },
    };
  },
});

export const mockupAssetEdit = defineCommand({
  name: "mockup.asset_edit",
  help: "Edit a logo or product image following a prompt",
  options: assetOptions,
  main: "prompt",
  files: { image: imageFile("The logo or product image to edit (PNG, JPEG or WEBP)") },
  starts: "mockup",
  async run({ options, media, upload }) {
    const [imageMediaId] = await upload("image");
    const { jobId } = await media.mockups.editAsset({
      prompt: options.prompt,
      type: options.type,
      imageMediaId: imageMediaId!,
    });
    return {
      job: {
        kind: "mockup",
        serviceJobId: jobId,
        title: `Edited ${options.type}: ${titleFrom(options.prompt)}`,
        inputs: { assetType: options.type },
      },
    };
  },
});
