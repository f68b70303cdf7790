import { type ConversationRef, conversationRef, type MessageRef, messageRef } from "../../common/types.js";
import type { JobRecord, JobStore } from "../../store/index.js";
import { parsePart } from "../../store/records.js";
import { type JobState, jobResult, type NormalizedStatus } from "../api/job-status.js";

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
  // A delivered job's result is what delivery kept (store/jobs.ts), no longer the service's.
  const result = jobResult.safeParse(job.result);
  if (result.success) status.result = result.data;
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
  store: Pick<JobStore, "update">,
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

/**
 * The job's message, or undefined for a job launched without one. The record keeps the adapter's
 * reference as plain JSON (store/jobs.ts); `data` and `live` are the adapter's.
 */
export function messageOf(job: Pick<JobRecord, "message">): MessageRef | undefined {
  const message = messageRef.safeParse(job.message);
  return message.success ? message.data : undefined;
}

/** Where the job was asked for, as the adapter wrote it; a record that holds no such thing is corrupt. */
export function conversationOf(job: Pick<JobRecord, "id" | "conversation">): ConversationRef {
  return parsePart("jobs", job.id, "conversation", job.conversation, conversationRef);
}
