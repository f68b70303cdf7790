import type { JobRecord, JobStore } from "../../store/index.js";
import type { JobResult, JobState, NormalizedStatus } from "../api/job-status.js";
import type { MessageRef } from "../ports.js";

/** What a job ended with, as the engine records it before delivering. */
export interface Outcome {
  status: NormalizedStatus;
  /** Set for failures: `job.failed` (the service said so), `job.stuck`, `job.unreachable`. */
  error: { code: string; message: string } | null;
}

export type Patch = Parameters<JobStore["update"]>[2];

export function isTerminal(state: JobState): boolean {
  return state === "done" || state === "failed";
}

/** The fields that record an outcome; the first outcome recorded is the one delivered. */
export function outcomePatch({ status, error }: Outcome): Patch {
  return { state: status.state, progress: status.progress, result: status.result ?? null, error };
}

/**
 * The status a stored job stands for. Delivery always hands this to the hook, the first time as
 * after a restart, so a re-delivery posts exactly what the first one did.
 */
export function statusOf(job: JobRecord): NormalizedStatus {
  const status: NormalizedStatus = {
    state: job.state,
    progress: job.progress,
    terminal: isTerminal(job.state),
  };
  if (job.error) status.message = job.error.message;
  if (isJobResult(job.result)) status.result = job.result;
  return status;
}

/** Stale writes in a row before giving up: each one means another writer got in between. */
const MAX_STALE = 5;

/**
 * A compare-and-set update that survives other writers: on a stale version `change` is asked
 * again with the record as it is now, and may answer undefined to leave it alone (the other
 * writer already did what was needed). Undefined when the job is gone.
 */
export async function updateJob(
  store: JobStore,
  job: JobRecord,
  change: (current: JobRecord) => Patch | undefined,
): Promise<JobRecord | undefined> {
  let current = job;
  for (let stale = 0; ; stale++) {
    const patch = change(current);
    if (!patch) return current;
    // `current` is a stored record (the caller's, or the store's answer): the store need not read it.
    const result = await store.update(current.id, current.version, patch, current);
    if (result.ok) return result.job;
    if (result.reason === "missing") return undefined;
    if (stale >= MAX_STALE) throw new Error(`job ${current.id} kept changing under an update`);
    current = result.job;
  }
}

/** The job's message, or undefined for a job launched without one. */
export function messageOf(job: Pick<JobRecord, "message">): MessageRef | undefined {
  return isMessageRef(job.message) ? job.message : undefined;
}

/**
 * The record keeps the service's result as plain JSON (store/jobs.ts); what the flows tell its
 * kinds apart by is `kind`, checked here against every kind there is. The fields of each kind are
 * the normalizer's (api/normalize.ts): the engine stores them as the status carried them.
 */
const RESULT_KINDS = {
  video: true,
  image: true,
  photo_avatar_variants: true,
  photo_avatar: true,
  mockup: true,
  thumbnail: true,
} satisfies Record<JobResult["kind"], true>;

function isJobResult(value: unknown): value is JobResult {
  return isObject(value) && typeof value.kind === "string" && Object.hasOwn(RESULT_KINDS, value.kind);
}

/** A chat message's reference as the adapters write it (ports.ts); `data` and `live` are theirs. */
function isMessageRef(value: unknown): value is MessageRef {
  return (
    isObject(value) &&
    (value.platform === "discord" || value.platform === "slack") &&
    typeof value.channelId === "string" &&
    typeof value.messageId === "string" &&
    (value.data === undefined || isObject(value.data)) &&
    (value.live === undefined || isObject(value.live))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
