import type { JobRecord } from "../../store/index.js";
import type { JobState } from "../api/job-status.js";
import { Pace } from "./pace.js";
import type { Patch } from "./records.js";

export interface Shown {
  state: JobState;
  progress: number | null;
}

/** A job the poller polls: its record, and what its status reads have taught. */
export interface Polled {
  /** The stored record, as last read or written: what the hooks see. */
  job: JobRecord;
  /** The last status read, stored or not: what "no change" and "stuck" compare with. */
  seen: Shown;
  /** What was last sent to the store (written, or queued behind other writes). */
  stored: Shown;
  lastMoveAt: number;
  pace: Pace;
  /** Consecutive failed status reads. */
  errors: { count: number; since: number } | undefined;
  /** Changes not yet written: later ones merge into it while it waits for the store. */
  pending: Patch | undefined;
  /** A write of `pending` is under way or queued. */
  flushing: boolean;
}

export function polled(job: JobRecord): Polled {
  const shown = { state: job.state, progress: job.progress };
  return {
    job,
    seen: shown,
    stored: shown,
    lastMoveAt: job.lastProgressAt,
    pace: new Pace(job.createdAt),
    errors: undefined,
    pending: undefined,
    flushing: false,
  };
}
