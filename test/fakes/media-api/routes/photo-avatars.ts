import { z } from "zod";
import { badRequest } from "../errors.js";
import { type ApiCtx, readJson, success } from "../http.js";
import { newId } from "../ids.js";
import type { MediaRecord } from "../media.js";
import { api, param } from "../router.js";
import type { JobOf } from "../state.js";
import { inferenceRunning, requireJob, requireMedia, voiceFor } from "./common.js";

/** The design fields' allowed values are not shown in the spec: any text is accepted. */
const Design = z.object({
  name: z.string().trim().min(1).max(200),
  design: z.object({
    gender: z.string().optional(),
    age: z.string().optional(),
    ethnicity: z.string().optional(),
    outfit: z.string().optional(),
    background: z.string().optional(),
    isPortrait: z.boolean().optional(),
  }),
  audioMediaId: z.string().min(1).optional(),
});

const Confirm = z.object({ jobId: z.string().min(1), variant: z.number() });
const ConfirmBoth = z.object({ jobId: z.string().min(1) });

const Selfie = z.object({
  name: z.string().trim().min(1).max(200),
  photoMediaId: z.string().min(1),
  audioMediaId: z.string().min(1).optional(),
});

const Enhance = Selfie.extend({ prompt: z.string().trim().min(1).max(2_000) });

const PHOTO_STATUS = { queued: "queued", retrying: true };

const optionalAudio = (ctx: ApiCtx, id: string | undefined): MediaRecord | undefined =>
  id === undefined ? undefined : requireMedia(ctx, id, "audio", "audio media", 400);

/** The caller's design job, ready for a choice; the 400s of the spec otherwise. */
function designJobToConfirm(ctx: ApiCtx, jobId: string, alreadyDone: string) {
  const job = requireJob(ctx, jobId, ["photo_avatar"], { what: "photo avatar job", missing: "failure" });
  const { detail } = job;
  if (detail.flow !== "design") throw badRequest("invalid job type: not a design job");
  if (detail.confirmed) throw badRequest(alreadyDone);
  const { phase } = ctx.state.jobs.progress(job);
  if (phase !== "done")
    throw badRequest(`job not ready (${phase === "failed" ? "inference_failed" : "still running"})`);
  return { job, detail };
}

function status(ctx: ApiCtx, job: JobOf<"photo_avatar">) {
  const { detail } = job;
  if (detail.flow === "design" && detail.confirmed) {
    const { avatarIds } = detail.confirmed;
    return success({ status: "inference_complete", terminal: true, avatarId: avatarIds[0], avatarIds });
  }
  const progress = ctx.state.jobs.progress(job);
  if (progress.phase === "failed")
    return success({ status: "inference_failed", terminal: true, reason: job.plan.fail });
  if (progress.phase !== "done")
    return success({ ...inferenceRunning(progress, PHOTO_STATUS), terminal: false });
  if (detail.flow === "enhance") {
    return success({
      status: "inference_complete",
      terminal: true,
      avatarId: detail.avatarId,
      avatarIds: [detail.avatarId],
    });
  }
  const variantPreviewUrls = detail.variantMediaIds.map((id, i) =>
    ctx.state.signedUrl(id, `${detail.name}-variant-${i + 1}.png`),
  );
  return success({ status: "variants_ready", terminal: false, variantPreviewUrls });
}

export const photoAvatarRoutes = [
  api("POST", "/api/avatar/design/create", async (ctx) => {
    const input = await readJson(ctx, Design);
    const audio = optionalAudio(ctx, input.audioMediaId);
    ctx.state.accounts.charge(ctx.account, "avatar.design");
    const { state, account } = ctx;
    const job = state.jobs.start(account.apiKey, "photo_avatar_design", (timing) => {
      const { isPortrait, ...design } = input.design;
      const variant = (n: number) => {
        const recipe = {
          kind: "avatar" as const,
          name: input.name,
          variant: n,
          portrait: isPortrait ?? true,
          design,
        };
        const content = { type: "picture" as const, recipe, sources: [] };
        return state.media.generate(
          account.apiKey,
          `${input.name}-variant-${n}.png`,
          content,
          state.doneOf(timing),
        ).id;
      };
      return {
        kind: "photo_avatar" as const,
        flow: "design" as const,
        name: input.name,
        variantMediaIds: [variant(1), variant(2)] as [string, string],
        ...(audio ? { audioMediaId: audio.id } : {}),
      };
    });
    return success({ jobId: job.id });
  }),

  api("POST", "/api/avatar/design/confirm", async (ctx) => {
    const { jobId, variant } = await readJson(ctx, Confirm);
    if (variant !== 1 && variant !== 2) throw badRequest("invalid variant: expected 1 or 2");
    const { detail } = designJobToConfirm(ctx, jobId, "job already confirmed");
    const mediaId = detail.variantMediaIds[variant - 1]!;
    const avatarId = addPhotoAvatar(ctx, detail.name, mediaId, detail.audioMediaId);
    detail.confirmed = { avatarIds: [avatarId], mediaIds: [mediaId] };
    return success({ avatarId, mediaId });
  }),

  api("POST", "/api/avatar/design/confirm-both", async (ctx) => {
    const { jobId } = await readJson(ctx, ConfirmBoth);
    const { detail } = designJobToConfirm(ctx, jobId, "job already finalized");
    const mediaIds = [...detail.variantMediaIds];
    const avatarIds = mediaIds.map((mediaId, i) =>
      addPhotoAvatar(ctx, `${detail.name} - ${i + 1}`, mediaId, detail.audioMediaId),
    );
    detail.confirmed = { avatarIds, mediaIds };
    return success({ avatarIds, mediaIds });
  }),

  api("POST", "/api/avatar/from-selfie/create", async (ctx) => {
    const input = await readJson(ctx, Selfie);
    const photo = requireMedia(ctx, input.photoMediaId, "image", "photo media", "failure");
    const audio = optionalAudio(ctx, input.audioMediaId);
    ctx.state.accounts.charge(ctx.account, "avatar.selfie");
    return success({ avatarId: addPhotoAvatar(ctx, input.name, photo.id, audio?.id) });
  }),

  api("POST", "/api/avatar/from-selfie/enhance", async (ctx) => {
    const input = await readJson(ctx, Enhance);
    requireMedia(ctx, input.photoMediaId, "image", "photo media", 400);
    const audio = optionalAudio(ctx, input.audioMediaId);
    ctx.state.accounts.charge(ctx.account, "avatar.enhance");
    const { state, account } = ctx;
    const job = state.jobs.start(account.apiKey, "photo_avatar_enhance", (timing) => {
      const ready = state.doneOf(timing);
      const recipe = { kind: "enhance" as const, name: input.name, prompt: input.prompt };
      const content = { type: "picture" as const, recipe, sources: [{ mediaId: input.photoMediaId }] };
      const media = state.media.generate(account.apiKey, `${input.name}.png`, content, ready);
      const avatarId = addPhotoAvatar(ctx, input.name, media.id, audio?.id, ready);
      return { kind: "photo_avatar" as const, flow: "enhance" as const, avatarId };
    });
    return success({ jobId: job.id });
  }),

  api("GET", "/api/avatar/jobs/:jobId/status", (ctx) => {
    const job = requireJob(ctx, param(ctx, "jobId"), ["photo_avatar"], {
      what: "photo-avatar creation job",
      missing: 404,
      foreign: 403,
      wrongKind: 400,
    });
    return status(ctx, job);
  }),
];

/** A photo avatar of the account (listed once `ready`), with its own voice when audio was given. */
function addPhotoAvatar(
  ctx: ApiCtx,
  name: string,
  mediaId: string,
  audioMediaId?: string,
  ready?: () => boolean,
) {
  const avatar = {
    id: newId(),
    name,
    createdAt: ctx.state.isoNow(),
    voiceId: voiceFor(ctx, name, audioMediaId !== undefined, ready),
    isPhoto: true,
    mediaId,
  };
  return ctx.state.avatars.add(ctx.account.apiKey, avatar, ready).id;
}
