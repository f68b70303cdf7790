import { z } from "zod";
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

/**
 * What a job yields, one shape per kind. The job record keeps it as plain JSON (store/jobs.ts),
 * so it is parsed with this schema when it is read back (jobs/records.ts `statusOf`).
 */
export const jobResult = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("video"), videoId: z.string() }),
  z.object({
    kind: z.literal("image"),
    imageId: z.string(),
    name: z.string(),
    downloadUrl: z.string(),
    mediaId: z.string(),
    prompt: z.string().optional(),
  }),
  z.object({ kind: z.literal("photo_avatar_variants"), previewUrls: z.tuple([z.string(), z.string()]) }),
  z.object({ kind: z.literal("photo_avatar"), avatarIds: z.array(z.string()) }),
  z.object({ kind: z.literal("mockup"), imageUrl: z.string().optional(), mediaId: z.string().optional() }),
  z.object({ kind: z.literal("thumbnail"), details: z.record(z.string(), z.unknown()) }),
]);
export type JobResult = z.infer<typeof jobResult>;
