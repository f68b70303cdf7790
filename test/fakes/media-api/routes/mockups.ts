import { createHash } from "node:crypto";
import { z } from "zod";
import { badRequest, notFound } from "../errors.js";
import { type ApiCtx, formSources, isMultipart, readForm, readJson, success, validate } from "../http.js";
import { newId } from "../ids.js";
import { KEEP_IMAGE_BYTES, type PictureSource, videoContent } from "../media.js";
import { api, param } from "../router.js";
import { finishedAt, requireJob, requireMedia, viewPath } from "./common.js";

const ANIMATION_STYLES = [
  "luxury_macro",
  "neo_noir_night",
  "warm_lifestyle_sunset",
  "futuristic_clean_studio",
  "cyberpunk_showcase",
  "film_35mm_editorial",
  "high_fashion_runway",
  "nature_premium",
  "custom",
] as const;

/** Layer placements show no fields in the spec: any object is accepted and kept as sent. */
const Generate = z.object({
  productMediaId: z.string().min(1),
  logoMediaIds: z.array(z.string().min(1)).max(10).default([]),
  layers: z.array(z.looseObject({})).default([]),
  instruction: z.string().trim().min(1).max(5_000),
});

const MockupVideo = z
  .object({
    mockupId: z.string().min(1),
    animationStyle: z.enum(ANIMATION_STYLES),
    userPrompt: z.string().trim().min(1).max(2_000).optional(),
    aspectRatio: z.enum(["16:9", "9:16"]).default("9:16"),
  })
  .refine((input) => input.animationStyle !== "custom" || input.userPrompt !== undefined, {
    message: "userPrompt is required when animationStyle is custom",
    path: ["userPrompt"],
  });

const assetFields = { prompt: z.string().trim().min(1).max(5_000), type: z.enum(["logo", "product"]) };
const AssetGenerate = z.object(assetFields);
const AssetEditJson = z.object({
  ...assetFields,
  imageMediaId: z.string().min(1).optional(),
  imageBase64: z.string().min(1).optional(),
});

/** Accepts plain base64 or a data: URL (its type, then the data). */
const BASE64 = /^(?:data:([\w/+.-]+);base64,)?([A-Za-z0-9+/]+={0,2})$/;

function startAsset(
  ctx: ApiCtx,
  input: { prompt: string; type: "logo" | "product" },
  source: "generate" | "edit",
  sources: PictureSource[] = [],
) {
  ctx.state.accounts.charge(ctx.account, "mockup.asset");
  const { state, account } = ctx;
  const recipe = {
    kind: "asset" as const,
    type: input.type,
    prompt: input.prompt,
    edited: source === "edit",
  };
  const job = state.jobs.start(account.apiKey, "mockup_asset", (timing) => {
    const ready = state.doneOf(timing);
    const content = { type: "picture" as const, recipe, sources };
    const media = state.media.generate(account.apiKey, `${input.type}.png`, content, ready);
    const asset = {
      id: newId(),
      jobId: timing.id,
      type: input.type,
      prompt: input.prompt,
      source,
      mediaId: media.id,
      imageUrl: viewPath(media.id),
      createdAt: finishedAt(timing),
    };
    state.assets.add(account.apiKey, asset, ready);
    return { kind: "mockup_asset" as const, mediaId: media.id };
  });
  return success({ jobId: job.id });
}

async function editAsset(ctx: ApiCtx) {
  let input: z.infer<typeof AssetEditJson>;
  let files = 0;
  let sources: PictureSource[] = [];
  if (isMultipart(ctx)) {
    const form = await readForm(ctx);
    input = validate(AssetEditJson, form.fields);
    const images = form.files.filter((file) => file.field === "image");
    if (images.some((file) => !file.contentType.startsWith("image/"))) {
      throw badRequest("invalid media type: image must be an image file");
    }
    files = images.length;
    sources = formSources(form, "image");
  } else {
    input = await readJson(ctx, AssetEditJson);
  }
  const given = [input.imageMediaId, input.imageBase64].filter((s) => s !== undefined).length + files;
  if (given !== 1) throw badRequest("give exactly one of imageMediaId, imageBase64 or an image file");
  if (input.imageMediaId !== undefined) {
    requireMedia(ctx, input.imageMediaId, "image", "image media", 404);
    sources = [{ mediaId: input.imageMediaId }];
  }
  if (input.imageBase64 !== undefined) {
    const match = BASE64.exec(input.imageBase64);
    if (!match) throw badRequest("imageBase64 is not valid base64");
    const [, type = "image/png", data = ""] = match;
    const bytes = Buffer.from(data, "base64");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (bytes.length <= KEEP_IMAGE_BYTES) sources = [{ bytes, contentType: type, sha256 }];
  }
  return startAsset(ctx, input, "edit", sources);
}

export const mockupRoutes = [
  api("POST", "/api/mockup/generate", async (ctx) => {
    const input = await readJson(ctx, Generate);
    requireMedia(ctx, input.productMediaId, "image", "product media", 404);
    for (const id of input.logoMediaIds) requireMedia(ctx, id, "image", "logo media", 400);
    ctx.state.accounts.charge(ctx.account, "mockup.generate");
    const { state, account } = ctx;
    const sources = [input.productMediaId, ...input.logoMediaIds].map((mediaId) => ({ mediaId }));
    const recipe = { kind: "mockup" as const, instruction: input.instruction };
    const media = state.media.generate(account.apiKey, "mockup.png", { type: "picture", recipe, sources });
    const mediaId = media.id;
    // Synchronous: a zero-length job, so its status endpoint reports it completed like the others.
    const job = state.jobs.start(account.apiKey, "mockup", (timing) => {
      state.mockups.add(account.apiKey, {
        id: timing.id,
        imageUrl: viewPath(mediaId),
        prompt: input.instruction,
        createdAt: state.isoNow(),
        mediaId,
        productMediaId: input.productMediaId,
        logoMediaIds: input.logoMediaIds,
        layers: input.layers,
      });
      return { kind: "mockup" as const, mediaId };
    });
    return success({
      jobId: job.id,
      imageUrl: viewPath(mediaId),
      mediaId,
      usage: state.accounts.usage(account),
    });
  }),

  api("POST", "/api/mockup/video", async (ctx) => {
    const input = await readJson(ctx, MockupVideo);
    if (!ctx.state.mockups.get(ctx.account.apiKey, input.mockupId)) throw notFound("mockup not found");
    ctx.state.accounts.charge(ctx.account, "mockup.video");
    const { state, account } = ctx;
    const job = state.jobs.start(account.apiKey, "mockup_video", (timing) => {
      const ready = state.doneOf(timing);
      const content = videoContent(input.aspectRatio, timing.plan.large, state.settings.largeVideoBytes);
      const media = state.media.generate(account.apiKey, "mockup-video.mp4", content, ready);
      const video = {
        id: newId(),
        jobId: timing.id,
        mockupId: input.mockupId,
        animationStyle: input.animationStyle,
        aspectRatio: input.aspectRatio,
        durationSeconds: 8 as const,
        mediaId: media.id,
        videoUrl: viewPath(media.id),
        createdAt: finishedAt(timing),
      };
      state.mockupVideos.add(account.apiKey, video, ready);
      return { kind: "mockup_video" as const, mediaId: media.id };
    });
    return success({ jobId: job.id });
  }),

  api("POST", "/api/mockup/asset/generate", async (ctx) =>
    startAsset(ctx, await readJson(ctx, AssetGenerate), "generate"),
  ),
  api("POST", "/api/mockup/asset/edit", editAsset),

  api("GET", "/api/mockups", (ctx) => success({ mockups: ctx.state.mockups.list(ctx.account.apiKey) })),
  api("GET", "/api/mockup/assets", (ctx) => success({ assets: ctx.state.assets.list(ctx.account.apiKey) })),
  api("GET", "/api/mockup/videos", (ctx) =>
    success({ videos: ctx.state.mockupVideos.list(ctx.account.apiKey) }),
  ),

  api("GET", "/api/mockup/:id/status", (ctx) => {
    const job = requireJob(ctx, param(ctx, "id"), ["mockup", "mockup_asset", "mockup_video"], {
      what: "mockup job",
      missing: 404,
    });
    const { phase, percent } = ctx.state.jobs.progress(job);
    switch (phase) {
      case "done":
        return success({
          status: "completed",
          progress: 100,
          imageUrl: viewPath(job.detail.mediaId),
          mediaId: job.detail.mediaId,
        });
      case "failed":
        return success({ status: "failed", progress: percent, reason: job.plan.fail });
      case "queued":
      case "starting":
        return success({ status: "waiting", progress: 0 });
      default:
        return success({ status: "started", progress: percent });
    }
  }),
];
