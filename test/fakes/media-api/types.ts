/**
 * The public knobs of the Media API emulator. Other test suites code against these names, so
 * additions are fine and renames are not.
 */

export type QuotaType = "ai_actor_videos" | "ai_images" | "cinematic_videos";
export type QuotaLimit = number | "unlimited";

/** Job kinds that `planNextJob` can shape. "photo_avatar" covers design and from-selfie enhance. */
export type PlannedKind =
  | "video"
  | "cinematic"
  | "photo_avatar"
  | "image"
  | "mockup_asset"
  | "mockup_video"
  | "thumbnail";

export interface EmulatorOptions {
  /** Default 0 (a free port); the server always binds 127.0.0.1. */
  port?: number;
  /** Multiplies every default job duration (0.001 turns a 3-minute video into 180 ms). Default 1. */
  timeScale?: number;
  /** Clock used for job progress, signed-URL expiry and recorded calls. Default Date.now. */
  now?: () => number;
  /** Default: test-key (pro, 1000 credits) and other-key (free, 50 credits). */
  accounts?: AccountSeed[];
  /** Wrapper key of GET /api/voices, which the spec leaves open. Default "voices". */
  voicesKey?: "voices" | "avatars";
  /** Path of the thumbnail list, which the spec does not show. Default "/api/thumbnails". */
  thumbnailsListPath?: string;
  /** Size of result videos planned with `large: true`. Default 50 MiB. */
  largeVideoBytes?: number;
  /** Page size of the thumbnail list. Default 20. */
  thumbnailsPageSize?: number;
  /**
   * Presigned PUTs demand a Content-Length, as S3 does (chunked uploads get 411). Default true;
   * false accepts chunked bodies and checks the counted size instead.
   */
  uploadRequiresContentLength?: boolean;
  /** Lifetime of presigned upload and download URLs, against `now()`. Default one hour. */
  signedUrlTtlMs?: number;
}

export interface AccountSeed {
  apiKey: string;
  plan?: string;
  creditsLimit?: number;
  creditsUsed?: number;
  /** Per-type limits; defaults depend on the plan (see accounts.ts). */
  quotas?: Partial<Record<QuotaType, QuotaLimit>>;
}

/** Live, mutable account figures: tests may change them between calls. */
export interface AccountState {
  apiKey: string;
  plan: string;
  creditsLimit: number;
  creditsUsed: number;
  usage: Record<QuotaType, { used: number; limit: QuotaLimit }>;
}

export interface Fault {
  method?: string;
  /** Matched against the pathname (no query string). */
  path: string | RegExp;
  /** How many matching requests get the fault. Default 1. */
  times?: number;
  /** Let this many matching requests through first ("5xx on the n-th call"). */
  skip?: number;
  status?: number;
  body?: unknown;
  /** Sent verbatim as application/json: malformed JSON. */
  raw?: string;
  headers?: Record<string, string>;
  /** Slow answer; with no status/body/raw the request is then served normally. */
  delayMs?: number;
  /**
   * With `delayMs`: the call is carried out at once and only its answer waits (a job created and
   * charged whose answer comes after the client gave up), instead of the whole request waiting.
   */
  applyFirst?: boolean;
  /**
   * The connection closes instead of a full answer (after `delayMs`): "unapplied" before the
   * request is acted on (nothing changes), "applied" after it was carried out (a job is created and
   * charged, an upload kept) with no answer at all, "mid-body" after the headers and half the body
   * of its normal answer (a result download cut short).
   */
  hangUp?: "unapplied" | "applied" | "mid-body";
}

export interface JobPlan {
  /** Total duration in ms, used as is (not multiplied by timeScale). */
  durationMs?: number;
  /** Failure reason: the job ends in inference_failed / failed with it. */
  fail?: string;
  /** Spend the middle third of the duration in inference_retrying (backendStatus inference_error). */
  retrying?: boolean;
  /** Progress (0-100) at which the job stops moving forever. */
  stallAt?: number;
  /** The result video is `largeVideoBytes` long. */
  large?: boolean;
}

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  /** 0 until the answer is written (or when the client went away first). */
  status: number;
  apiKey?: string;
  contentType?: string;
  json?: unknown;
  fields?: Record<string, string>;
  files?: RecordedFile[];
  at: number;
}

/** What the emulator holds about one mediaId (uploads and generated results). */
export interface MediaInfo {
  mediaId: string;
  apiKey: string;
  fileName: string;
  contentType: string;
  /** Declared size for uploads, real size for generated media. */
  fileSize: number;
  /** Bytes received by the last complete presigned PUT (uploads only). */
  receivedBytes: number;
  /** sha256 (hex) of the last complete PUT, so tests can compare with what the client sent. */
  sha256?: string;
  finalized: boolean;
  origin: "upload" | "generated";
}

export interface Emulator {
  /** Origin, e.g. "http://127.0.0.1:43123"; every path starts with /api/. */
  url: string;
  calls: RecordedCall[];
  callsTo(method: string, path: string | RegExp): RecordedCall[];
  account(apiKey: string): AccountState;
  inject(fault: Fault): void;
  planNextJob(kind: PlannedKind, plan: JobPlan): void;
  /** Clears calls, faults, plans, jobs and media; accounts go back to their seeds. */
  reset(): void;
  close(): Promise<void>;
  /** Adds an account (kept across reset() like the seeds given at start). */
  addAccount(seed: AccountSeed): AccountState;
  /** Registers a finalized media for an account without the upload dance; returns its mediaId. */
  seedMedia(apiKey: string, media: { contentType: string; fileName?: string; fileSize?: number }): string;
  /** What the emulator knows about a mediaId, or undefined. */
  media(mediaId: string): MediaInfo | undefined;
}
