import type { JobState } from "../../store/job-kinds.js";

export type { JobKind, JobState } from "../../store/job-kinds.js";

/**
 * The neutral view of a service job that the rest of the bot works with. Each job kind of the
 * service reports its own status shape; `normalize.ts` maps every one of them onto this.
 * Its kinds and states are the store's record types (store/job-kinds.ts).
 */
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
