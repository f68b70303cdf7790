/**
 * What a job record keeps of the service's job: its kind and its state. The store owns these
 * record types; the service client (core/api/job-status.ts) maps every status shape onto them.
 */
export type JobState = "queued" | "working" | "retrying" | "needs_choice" | "done" | "failed";

export type JobKind =
  | "video" // avatar and cinematic videos: GET /api/video/{id}/status
  | "photo_avatar" // design and from-selfie enhance: GET /api/avatar/jobs/{id}/status
  | "image" // generate, edit, inpaint: GET /api/image/{id}
  | "mockup" // mockup asset and mockup video jobs: GET /api/mockup/{id}/status
  | "thumbnail"; // GET /api/thumbnail/{id}
