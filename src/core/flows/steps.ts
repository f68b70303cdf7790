import type { JobRecord } from "../../store/jobs.js";
import { type Card, isCard, plainText } from "../base/cards.js";
import { StepEndedError } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import type { ChatAdapter, ConversationRef, Json, Message, MessageRef, StepOutcome } from "../base/ports.js";
import { translatorFor } from "../i18n/translator.js";

/**
 * Jobs that a workflow step started (`ConversationRef.step`): the step waits for the job and ends
 * with it, through the adapter's `completeStep`, instead of a message in a channel.
 */

/** A card as the plain words a workflow's activity shows for a step that ended in error. */
export function stepText(message: Message): string {
  if (!isCard(message)) return message.text;
  return [message.title, ...message.lines.map(plainText), ...(message.footer ? [message.footer] : [])]
    .filter((text) => text !== "")
    .join("\n");
}

/** The adapter's way to end a step: only a platform with workflow steps makes step conversations. */
function completerOf(adapter: ChatAdapter): NonNullable<ChatAdapter["completeStep"]> {
  if (!adapter.completeStep) throw new Error(`the ${adapter.platform} adapter has no workflow steps`);
  return adapter.completeStep.bind(adapter);
}

/**
 * A refusal (bad input, access, limits, a failed start) for the person of a gesture: privately
 * where they asked, or as the error that ends the workflow step that asked (no job was started).
 */
export async function tellRefusal(
  adapter: ChatAdapter,
  conversation: ConversationRef,
  card: Card,
): Promise<void> {
  if (conversation.step && adapter.completeStep) {
    await adapter.completeStep(conversation, { ok: false, reason: stepText(card) });
    return;
  }
  await adapter.post(conversation, card, { ephemeral: true });
}

const textOf = (value: Json | undefined) => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * The step's outputs from what delivery resolved: the ids and link the job stored, and the file
 * its card carries (left out when the result is over the platform's upload limit).
 */
function outcomeOf(job: JobRecord, card: Card, stored: Json, ok: boolean): StepOutcome {
  if (!ok) return { ok: false, jobId: job.id, reason: stepText(card) };
  const kept = typeof stored === "object" && stored !== null && !Array.isArray(stored) ? stored : {};
  const medium = card.media[0];
  const mediaId = textOf(kept.mediaId) ?? textOf(kept.videoId);
  const url = textOf(kept.url) ?? medium?.url;
  return {
    ok: true,
    jobId: job.id,
    ...(mediaId && { mediaId }),
    ...(url && { url }),
    ...(medium?.file && { file: medium.file }),
  };
}

/**
 * A step that ends once its job is started: it completes with the job's id, and the job runs on
 * in the person's DM. The job is started and recorded whatever Slack answers, so a completion that
 * fails is only logged: the result still comes to the DM.
 */
export async function endStepAtStart(
  adapter: ChatAdapter,
  conversation: ConversationRef,
  jobId: string,
  logger: Logger,
): Promise<void> {
  await completerOf(adapter)(conversation, { ok: true, jobId }).catch((error: unknown) => {
    logger.warn({ err: error, jobId }, "workflow step not completed at its job's start; the job goes on");
  });
}

/**
 * Where a step's person hears what the step can no longer carry: privately, in their DM with the
 * bot. Any other conversation is itself.
 */
export function outsideStep(conversation: ConversationRef): ConversationRef {
  if (!conversation.step) return conversation;
  const { step: _step, live: _live, ...plain } = conversation;
  // The person (the step's channelId) stands for the place the job was asked in.
  return { ...plain, privateFrom: conversation.channelId };
}

/**
 * Ends the job's step with its outcome. A step the platform ended first cannot take it: the
 * outcome then comes to its person privately (their DM with the bot), saying why, so nothing the
 * job made is lost. `resolved` is what the chat delivery would have shown.
 */
export async function deliverToStep(
  job: JobRecord,
  resolved: { card: Card; stored: Json; ok: boolean },
  where: { adapter: ChatAdapter; message: MessageRef | undefined; conversation: ConversationRef },
  logger: Logger,
): Promise<Json> {
  const { adapter, message, conversation } = where;
  try {
    await completerOf(adapter)(
      message ?? conversation,
      outcomeOf(job, resolved.card, resolved.stored, resolved.ok),
    );
    return resolved.stored;
  } catch (error) {
    if (!(error instanceof StepEndedError)) throw error;
    logger.info({ jobId: job.id }, "workflow step ended before its job: the outcome goes to its person");
  }
  // In the card's language, its requester's.
  const ended = translatorFor(resolved.card.locale).text("step.ended_first");
  const card = { ...resolved.card, lines: [...resolved.card.lines, ended] };
  await adapter.post(outsideStep(conversation), card, {
    mentionUserId: job.requester.userId,
    idempotencyKey: `${job.id}:ready`,
  });
  return resolved.stored;
}
