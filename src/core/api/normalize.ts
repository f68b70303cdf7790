import type { MediaApi } from "./client.js";
import type { CallOptions } from "./http.js";
import type { JobKind, JobResult, JobState, NormalizedStatus } from "./job-status.js";
import type { ImageJob, MockupStatus, PhotoAvatarStatus, ThumbnailJob, VideoStatus } from "./schemas.js";

/**
 * Every job kind's status record mapped onto the neutral states. Unknown status words mean
 * "still working" (the service may add states; a crash or a false failure would be worse), and
 * the service's `terminal` flag, when it sends one, has the last word on whether polling stops.
 */

/** "45%", "45", 45 -> 45, kept within 0-100; anything else -> null. */
export function progressOf(value: number | string | undefined): number | null {
  if (value === undefined) return null;
  const n = typeof value === "number" ? value : Number.parseFloat(value);
  return Number.isFinite(n) ? Math.min(100, Math.max(0, n)) : null;
}

/** The service's own words on a record: `reason`, or `error`/`message` where a record uses those. */
function wordsOf(record: Record<string, unknown>): string | undefined {
  for (const key of ["reason", "error", "message"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return undefined;
}

interface Reading {
  state: JobState;
  progress?: number | string;
  result?: JobResult;
}

/** Applies `terminal`: true ends the job (as a failure unless it is done), false keeps it going. */
function settle(
  reading: Reading,
  record: Record<string, unknown> & { terminal?: boolean },
): NormalizedStatus {
  let state = reading.state;
  const finished = state === "done" || state === "failed";
  if (record.terminal === true && !finished && state !== "needs_choice") state = "failed";
  if (record.terminal === false && finished) state = state === "failed" ? "retrying" : "working";
  const terminal = record.terminal ?? (state === "done" || state === "failed");

  const status: NormalizedStatus = {
    state,
    progress: state === "done" ? 100 : progressOf(reading.progress),
    terminal,
  };
  const message = state === "done" ? undefined : wordsOf(record);
  if (message !== undefined) status.message = message;
  if (reading.result !== undefined && (state === "done" || state === "needs_choice"))
    status.result = reading.result;
  return status;
}

function lookup(table: Record<string, JobState>, status: string | undefined): JobState {
  const word = status?.toLowerCase();
  // hasOwn: a status such as "constructor" must not find Object.prototype's.
  return word !== undefined && Object.hasOwn(table, word) ? table[word]! : "working";
}

/** `backendStatus: inference_error` beside a running status is the service retrying, not failing. */
function retryingWhenBackendErrs(state: JobState, backendStatus: string | undefined): JobState {
  return backendStatus === "inference_error" && (state === "queued" || state === "working")
    ? "retrying"
    : state;
}

const VIDEO: Record<string, JobState> = {
  inference_started: "queued",
  inference_working: "working",
  inference_retrying: "retrying",
  // Named by an older listing as an unknown error; not a failure unless the record is terminal.
  inference_error: "retrying",
  inference_complete: "done",
  inference_failed: "failed",
};

export function normalizeVideo(record: VideoStatus): NormalizedStatus {
  const state = retryingWhenBackendErrs(lookup(VIDEO, record.status), record.backendStatus);
  if (state === "done" && record.videoId === undefined) {
    // The spec: videoId is present once generation completed *and* the video record exists. Until
    // then there is nothing to deliver, so polling goes on even if the record says terminal.
    return { state: "working", progress: 100, terminal: false };
  }
  return settle(
    {
      state,
      progress: record.progress,
      result: record.videoId ? { kind: "video", videoId: record.videoId } : undefined,
    },
    record,
  );
}

const PHOTO_AVATAR: Record<string, JobState> = {
  queued: "queued",
  inference_started: "queued",
  inference_working: "working",
  inference_retrying: "retrying",
  inference_error: "retrying",
  variants_ready: "needs_choice",
  inference_complete: "done",
  inference_failed: "failed",
};

export function normalizePhotoAvatar(record: PhotoAvatarStatus): NormalizedStatus {
  let state = retryingWhenBackendErrs(lookup(PHOTO_AVATAR, record.status), record.backendStatus);
  const [first, second] = record.variantPreviewUrls ?? [];
  // Two previews are what the user chooses between; without them there is nothing to show yet.
  if (state === "needs_choice" && (first === undefined || second === undefined)) state = "working";
  const result: JobResult | undefined =
    state === "needs_choice" && first !== undefined && second !== undefined
      ? { kind: "photo_avatar_variants", previewUrls: [first, second] }
      : { kind: "photo_avatar", avatarIds: record.avatarIds ?? (record.avatarId ? [record.avatarId] : []) };
  return settle({ state, progress: record.progress, result }, record);
}

const IMAGE: Record<string, JobState> = {
  inference_started: "queued",
  inference_working: "working",
  inference_retrying: "retrying",
  inference_error: "retrying",
  // Complete but without the image info yet: the image is what the user waits for.
  inference_complete: "working",
  inference_failed: "failed",
};

export function normalizeImage(record: ImageJob): NormalizedStatus {
  if (record.form === "image") {
    return settle(
      {
        state: "done",
        result: {
          kind: "image",
          imageId: record.id,
          name: record.name ?? record.id,
          downloadUrl: record.downloadUrl,
          mediaId: record.mediaId,
          ...(record.prompt === undefined ? {} : { prompt: record.prompt }),
        },
      },
      { ...record, terminal: true },
    );
  }
  return settle({ state: lookup(IMAGE, record.status), progress: record.progress }, record);
}

const MOCKUP: Record<string, JobState> = {
  waiting: "queued",
  started: "working",
  completed: "done",
  failed: "failed",
};

export function normalizeMockup(record: MockupStatus): NormalizedStatus {
  const result: JobResult = {
    kind: "mockup",
    ...(record.imageUrl === undefined ? {} : { imageUrl: record.imageUrl }),
    ...(record.mediaId === undefined ? {} : { mediaId: record.mediaId }),
  };
  return settle({ state: lookup(MOCKUP, record.status), progress: record.progress, result }, record);
}

const THUMBNAIL: Record<string, JobState> = {
  waiting: "queued",
  started: "working",
  completed: "done",
  complete: "done",
  failed: "failed",
};

/**
 * Once complete the service answers with the thumbnail's details, whose shape is not specified:
 * a bare record without a status, or one nesting the thumbnail under `thumbnail`.
 */
export function normalizeThumbnail(record: ThumbnailJob): NormalizedStatus {
  const state = record.status === undefined ? "done" : lookup(THUMBNAIL, record.status);
  const nested = record.thumbnail;
  const details = typeof nested === "object" && nested !== null && !Array.isArray(nested) ? nested : record;
  return settle(
    {
      state,
      progress: record.progress,
      result: { kind: "thumbnail", details: details as Record<string, unknown> },
    },
    record,
  );
}

type StatusReader = (api: MediaApi, jobId: string, opts?: CallOptions) => Promise<NormalizedStatus>;

const READERS: Record<JobKind, StatusReader> = {
  video: async (api, id, opts) => normalizeVideo(await api.videos.status(id, opts)),
  photo_avatar: async (api, id, opts) => normalizePhotoAvatar(await api.photoAvatars.status(id, opts)),
  image: async (api, id, opts) => normalizeImage(await api.images.get(id, opts)),
  mockup: async (api, id, opts) => normalizeMockup(await api.mockups.status(id, opts)),
  thumbnail: async (api, id, opts) => normalizeThumbnail(await api.thumbnails.get(id, opts)),
};

/** The poller's one call: this kind's status endpoint, normalized. Errors are the client's typed ones. */
export function fetchStatus(
  api: MediaApi,
  kind: JobKind,
  jobId: string,
  opts?: CallOptions,
): Promise<NormalizedStatus> {
  return READERS[kind](api, jobId, opts);
}
