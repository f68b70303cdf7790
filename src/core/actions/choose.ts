import { z } from "zod";
import { ServiceError, ServiceFailureError } from "../base/errors.js";
import { ActionError } from "../commands/errors.js";
import type { MessageKey } from "../i18n/catalogues.js";
import { msg } from "../i18n/msg.js";
import { choiceKey } from "../jobs/engine.js";
import { messageOf } from "../jobs/records.js";
import { confirmingCard, viewOf } from "../render/job.js";
import { type ActionContext, defineAction } from "./define.js";

/** Bounds a choice whose process lives but hangs; a crashed process's claim is free at once. */
const CHOICE_CLAIM_MS = 10 * 60_000;

/**
 * Keep 1, Keep 2 and Keep both: one claim per job, so only the first click of any of them reaches
 * the service. The confirm is paid and never repeated: from the moment it may be sent, the job
 * polls its status again if its answer is lost (or the process dies), and the status says what
 * the service did: the avatars, delivered once, or the variants, whose buttons then come back.
 */
async function choose({ core, job, adapter }: ActionContext<unknown>, variant: 1 | 2 | undefined) {
  const both = variant === undefined;
  const finished = new ActionError(
    "action.finished",
    msg(job.state === "done" ? "refusal.action.variant_kept" : "refusal.action.not_waiting"),
  );
  if (job.state !== "needs_choice") throw finished;
  const key = choiceKey(job.id);
  if (!(await core.engine.liveness.claim(key, CHOICE_CLAIM_MS))) {
    throw new ActionError("action.choosing", msg("refusal.action.choice_pending"));
  }
  try {
    const choosing = await core.engine.beginChoice(job.id);
    if (!choosing) throw finished;
    // A job launched without a message showed its variants in a post of their own, which keeps its
    // buttons: a second click there is refused by the job's state, and the outcome gets a post too.
    const message = messageOf(job);
    // Cosmetic: the buttons go while the choice is made; the choice does not depend on it.
    if (message) {
      await adapter
        .edit(message, confirmingCard(viewOf(job), both ? { both: true } : { variant }))
        .catch((error: unknown) => core.logger.warn({ err: error, jobId: job.id }, "choice not shown"));
    }
    let avatarIds: string[];
    try {
      const media = await core.media(job.tenant);
      avatarIds = both
        ? (await media.photoAvatars.confirmBoth({ jobId: job.serviceJobId })).avatarIds
        : [(await media.photoAvatars.confirm({ jobId: job.serviceJobId, variant })).avatarId];
    } catch (error) {
      await core.engine.resume(job.id);
      if (answered(error)) throw error;
      throw new ActionError("action.choice_unconfirmed", msg("refusal.action.choice_unconfirmed"), {
        cause: error,
      });
    }
    await core.engine.finish(job.id, {
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "photo_avatar", avatarIds },
    });
  } finally {
    await core.engine.liveness.release(key);
  }
}

/**
 * The service answered with an error status or its failure envelope: the error says what went
 * wrong. Without an answer (a timeout, a dropped connection, an unreadable body) nobody knows.
 */
function answered(error: unknown): boolean {
  if (error instanceof ServiceFailureError) return true;
  return error instanceof ServiceError && error.status !== undefined && error.status >= 400;
}

// Whether the job still waits is checked by `choose`, which says what became of the choice.
const photoAvatar = (job: { command: string }) => job.command.startsWith("photo_avatar.");

export const confirm = defineAction({
  name: "confirm",
  value: z.enum(["1", "2"], { error: "refusal.action.not_variant" satisfies MessageKey }),
  who: "requester",
  appliesTo: photoAvatar,
  run: (ctx) => choose(ctx, ctx.value === "1" ? 1 : 2),
});

export const confirmBoth = defineAction({
  name: "confirm_both",
  who: "requester",
  appliesTo: photoAvatar,
  run: (ctx) => choose(ctx, undefined),
});
