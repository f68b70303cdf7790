import type { ModalView } from "@slack/types";
import type { WebClient } from "@slack/web-api";
import { type Card, card } from "../../core/base/cards.js";
import type { Attachment, ConversationRef } from "../../core/base/ports.js";
import { type FormWords, formWords } from "../../core/home/form-words.js";
import { errorCard } from "../../core/render/errors.js";
import { userFilesByOption } from "../files.js";
import type { Listening } from "./context.js";

/** Problems of the Slack side itself (a form that did not open, a file Slack would not give). */
async function tell(
  { adapter, logger }: Listening,
  where: ConversationRef,
  message: Card,
  error: unknown,
  what: string,
): Promise<void> {
  logger.warn({ err: error, channel: where.channelId }, what);
  await adapter.post(where, message, { ephemeral: true }).catch((cause: unknown) => {
    logger.error({ err: cause, channel: where.channelId }, "could not tell the user");
  });
}

/**
 * The words of a form for this person, read while its trigger lives: their Slack's locale
 * (users.info, cached), then their own choice in the bot and their workspace's default.
 */
export async function formWordsFor(ctx: Listening, teamId: string, userId: string): Promise<FormWords> {
  const locale = await ctx.actors.locale(teamId, userId);
  return formWords(
    await ctx.bot.formLocale({ ...ctx.actors.quick(teamId, userId), ...(locale && { locale }) }),
  );
}

/** Opens a form with the gesture's trigger (alive 3 s, good once); the person is told if Slack would not. */
export async function openForm(
  ctx: Listening,
  client: WebClient,
  triggerId: string,
  view: ModalView,
  where: ConversationRef,
): Promise<void> {
  try {
    await client.views.open({ trigger_id: triggerId, view });
  } catch (error) {
    const lines = ["Slack did not open the form. Try again."];
    await tell(ctx, where, card("The form did not open", "error", { lines }), error, "views.open failed");
  }
}

/**
 * The files given in a form, by option, read with the workspace's client (the listener's);
 * undefined once the user was told Slack would not say where one is.
 */
export async function formFiles(
  ctx: Listening,
  client: WebClient,
  ids: Record<string, string[]>,
  where: ConversationRef,
): Promise<Record<string, Attachment[]> | undefined> {
  try {
    return await userFilesByOption(client, ids);
  } catch (error) {
    await tell(ctx, where, errorCard(error), error, "files.info failed");
    return undefined;
  }
}
