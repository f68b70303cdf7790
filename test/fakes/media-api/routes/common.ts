import { DEFAULT_VOICE_ID } from "../catalog.js";
import { badRequest, type RefusalForm, refusal } from "../errors.js";
import type { ApiCtx } from "../http.js";
import { newId } from "../ids.js";
import type { Progress } from "../jobs.js";
import type { MediaKind, MediaRecord } from "../media.js";
import type { JobDetail, JobOf } from "../state.js";

/**
 * A finalized media of the caller, of the right type. Each endpoint reports a missing one in its
 * own declared way (`missing`); the wrong type is always a 400 "invalid media type".
 */
export function requireMedia(
  ctx: ApiCtx,
  id: string,
  kind: MediaKind,
  label: string,
  missing: RefusalForm,
): MediaRecord {
  const found = ctx.state.media.usable(ctx.account.apiKey, id, kind);
  if (found.ok) return found.record;
  if (found.why === "wrong_type")
    throw badRequest(`invalid media type: ${label} must be ${kind === "video" ? "a" : "an"} ${kind} file`);
  throw refusal(missing, `${label} not found: ${id}`);
}

export interface JobRefusals {
  /** What the job is called in messages: "video job", "image job"... */
  what: string;
  missing: RefusalForm;
  /** Default: answered like a missing job, so other accounts learn nothing. */
  foreign?: RefusalForm;
  /** Default: answered like a missing job. */
  wrongKind?: RefusalForm;
}

/** The caller's job of one of `kinds`, or the endpoint's declared refusal. */
export function requireJob<K extends JobDetail["kind"]>(
  ctx: ApiCtx,
  id: string,
  kinds: readonly K[],
  refusals: JobRefusals,
): JobOf<K> {
  const { what, missing, foreign, wrongKind } = refusals;
  const job = ctx.state.jobs.find(id);
  if (!job) throw refusal(missing, `${what} not found`);
  if (job.owner !== ctx.account.apiKey) {
    throw foreign === undefined
      ? refusal(missing, `${what} not found`)
      : refusal(foreign, "not authorized for this job");
  }
  if (!(kinds as readonly string[]).includes(job.detail.kind)) {
    throw wrongKind === undefined
      ? refusal(missing, `${what} not found`)
      : refusal(wrongKind, `invalid job type: not a ${what}`);
  }
  // Sound: every detail of kind K has the type Extract<JobDetail, {kind: K}>.
  return job as JobOf<K>;
}

/**
 * The not-yet-finished part of the inference vocabulary shared by video, photo-avatar and image
 * jobs. Kinds whose status has no retrying state (`retrying: false`) stay "working" meanwhile.
 */
export function inferenceRunning(
  progress: Progress,
  words: { queued: string; retrying: boolean },
): Record<string, unknown> {
  switch (progress.phase) {
    case "queued":
      return { status: words.queued };
    case "starting":
      return { status: "inference_started" };
    case "retrying":
      if (!words.retrying) return { status: "inference_working", progress: `${progress.percent}%` };
      return {
        status: "inference_retrying",
        backendStatus: "inference_error",
        reason: "transient inference error, retrying",
      };
    default:
      return { status: "inference_working", progress: `${progress.percent}%` };
  }
}

/** The voice of a new photo avatar: its own (from the audio) or the default stock voice. */
export function voiceFor(ctx: ApiCtx, name: string, withAudio: boolean, ready?: () => boolean): string {
  if (!withAudio) return DEFAULT_VOICE_ID;
  const voice = { id: newId(), name: `${name} voice`, createdAt: ctx.state.isoNow() };
  return ctx.state.voices.add(ctx.account.apiKey, voice, ready).id;
}

/** "/api/media/<id>/view": the relative, key-authenticated address the service uses for mockups. */
export const viewPath = (mediaId: string): string => `/api/media/${mediaId}/view`;

/** ISO time at which a job finishes (createdAt of its results). */
export const finishedAt = (job: { createdAt: number; durationMs: number }): string =>
  new Date(job.createdAt + job.durationMs).toISOString();
