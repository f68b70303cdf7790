import { z } from "zod";
import { AvatarList, JobCreated, VideoList, VideoMetadata, VideoStatus, VoiceList } from "../schemas.js";
import { type Caller, type CallOptions, type FilePart, path } from "./caller.js";

/** Spec 4.3 (avatar videos) and 4.4 (cinematic videos, which share the video status endpoint). */

export function avatars(c: Caller) {
  return {
    list: async (opts?: CallOptions) => (await c.get("/api/avatars", AvatarList, opts)).avatars,
  };
}

export function voices(c: Caller) {
  return {
    list: (opts?: CallOptions) => c.get("/api/voices", VoiceList, opts),
  };
}

/** Voice and script as JSON, or an audio file as multipart `speechFile`. */
export type VideoCreateInput = {
  avatarId: string;
  name: string;
  /** Full-body animation of photo avatars. */
  im2vid_full?: boolean;
} & (
  | { voiceId: string; text: string; speechFile?: never }
  | { speechFile: FilePart; voiceId?: never; text?: never }
);

/**
 * A script read by a voice, as JSON: what a job keeps (as plain JSON) to send again, parsed when
 * it is read back.
 */
export const ScriptedVideoInput = z.object({
  avatarId: z.string(),
  name: z.string(),
  voiceId: z.string(),
  text: z.string(),
  im2vid_full: z.boolean().optional(),
});

/**
 * The allowed values of the settings are not specified, so they are passed as given. A schema
 * too: a job keeps its request to send it again, and parses it then.
 */
export const CinematicCreateInput = z.object({
  name: z.string(),
  prompt: z.string(),
  aspectRatio: z.string().optional(),
  durationSeconds: z.number().optional(),
  resolution: z.string().optional(),
  firstFrameImageMediaId: z.string().optional(),
  referenceImageMediaIds: z.array(z.string()).optional(),
});
export type CinematicCreateInput = z.infer<typeof CinematicCreateInput>;

export function videos(c: Caller) {
  return {
    /** Only videos that completed generation. */
    list: async (opts?: CallOptions) => (await c.get("/api/videos", VideoList, opts)).videos,
    get: (id: string, opts?: CallOptions) => c.get(path`/api/video/${id}`, VideoMetadata, opts),
    download: (id: string, opts?: CallOptions) => c.download(path`/api/video/${id}/download`, opts),
    /** For avatar and cinematic jobs alike. */
    status: (jobId: string, opts?: CallOptions) => c.get(path`/api/video/${jobId}/status`, VideoStatus, opts),
    create: (input: VideoCreateInput, opts?: CallOptions) =>
      c.post("/api/video/create", JobCreated, input, opts),
    createCinematic: (input: CinematicCreateInput, opts?: CallOptions) =>
      c.post("/api/video/cinematic/create", JobCreated, input, opts),
  };
}
