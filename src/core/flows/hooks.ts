import type { JobRecord } from "../../store/jobs.js";
import { controlsFor } from "../actions/catalogue.js";
import type { MediaApi } from "../api/client.js";
import type { NormalizedStatus } from "../api/job-status.js";
import { fetchStatus } from "../api/normalize.js";
import type { Card } from "../base/cards.js";
import {
  BotError,
  MessageGoneError,
  NotPostedError,
  ServiceFailureError,
  UndeliverableError,
} from "../base/errors.js";
import type { Logger } from "../base/log.js";
import { deliveriesTotal, jobTransitionsTotal, pollsTotal } from "../base/metrics.js";
import type {
  ChatAdapter,
  ConversationRef,
  Json,
  Message,
  MessageRef,
  Platform,
  PostOptions,
} from "../base/ports.js";
import { msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import type { JobHooks } from "../jobs/contract.js";
import { conversationOf, messageOf } from "../jobs/records.js";
import {
  divertedCard,
  failedJobCard,
  progressCard,
  readyNotice,
  undeliverableCard,
  variantsCard,
  viewOf,
} from "../render/job.js";
import type { TenantRef } from "../tenancy/tenancy.js";
import { idsOf } from "../tenancy/tenant-view.js";
import { privately } from "./privacy.js";
import { resolveResult } from "./results.js";
import { deliverToStep } from "./steps.js";

/**
 * The engine's hooks: how to read a job's status, and how to show and deliver it in chat. They
 * find the adapter by the job's platform (jobs outlive the process that posted them) and use only
 * idempotent chat calls: edits of the job's message, and one post keyed by the job.
 */

export interface HookDeps {
  adapter(platform: Platform): ChatAdapter;
  media(tenant: TenantRef): Promise<MediaApi>;
  /** Keeps the ids a result names for its tenant (before the result is read through the shared key). */
  remember(tenant: TenantRef, ids: readonly string[]): Promise<void>;
  logger: Logger;
  /** A job moved on (progress, a choice, its outcome): its requester's home follows. */
  changed?(job: JobRecord): void;
}

/** How a delivered card carried its result: the file itself, a link to it, or words only. */
function deliveredAs(card: Message): "uploaded" | "link" | "message" {
  const media = "media" in card ? card.media : [];
  if (media.some((m) => m.file)) return "uploaded";
  return media.length > 0 ? "link" : "message";
}

/** The engine calls these hooks for every read and delivery, so they are where both are counted. */
export function createHooks(deps: HookDeps): JobHooks<JobRecord> {
  const hooks = createChatHooks(deps);
  return {
    async fetchStatus(job, signal) {
      try {
        const status = await hooks.fetchStatus(job, signal);
        pollsTotal.inc({ kind: job.kind, outcome: status.state });
        return status;
      } catch (error) {
        pollsTotal.inc({ kind: job.kind, outcome: error instanceof BotError ? error.code : "error" });
        throw error;
      }
    },
    async showProgress(job, status) {
      await hooks.showProgress(job, status);
      if (status.state === "needs_choice" && job.state !== "needs_choice") {
        jobTransitionsTotal.inc({ kind: job.kind, state: "needs_choice" });
      }
      deps.changed?.(job);
    },
    async deliver(job, status) {
      try {
        const delivered = await hooks.deliver(job, status);
        jobTransitionsTotal.inc({ kind: job.kind, state: status.state });
        deps.changed?.(job);
        return delivered;
      } catch (error) {
        deliveriesTotal.inc({ kind: job.kind, outcome: "failed" });
        throw error;
      }
    },
  };
}

/** Where only the job's person sees what is posted: the adapter goes to their DM by itself. */
const personOnly = (conversation: ConversationRef) =>
  conversation.privateFrom !== undefined || conversation.gestureOnly === true;

/** The person's DM with the bot, for what a conversation that refused the bot was to show. */
const divertedFrom = (conversation: ConversationRef): ConversationRef => ({
  ...privately(conversation, conversation.channelId),
  diverted: true,
});

/**
 * Jobs whose conversation refused the bot for good while they ran, by job id, kept until their
 * delivery: nothing more is sent there (a refused request repeated counts against the bot), and
 * what is left to show goes to the person's DM. Per process: a restart tries the channel once more.
 */
const REFUSALS_KEPT = 10_000;

class Refusals {
  private readonly byJob = new Map<string, UndeliverableError>();

  get(jobId: string): UndeliverableError | undefined {
    return this.byJob.get(jobId);
  }

  remember(jobId: string, error: UndeliverableError): void {
    if (this.byJob.size >= REFUSALS_KEPT) this.byJob.delete(this.byJob.keys().next().value!);
    this.byJob.set(jobId, error);
  }

  forget(jobId: string): void {
    this.byJob.delete(jobId);
  }
}

/** Where a job shows: its platform's adapter, its message (if any) and its conversation. */
function placeOf(deps: HookDeps, job: JobRecord) {
  return {
    adapter: deps.adapter(job.tenant.platform),
    message: messageOf(job),
    conversation: conversationOf(job),
  };
}

function createChatHooks(deps: HookDeps): JobHooks<JobRecord> {
  const refused = new Refusals();
  return {
    fetchStatus: (job, signal) => readStatus(deps, job, signal),
    showProgress: (job, status) => showProgress(deps, refused, job, status),
    deliver: (job, status) => deliver(deps, refused, job, status),
  };
}

/**
 * Shows `card` to the job's person: in the job's message (or a keyed post where it has none),
 * or, once the conversation refused the bot for good, in their DM, saying why. Throws
 * UndeliverableError when the DM refuses too.
 */
async function show(
  deps: HookDeps,
  refused: Refusals,
  job: JobRecord,
  card: Card,
  options: PostOptions,
): Promise<"edited" | "posted" | "diverted"> {
  const { adapter, message, conversation } = placeOf(deps, job);
  let lost = refused.get(job.id);
  if (!lost) {
    try {
      if (message && (await editUnlessGone(adapter, message, card))) return "edited";
      await adapter.post(conversation, card, options);
      return "posted";
    } catch (error) {
      // Where only the person sees the job, the adapter was at their DM already.
      if (!(error instanceof UndeliverableError) || personOnly(conversation)) throw error;
      refused.remember(job.id, error);
      lost = error;
      deps.logger.warn({ err: error, jobId: job.id }, "conversation refused the bot: on to the person's DM");
    }
  }
  try {
    await adapter.post(divertedFrom(conversation), divertedCard(card, lost.said), options);
    return "diverted";
  } catch (error) {
    if (!(error instanceof UndeliverableError)) throw error;
    throw new UndeliverableError(msg("refusal.sentences", { first: lost.said, second: error.said }), {
      message: `${lost.message}; then the DM: ${error.message}`,
      cause: error,
    });
  }
}

async function readStatus(deps: HookDeps, job: JobRecord, signal: AbortSignal): Promise<NormalizedStatus> {
  const media = await deps.media(job.tenant);
  try {
    return await fetchStatus(media, job.kind, job.serviceJobId, { signal });
  } catch (error) {
    // The failure envelope on a status endpoint is the job's own failure (a thumbnail that
    // could not be made); other errors are the engine's to retry or give up on.
    if (!(error instanceof ServiceFailureError)) throw error;
    return {
      state: "failed",
      progress: null,
      terminal: true,
      message: error.serviceMessage ?? "no reason given",
    };
  }
}

async function showProgress(
  deps: HookDeps,
  refused: Refusals,
  job: JobRecord,
  status: NormalizedStatus,
): Promise<void> {
  const { adapter, message, conversation } = placeOf(deps, job);
  const view = viewOf(job);
  const result = status.result;
  const choice =
    status.state === "needs_choice" && result?.kind === "photo_avatar_variants"
      ? variantsCard(view, result.previewUrls)
      : undefined;
  // A choice the job waits on cannot go unseen: it reaches the requester wherever it can.
  if (choice) {
    const options = { mentionUserId: job.requester.userId, idempotencyKey: `${job.id}:choice` };
    await show(deps, refused, job, choice, options);
    return;
  }
  // Progress shows in the job's message only: without it (never posted, deleted since, or
  // refused) it has nowhere to show.
  if (!message || refused.get(job.id)) return;
  try {
    await editUnlessGone(adapter, message, progressCard(view, status, elapsed(job)));
  } catch (error) {
    if (!(error instanceof UndeliverableError) || personOnly(conversation)) throw error;
    refused.remember(job.id, error);
    deps.logger.warn({ err: error, jobId: job.id }, "conversation refused the bot: progress stops there");
  }
}

async function deliver(
  deps: HookDeps,
  refused: Refusals,
  job: JobRecord,
  status: NormalizedStatus,
): Promise<Json> {
  const { adapter, message, conversation } = placeOf(deps, job);
  if (status.result) await deps.remember(job.tenant, idsOf(status.result));
  const view = viewOf(job);
  const resolved = await outcomeOf(job, status, adapter, message ?? conversation, deps);
  if (conversation.step) return deliverToStep(job, resolved, { adapter, message, conversation }, deps.logger);
  const { card, stored } = resolved;
  const notify = { mentionUserId: job.requester.userId, idempotencyKey: `${job.id}:ready` };
  let shown: Awaited<ReturnType<typeof show>>;
  try {
    shown = await show(deps, refused, job, card, notify);
  } catch (error) {
    if (!(error instanceof UndeliverableError)) throw error;
    refused.forget(job.id);
    throw new NotPostedError(error.said, stored, { message: error.message, cause: error });
  }
  refused.forget(job.id);
  deliveriesTotal.inc({ kind: job.kind, outcome: deliveredAs(card) });
  // A post (here or in the DM) mentions the requester itself. A private result makes no
  // noise: its own message, which only its person sees, is the news. Where the bot cannot
  // post, the result in its own message is all the bot may show.
  if (shown !== "edited" || personOnly(conversation)) return stored;
  // The edit notifies nobody: the keyed post does, once however often delivery runs. The
  // result shows already, so a channel that refuses new posts only costs the mention.
  await adapter
    .post(conversation, readyNotice(view, status.state !== "done"), notify)
    .catch((error: unknown) => {
      if (!(error instanceof UndeliverableError)) throw error;
      deps.logger.warn({ err: error, jobId: job.id }, "result shown, but its notice could not be posted");
    });
  return stored;
}

/** How long the job has run; the store stamps `createdAt` with the wall clock, so this reads it too. */
const elapsed = (job: JobRecord) => Date.now() - job.createdAt;

/** False when the message was deleted meanwhile. */
async function editUnlessGone(adapter: ChatAdapter, message: MessageRef, card: Message): Promise<boolean> {
  try {
    await adapter.edit(message, card);
    return true;
  } catch (error) {
    if (error instanceof MessageGoneError) return false;
    throw error;
  }
}

async function outcomeOf(
  job: JobRecord,
  status: NormalizedStatus,
  adapter: ChatAdapter,
  target: ConversationRef | MessageRef,
  deps: HookDeps,
): Promise<{ card: ReturnType<typeof failedJobCard>; stored: Json; ok: boolean }> {
  const view = viewOf(job);
  if (status.state !== "done") {
    // job.failed carries the service's words; the engine's own codes (stuck, unreachable) a sentence.
    const serviceSaid = !job.error || job.error.code === "job.failed";
    const why = serviceSaid ? { serviceReason: status.message } : { explanation: status.message };
    return { card: failedJobCard(view, why), stored: { failed: status.message ?? null }, ok: false };
  }
  const media = await deps.media(job.tenant);
  try {
    const resolved = await resolveResult({
      media,
      job,
      status,
      uploadLimit: adapter.uploadLimit(target),
      controls: controlsFor,
    });
    return { ...resolved, ok: true };
  } catch (error) {
    // Passing trouble (network, 5xx) is worth another delivery attempt; anything else will not
    // get better, so the job says what happened instead of staying on its progress bar.
    if (error instanceof BotError && error.retryable) throw error;
    deps.logger.warn({ err: error, jobId: job.id }, "result could not be fetched");
    const reason =
      error instanceof BotError
        ? error.userMessage
        : translatorFor(view.locale).text("job.result.unreadable");
    return { card: undeliverableCard(view, reason), stored: { undeliverable: reason }, ok: false };
  }
}
