import type { JobKind, NormalizedStatus } from "../api/job-status.js";
import type { Actor, ConversationRef, Json, MessageRef } from "../base/ports.js";

/**
 * The seam between the job engine (scheduling, polling, throttling, exactly-once delivery,
 * resume after restart) and the flows (what to ask the service, what to show). The engine does no
 * chat I/O and calls no service endpoint itself: it calls these hooks at the right moments.
 */

export interface TrackRequest {
  /** The job's id when it was chosen before the start (a queued job keeps its queue entry's). */
  id?: string;
  kind: JobKind;
  /** Catalogue command that started it: "image.generate", "photo_avatar.design", ... */
  command: string;
  serviceJobId: string;
  requester: Actor;
  conversation: ConversationRef;
  /**
   * The job's one message, edited from "queued" to the result; null when it could not be posted
   * (the outcome then gets a post of its own).
   */
  message: MessageRef | null;
  /** What the flows need later (regenerate, naming the result); plain JSON. */
  inputs: Json;
}

/** Posts a stored job's message; undefined when it could not be posted (the outcome then gets a post). */
export type Announce = () => Promise<MessageRef | undefined>;

export interface JobHooks<Job> {
  /** Read the service's status of this job (with the tenant's key). Throwing means "try again later". */
  fetchStatus(job: Job, signal: AbortSignal): Promise<NormalizedStatus>;
  /** Show a running job (queued, working, retrying) or one that waits for a choice (needs_choice). */
  showProgress(job: Job, status: NormalizedStatus): Promise<void>;
  /**
   * Post the outcome of a finished job (done or failed). The engine calls it once per job; after a
   * crash in the middle it may call it again, so it must only use idempotent chat calls
   * (edits, or posts with an idempotencyKey). The JSON it returns is stored as the job's result.
   */
  deliver(job: Job, status: NormalizedStatus): Promise<Json | undefined>;
}
