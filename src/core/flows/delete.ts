import type { JobRecord } from "../../store/jobs.js";
import { DeleteRefusedError } from "../base/errors.js";
import type { ActionEvent, ChatAdapter, MessageRef } from "../base/ports.js";
import { ActionError } from "../commands/errors.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { messageOf, updateJob } from "../jobs/records.js";
import { confirmDeleteCard, deletedCard, deletedNotice } from "../render/delete.js";
import { type JobView, viewOf } from "../render/job.js";
import type { Core } from "./core.js";
import { privateOrigin } from "./privacy.js";

/**
 * Delete on a finished result (its message's button, the jobs list): its requester or an admin
 * (the catalogue's `who`). A result others see is asked about first; one only its requester sees
 * goes at the first click. One deletion at a time per job, and the job's record says it was
 * deleted only once its message is gone (or shows the result no more): a deletion cut short is
 * done again by the next click, which finds the message gone and counts that as done. The job
 * stays in the jobs list, marked deleted, and its follow-ups act no more.
 */

/** What a click on a deleted result's controls is told; a second Delete too. */
export const deletedResult = () => new ActionError("action.deleted", msg("delete.deleted"));

export async function removeResult(
  core: Core,
  adapter: ChatAdapter,
  job: JobRecord,
  event: ActionEvent,
  confirmed: boolean,
): Promise<void> {
  const view = viewOf(job);
  const reader = readerLocale(event.actor);
  if (!confirmed && privateOrigin(job) === undefined) {
    await adapter.post(event.conversation, confirmDeleteCard(view, reader), { ephemeral: true });
    return;
  }
  // Read again under the action's claim (actions/delete.ts, one deletion of a job at a time): a
  // click that came with this one may have deleted it meanwhile.
  const current = await core.jobs.get(job.id);
  if (!current) throw new ActionError("action.unknown_job", msg("delete.unknown_job"));
  if (current.deleted) throw deletedResult();
  const message = messageOf(current);
  if (!message) {
    throw new ActionError("action.invalid", msg("delete.no_message"));
  }
  const how = await removeMessage(core, adapter, message, event, view);
  await updateJob(core.jobs, current, (now) =>
    now.deleted ? undefined : { deleted: { by: event.actor.userId, at: Date.now() } },
  );
  await answer(core, adapter, event, confirmed, deletedNotice(view, how, reader));
}

/**
 * The result's message deleted, through the click itself when it is on that message (a private
 * reply is reachable only so); where the platform keeps it, the result is taken out of it.
 */
async function removeMessage(
  core: Core,
  adapter: ChatAdapter,
  message: MessageRef,
  event: ActionEvent,
  view: JobView,
): Promise<"removed" | "emptied"> {
  const onIt = event.message?.messageId === message.messageId && event.surface !== "home";
  try {
    await adapter.remove(message, onIt ? event.conversation : undefined);
    return "removed";
  } catch (error) {
    if (!(error instanceof DeleteRefusedError)) throw error;
    try {
      await adapter.edit(message, deletedCard(view));
      return "emptied";
    } catch (editError) {
      core.logger.warn({ err: editError, jobId: event.jobId }, "result neither deleted nor emptied");
      throw error;
    }
  }
}

/** On the question's card, which becomes the answer; elsewhere (the result is gone) a private answer. */
async function answer(
  core: Core,
  adapter: ChatAdapter,
  event: ActionEvent,
  confirmed: boolean,
  notice: ReturnType<typeof deletedNotice>,
) {
  if (confirmed && event.surface !== "home") {
    try {
      return await adapter.replace(event.conversation, notice);
    } catch (error) {
      core.logger.debug({ err: error }, "the question of a deletion not replaced: answered anew");
    }
  }
  await adapter.post(event.conversation, notice, { ephemeral: true });
}
