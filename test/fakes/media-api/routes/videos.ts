import { z } from "zod";
import { STOCK_VOICES } from "../catalog.js";
import { badRequest, Failure, notFound } from "../errors.js";
import { type ApiCtx, isMultipart, json, readForm, readJson, success, validate } from "../http.js";
import { newId } from "../ids.js";
import type { DurationKey } from "../jobs.js";
import { videoContent } from "../media.js";
import type { AspectRatio } from "../pictures.js";
import { api, param } from "../router.js";
import type { Video } from "../state.js";
import { finishedAt, inferenceRunning, requireJob, requireMedia } from "./common.js";

const AvatarVideoJson = z.object({
  avatarId: z.string().min(1),
  name: z.string().trim().min(1),
  voiceId: z.string().min(1),
  text: z.string().trim().min(1).max(10_000),
  im2vid_full: z.boolean().optional(),
});

const AvatarVideoForm = z.object({
  avatarId: z.string().min(1),
  name: z.string().trim().min(1),
  im2vid_full: z.stringbool().optional(),
});

/**
 * Cinematic settings: the spec names them but not their values, so these sets are ours; unknown
 * further settings pass through, as the spec says more exist.
 */
const Cinematic = z.looseObject({
  name: z.string().trim().min(1),
  prompt: z.string().trim().min(1).max(5_000),
  aspectRatio: z.enum(["16:9", "9:16", "1:1", "4:3", "3:4"]).optional(),
  durationSeconds: z.number().int().min(1).max(30).optional(),
  resolution: z.enum(["480p", "720p", "1080p"]).optional(),
  firstFrameImageMediaId: z.string().min(1).optional(),
  referenceImageMediaIds: z.array(z.string().min(1)).max(10).optional(),
});

const VIDEO_STATUS = { queued: "inference_started", retrying: true };

const listed = ({ id, name, sourceAvatarId, createdAt }: Video) => ({ id, name, sourceAvatarId, createdAt });

/** Starts a video job; its Video record (and MP4) exist once the job completes. */
function startVideo(
  ctx: ApiCtx,
  key: Extract<DurationKey, "video" | "cinematic">,
  name: string,
  sourceAvatarId: string,
  aspectRatio: AspectRatio,
) {
  const { state, account } = ctx;
  const job = state.jobs.start(account.apiKey, key, (timing) => {
    const ready = state.doneOf(timing);
    const media = state.media.generate(
      account.apiKey,
      `${name}.mp4`,
      videoContent(aspectRatio, timing.plan.large, state.settings.largeVideoBytes),
      ready,
    );
    const video = { id: newId(), name, sourceAvatarId, createdAt: finishedAt(timing), mediaId: media.id };
    state.videos.add(account.apiKey, video, ready);
    return { kind: key, videoId: video.id };
  });
  return success({ jobId: job.id, usage: state.accounts.usage(account) });
}

async function createAvatarVideo(ctx: ApiCtx) {
  let input: { avatarId: string; name: string; voiceId?: string };
  if (isMultipart(ctx)) {
    const form = await readForm(ctx);
    input = validate(AvatarVideoForm, form.fields);
    const speech = form.files.filter((file) => file.field === "speechFile");
    if (speech.length !== 1) throw badRequest("speechFile is required (one audio file)");
    if (!speech[0]!.contentType.startsWith("audio/")) throw badRequest("speechFile must be an audio file");
  } else {
    input = await readJson(ctx, AvatarVideoJson);
  }
  if (!ctx.state.findAvatar(ctx.account.apiKey, input.avatarId)) throw new Failure("unknown avatar");
  if (input.voiceId !== undefined && !ctx.state.findVoice(ctx.account.apiKey, input.voiceId)) {
    throw new Failure("unknown voice");
  }
  ctx.state.accounts.charge(ctx.account, "video.create");
  // The service says nothing of an avatar video's shape: landscape, as a talking head is filmed.
  return startVideo(ctx, "video", input.name, input.avatarId, "16:9");
}

export const videoRoutes = [
  api("GET", "/api/avatars", (ctx) => json({ avatars: ctx.state.allAvatars(ctx.account.apiKey) })),

  api("GET", "/api/voices", (ctx) =>
    json({ [ctx.state.settings.voicesKey]: [...STOCK_VOICES, ...ctx.state.voices.list(ctx.account.apiKey)] }),
  ),

  api("GET", "/api/videos", (ctx) => json({ videos: ctx.state.videos.list(ctx.account.apiKey).map(listed) })),

  api("POST", "/api/video/create", createAvatarVideo),

  api("POST", "/api/video/cinematic/create", async (ctx) => {
    const input = await readJson(ctx, Cinematic);
    const images = [input.firstFrameImageMediaId, ...(input.referenceImageMediaIds ?? [])];
    for (const id of images) {
      if (id !== undefined) requireMedia(ctx, id, "image", "media permission error: image", 400);
    }
    ctx.state.accounts.charge(ctx.account, "video.cinematic");
    return startVideo(ctx, "cinematic", input.name, "", input.aspectRatio ?? "16:9");
  }),

  api("GET", "/api/video/:id", (ctx) => {
    const video = ctx.state.videos.get(ctx.account.apiKey, param(ctx, "id"));
    if (!video) throw notFound("video not found");
    return json({ ...listed(video), downloadUrl: ctx.state.signedUrl(video.mediaId, `${video.name}.mp4`) });
  }),

  api("GET", "/api/video/:id/download", (ctx) => {
    const video = ctx.state.videos.get(ctx.account.apiKey, param(ctx, "id"));
    if (!video) throw notFound("video not found");
    const record = ctx.state.media.find(video.mediaId)!.record;
    const { size, stream } = ctx.state.media.body(record);
    const disposition = `attachment; filename="${video.id}.mp4"`;
    return { headers: { "content-type": "video/mp4", "content-disposition": disposition }, size, stream };
  }),

  api("GET", "/api/video/:id/status", (ctx) => {
    const job = requireJob(ctx, param(ctx, "id"), ["video", "cinematic"], {
      what: "video job",
      missing: "failure",
    });
    const progress = ctx.state.jobs.progress(job);
    if (progress.phase === "done") {
      return success({ status: "inference_complete", terminal: true, videoId: job.detail.videoId });
    }
    if (progress.phase === "failed") {
      return success({ status: "inference_failed", terminal: true, reason: job.plan.fail });
    }
    return success({ ...inferenceRunning(progress, VIDEO_STATUS), terminal: false });
  }),
];
