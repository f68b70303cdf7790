import { z } from "zod";
import { badRequest } from "../errors.js";
import {
  type ApiCtx,
  type Form,
  formSources,
  isMultipart,
  readForm,
  readJson,
  success,
  validate,
} from "../http.js";
import { newId } from "../ids.js";
import type { PictureSource } from "../media.js";
import { api, param } from "../router.js";
import { finishedAt, inferenceRunning, requireJob, requireMedia } from "./common.js";

const ASPECT_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4"] as const;

const common = {
  name: z.string().trim().min(1).max(200),
  prompt: z.string().trim().min(1).max(5_000),
  aspectRatio: z.enum(ASPECT_RATIOS).optional(),
  negativePrompt: z.string().max(2_000).optional(),
};

const CommonJson = z.object({ ...common, seed: z.number().int().optional() });
/** Multipart fields are text: the seed arrives as digits. */
const CommonForm = z.object({
  ...common,
  seed: z
    .string()
    .regex(/^-?\d+$/, "must be an integer")
    .transform(Number)
    .optional(),
});

const EditJson = CommonJson.extend({
  referenceImageMediaId: z.string().min(1).optional(),
  /** The several-images field name is not shown in the spec; this one is ours. */
  referenceImageMediaIds: z.array(z.string().min(1)).min(1).max(10).optional(),
});

const InpaintJson = CommonJson.extend({
  originalImageMediaId: z.string().min(1),
  maskImageMediaId: z.string().min(1),
});

type Common = z.infer<typeof CommonJson>;

const IMAGE_STATUS = { queued: "inference_started", retrying: false };

/** The image files of a multipart field; `count` is how many the field takes. */
function imageFiles(form: Form, field: string, count: { min: number; max: number }) {
  const files = form.files.filter((file) => file.field === field);
  if (files.length < count.min || files.length > count.max) {
    throw badRequest(
      count.max === 1 ? `${field} takes one image file` : `${field} takes 1 to ${count.max} image files`,
    );
  }
  for (const file of files) {
    if (!file.contentType.startsWith("image/"))
      throw badRequest(`invalid media type: ${field} must be an image file`);
  }
  return files;
}

/** The picture an operation draws: a landscape of the prompt, or its sources edited or inpainted. */
const LOOKS = { "image.generate": "generate", "image.edit": "edit", "image.inpaint": "inpaint" } as const;

function startImage(
  ctx: ApiCtx,
  operation: keyof typeof LOOKS,
  input: Common,
  sources: PictureSource[] = [],
) {
  ctx.state.accounts.charge(ctx.account, operation);
  const { state, account } = ctx;
  const recipe = { kind: LOOKS[operation], prompt: input.prompt, aspectRatio: input.aspectRatio ?? "1:1" };
  const job = state.jobs.start(account.apiKey, "image", (timing) => {
    const media = state.media.generate(
      account.apiKey,
      `${input.name}.png`,
      { type: "picture", recipe, sources },
      state.doneOf(timing),
    );
    const image = {
      id: newId(),
      name: input.name,
      prompt: input.prompt,
      createdAt: finishedAt(timing),
      mediaId: media.id,
    };
    return { kind: "image" as const, image };
  });
  return success({ jobId: job.id, usage: state.accounts.usage(account) });
}

async function generate(ctx: ApiCtx) {
  const input = isMultipart(ctx)
    ? validate(CommonForm, (await readForm(ctx)).fields)
    : await readJson(ctx, CommonJson);
  return startImage(ctx, "image.generate", input);
}

async function edit(ctx: ApiCtx) {
  if (isMultipart(ctx)) {
    const form = await readForm(ctx);
    const input = validate(CommonForm, form.fields);
    const single = form.files.some((file) => file.field === "referenceImage");
    const several = form.files.some((file) => file.field === "referenceImages");
    if (single === several)
      throw badRequest("give referenceImage (one file) or referenceImages (several files)");
    const field = single ? "referenceImage" : "referenceImages";
    imageFiles(form, field, single ? { min: 1, max: 1 } : { min: 1, max: 10 });
    return startImage(ctx, "image.edit", input, formSources(form, field));
  }
  const input = await readJson(ctx, EditJson);
  const { referenceImageMediaId: one, referenceImageMediaIds: several } = input;
  if ((one === undefined) === (several === undefined)) {
    throw badRequest("give referenceImageMediaId or referenceImageMediaIds (exactly one of them)");
  }
  const ids = several ?? [one!];
  for (const id of ids) requireMedia(ctx, id, "image", "reference image", 404);
  return startImage(
    ctx,
    "image.edit",
    input,
    ids.map((mediaId) => ({ mediaId })),
  );
}

async function inpaint(ctx: ApiCtx) {
  if (isMultipart(ctx)) {
    const form = await readForm(ctx);
    const input = validate(CommonForm, form.fields);
    imageFiles(form, "originalImage", { min: 1, max: 1 });
    imageFiles(form, "maskImage", { min: 1, max: 1 });
    const sources = [...formSources(form, "originalImage"), ...formSources(form, "maskImage")];
    return startImage(ctx, "image.inpaint", input, sources.length === 2 ? sources : []);
  }
  const input = await readJson(ctx, InpaintJson);
  requireMedia(ctx, input.originalImageMediaId, "image", "original image", 400);
  requireMedia(ctx, input.maskImageMediaId, "image", "mask image", 400);
  return startImage(ctx, "image.inpaint", input, [
    { mediaId: input.originalImageMediaId },
    { mediaId: input.maskImageMediaId },
  ]);
}

export const imageRoutes = [
  api("POST", "/api/image/generate", generate),
  api("POST", "/api/image/edit", edit),
  api("POST", "/api/image/inpaint", inpaint),

  api("GET", "/api/image/:jobId", (ctx) => {
    const job = requireJob(ctx, param(ctx, "jobId"), ["image"], {
      what: "image job",
      missing: 404,
      foreign: 403,
      wrongKind: 400,
    });
    const progress = ctx.state.jobs.progress(job);
    if (progress.phase === "failed") return success({ status: "inference_failed", reason: job.plan.fail });
    if (progress.phase !== "done") return success(inferenceRunning(progress, IMAGE_STATUS));
    // Completed: the bare Image info, without result/status, as the spec describes it.
    const { image } = job.detail;
    return { json: { ...image, downloadUrl: ctx.state.signedUrl(image.mediaId, `${image.name}.png`) } };
  }),
];
