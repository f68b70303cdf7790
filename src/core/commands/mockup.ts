import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import { styleLabel } from "../render/text.js";
import { requestOf, serves } from "./declare.js";
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
import { jobTitle } from "./titles.js";

/** Product mockups: generate (synchronous), animate into a video, and logo/product assets. */

/** The request of a mockup video, as mockup.video and the Animate form under a mockup make it. */
export interface MockupVideoRequest {
  mockupId: string;
  animationStyle: AnimationStyle;
  userPrompt?: string;
  aspectRatio?: (typeof WIDE_OR_TALL)[number];
}

export async function startMockupVideo(media: MediaApi, request: MockupVideoRequest): Promise<StartedJob> {
  const { animationStyle, userPrompt, ...common } = request;
  const { jobId } = await (animationStyle === "custom"
    ? media.mockups.video({ ...common, animationStyle, userPrompt: userPrompt ?? "" })
    : media.mockups.video({ ...common, animationStyle, ...(userPrompt && { userPrompt }) }));
  return {
    kind: "mockup",
    serviceJobId: jobId,
    title: jobTitle("mockup_video", styleLabel(animationStyle)),
    // Kept by option name: what "How it was made" and Save as preset read of a job without a request.
    inputs: { mockupId: common.mockupId, style: animationStyle },
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
    title: jobTitle("mockup", titleFrom(request.instruction)),
    inputs: { instruction: request.instruction, ...(mockupId && { mockupId }) },
    finished: {
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "mockup", imageUrl: generated.imageUrl, mediaId: generated.mediaId },
    },
  };
}

const generateOptions = z.object({
  instruction: serves("instruction", text(2000, "How the mockup should look, e.g. logo centered on the mug")),
});

export const mockupGenerate = defineCommand({
  name: "mockup.generate",
  help: "Put your logos on a product photo; the result can be animated into a video",
  options: generateOptions,
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
        ...requestOf(generateOptions, options),
        productMediaId: productMediaId!,
        logoMediaIds,
      }),
    };
  },
});

/** How a mockup is animated: asked by mockup.video and by the Animate form under a mockup. */
const animation = {
  style: serves(
    "animationStyle",
    z.enum(ANIMATION_STYLES).describe("Animation style; custom follows your prompt"),
    {
      show: styleLabel,
    },
  ),
  prompt: serves("userPrompt", text(2000, "What should happen (required for the custom style)").optional()),
  aspect_ratio: serves(
    "aspectRatio",
    z.enum(WIDE_OR_TALL).describe("Shape of the video (default 9:16)").optional(),
  ),
};

function customNeedsPrompt<S extends z.ZodObject<typeof animation>>(schema: S) {
  return schema.refine((o) => o.style !== "custom" || o.prompt !== undefined, {
    message: "is required with the custom style",
    path: ["prompt"],
  });
}

export const animationOptions = customNeedsPrompt(z.object(animation));

const videoOptions = customNeedsPrompt(
  z.object({ mockup: serves("mockupId", id("The mockup to animate (pick from the list)")), ...animation }),
);

export const mockupVideo = defineCommand({
  name: "mockup.video",
  help: "Animate a saved mockup into an 8-second advertisement video",
  options: videoOptions,
  main: "prompt",
  picks: { mockup: "mockups" },
  starts: "mockup",
  async run({ options, media }) {
    return { job: await startMockupVideo(media, requestOf(videoOptions, options)) };
  },
});

const assetOptions = z.object({
  prompt: serves("prompt", text(2000, "What the asset should look like")),
  type: serves("type", z.enum(ASSET_TYPES).describe("Logo or product image")),
});

export const mockupAsset = defineCommand({
  name: "mockup.asset",
  help: "Generate a logo or product image to use in mockups",
  options: assetOptions,
  main: "prompt",
  starts: "mockup",
  async run({ options, media }) {
    const { jobId } = await media.mockups.generateAsset(requestOf(assetOptions, options));
    return {
      job: {
        kind: "mockup",
        serviceJobId: jobId,
        title: jobTitle("mockup_asset", titleFrom(options.prompt), options.type),
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
      ...requestOf(assetOptions, options),
      imageMediaId: imageMediaId!,
    });
    return {
      job: {
        kind: "mockup",
        serviceJobId: jobId,
        title: jobTitle("mockup_edited", titleFrom(options.prompt), options.type),
        inputs: { assetType: options.type },
      },
    };
  },
});
