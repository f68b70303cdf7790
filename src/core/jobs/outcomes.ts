import type { NormalizedStatus } from "../api/job-status.js";
import { ServiceError, ServiceFailureError, userMessageOf } from "../base/errors.js";
import type { Outcome } from "./records.js";

/** How jobs end, as the engine records it: what the service said, or what the bot decided. */

export function outcomeOf(status: NormalizedStatus): Outcome {
  if (status.state !== "failed") return { status, error: null };
  return {
    status,
    error: {
      code: "job.failed",
      message: status.message ?? "The media service reported that the job failed.",
    },
  };
}

/** No change of state or progress for the kind's limit. */
export function stuckOutcome(status: NormalizedStatus, stuckAfterMs: number): Outcome {
  const at = status.progress === null ? "" : ` at ${Math.round(status.progress)}%`;
  return {
    status: { ...status, state: "failed", terminal: true },
    error: {
      code: "job.stuck",
      message: `The job made no progress for ${duration(stuckAfterMs)} (stuck${at}), so the bot stopped waiting for it. Try again; if it happens again, the media service may be having trouble.`,
    },
  };
}

/** Status reads failed for `limitMs` in a row. */
export function unreadableOutcome(progress: number | null, limitMs: number, error: unknown): Outcome {
  return {
    status: { state: "failed", progress, terminal: true },
    error: {
      code: "job.unreachable",
      message: `The bot could not read this job's status for ${duration(limitMs)}, so it stopped waiting: ${userMessageOf(error)}`,
    },
  };
}

/** Photo-avatar variants nobody chose within `afterMs`. */
export function expiredChoiceOutcome(progress: number | null, afterMs: number): Outcome {
  return {
    status: { state: "failed", progress, terminal: true },
    error: {
      code: "job.choice_expired",
      message: `Nobody chose a variant within ${duration(afterMs)}, so the choice expired and its buttons were removed. Run the design command again for new variants.`,
    },
  };
}

/**
 * Answers that waiting does not mend: the key, or the job, is not (or no longer) valid - a 4xx
 * other than 429, or the service's failure envelope ("video job not found"). Everything else
 * (5xx, timeouts, malformed answers, anything unknown) is transient.
 */
export function lasting(error: unknown): boolean {
  if (error instanceof ServiceFailureError) return true;
  const status = error instanceof ServiceError ? error.status : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 429;
}

/** "30 minutes", "2 minutes", "45 seconds": for messages people read. */
function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 2) return `${minutes} minutes`;
  const seconds = Math.max(1, Math.round(ms / 1_000));
  return seconds === 60 ? "1 minute" : `${seconds} seconds`;
}
