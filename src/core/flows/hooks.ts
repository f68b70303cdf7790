import type { JobRecord } from "../../store/jobs.js";
import { controlsFor } from "../actions/catalogue.js";
import type { MediaApi } from "../api/client.js";
import type { NormalizedStatus } from "../api/job-status.js";
import { fetchStatus } from "../api/normalize.js";
import { BotError, MessageGoneError, ServiceFailureError, UndeliverableError } from "../errors.js";
import type { JobHooks } from "../jobs/contract.js";
import { messageOf } from "../jobs/records.js";
import type { Logger } from "../log.js";
import { deliveriesTotal, jobTransitionsTotal, pollsTotal } from "../metrics.js";
import type { ChatAdapter, ConversationRef, Json, Message, MessageRef, Platform } from "../ports.js";
import {
  failedJobCard,
  progressCard,
  readyNotice,
  undeliverableCard,
  variantsCard,
  viewOf,
} from "../render/job.js";
import type { TenantRef } from "../tenancy.js";
import { idsOf } from "../tenant-view.js";
import { privateOrigin } from "./privacy.js";
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

function createChatHooks(deps: HookDeps): JobHooks<JobRecord> {
  const where = (job: JobRecord) => ({
    adapter: deps.adapter(job.tenant.platform),
    message: messageOf(job),
    conversation: job.conversation as unknown as ConversationRef,
  });

  return {
    async fetchStatus(job, signal) {
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
    },

    async showProgress(job, status) {
      const { adapter, message, conversation } = where(job);
      const view = viewOf(job);
      const result = status.result;
      const choice =
        status.state === "needs_choice" && result?.kind === "photo_avatar_variants"
          ? variantsCard(view, result.previewUrls)
          : undefined;
      const shown =
        message !== undefined &&
        (await editUnlessGone(adapter, message, choice ?? progressCard(view, status, elapsed(job))));
      if (!shown && choice) {
        // Without its message (never posted, or deleted since), progress has nowhere to show; a
        // choice the job waits on cannot go unseen, so it gets a post of its own, for the requester.
        await adapter.post(conversation, choice, {
          mentionUserId: job.requester.userId,
          idempotencyKey: `${job.id}:choice`,
        });
      }
    },

    async deliver(job, status) {
      const { adapter, message, conversation } = where(job);
      if (status.result) await deps.remember(job.tenant, idsOf(status.result));
      const view = viewOf(job);
      const resolved = await outcomeOf(job, status, adapter, conversation, deps);
      if (conversation.step)
        return deliverToStep(job, resolved, { adapter, message, conversation }, deps.logger);
      const { card, stored } = resolved;
      const notify = { mentionUserId: job.requester.userId, idempotencyKey: `${job.id}:ready` };
      // A job without its message (never posted, or deleted since) posts the outcome itself.
      const counted = () => deliveriesTotal.inc({ kind: job.kind, outcome: deliveredAs(card) });
      if (!(message && (await editUnlessGone(adapter, message, card)))) {
        await adapter.post(conversation, card, notify);
        counted();
        return stored;
      }
      counted();
      // A private result makes no noise: its own message, which only its person sees, is the news.
      // Where the bot is no member, the result in its own message is all the bot may post.
      if (privateOrigin(job) !== undefined || conversation.gestureOnly) return stored;
      // The edit notifies nobody: the keyed post does, once however often delivery runs. The
      // result shows already, so a channel that refuses new posts only costs the mention.
      await adapter
        .post(conversation, readyNotice(view, status.state !== "done"), notify)
        .catch((error: unknown) => {
          if (!(error instanceof UndeliverableError)) throw error;
          deps.logger.warn({ err: error, jobId: job.id }, "result shown, but its notice could not be posted");
        });
      return stored;
    },
  };
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
  conversation: ConversationRef,
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
      uploadLimit: adapter.uploadLimit(conversation),
      controls: controlsFor,
    });
    return { ...resolved, ok: true };
  } catch (error) {
    // Passing trouble (network, 5xx) is worth another delivery attempt; anything else will not
    // get better, so the job says what happened instead of staying on its progress bar.
    if (error instanceof BotError && error.retryable) throw error;
    deps.logger.warn({ err: error, jobId: job.id }, "result could not be fetched");
    const reason = error instanceof BotError ? error.userMessage : "The result could not be read.";
    return { card: undeliverableCard(view, reason), stored: { undeliverable: reason }, ok: false };
  }
}
