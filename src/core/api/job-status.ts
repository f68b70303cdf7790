/**
 * The neutral view of a service job that the rest of the bot works with. Each job kind of the
 * service reports its own status shape; `normalize.ts` maps every one of them onto this.
 */
export type JobState = "queued" | "working" | "retrying" | "needs_choice" | "done" | "failed";

export type JobKind =
  | "video" // avatar and cinematic videos: GET /api/video/{id}/status
  | "photo_avatar" // design and from-selfie enhance: GET /api/avatar/jobs/{id}/status
  | "image" // generate, edit, inpaint: GET /api/image/{id}
  | "mockup" // mockup asset and mockup video jobs: GET /api/mockup/{id}/status
  | "thumbnail"; // GET /api/thumbnail/{id}

export interface NormalizedStatus {
  state: JobState;
  /** 0-100 when the service reports it, otherwise null. */
  progress: number | null;
  /** True when the service says polling can stop (done or failed). */
  terminal: boolean;
  /** The service's own words (a failure reason, a retry note), when it gives any. */
  message?: string;
  /** What a finished or choice-waiting job yields; absent while it runs. */
  result?: JobResult;
}

export type JobResult =
  | { kind: "video"; videoId: string }
  | { kind: "image"; imageId: string; name: string; downloadUrl: string; mediaId: string; prompt?: string }
  | { kind: "photo_avatar_variants"; previewUrls: [string, string] }
  | { kind: "photo_avatar"; avatarIds: string[] }
  | { kind: "mockup"; imageUrl?: string; mediaId?: string }
  | { kind: "thumbnail"; details: Record<string, unknown> };
