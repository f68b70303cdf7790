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
  if (job.result !== null) status.result = job.result as unknown as JobResult;
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
  return (job.message as unknown as MessageRef | null) ?? undefined;
}
