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

/** The allowed values of the settings are not specified, so they are passed as given. */
export interface CinematicCreateInput {
  name: string;
  prompt: string;
  aspectRatio?: string;
  durationSeconds?: number;
  resolution?: string;
  firstFrameImageMediaId?: string;
  referenceImageMediaIds?: string[];
}

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
