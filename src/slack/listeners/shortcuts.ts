import type { MessageShortcut, Middleware, SlackShortcutMiddlewareArgs } from "@slack/bolt";
import { type ImageInput, noImageNotice } from "../../core/actions/image-inputs.js";
import { conversationOf, gestureOf } from "../gesture.js";
import { imageOf } from "../message-images.js";
import { formView } from "../render/form.js";
import type { Listening } from "./context.js";
import { formWordsFor, openForm } from "./forms.js";

/**
 * "Edit image" and the other message shortcuts: the follow-up's form with the message's image,
 * which joins the form's files when it is submitted; a message without one is told so privately.
 */
export function messageShortcut(
  ctx: Listening,
  input: ImageInput,
): Middleware<SlackShortcutMiddlewareArgs<MessageShortcut>> {
  return async ({ ack, shortcut, client, context }) => {
    await ack();
    const gesture = gestureOf(shortcut, context);
    if (!(await ctx.first(gesture))) return;
    const where = conversationOf(gesture);
    const image = imageOf(shortcut.message, context.botId);
    const words = await formWordsFor(ctx, gesture.teamId, gesture.userId);
    if (!image) {
      // The shortcut keeps its name as Slack shows it (the app's manifest, English).
      await ctx.adapter
        .post(where, noImageNotice(input, words.t), { ephemeral: true })
        .catch((error: unknown) =>
          ctx.logger.warn({ err: error, channel: where.channelId }, "notice not posted"),
        );
      return;
    }
    const form = {
      command: input.command,
      channelId: where.channelId,
      image: { option: input.file, ...image },
    };
    const title = words.title({ input: input.name }, input.title);
    await openForm(ctx, client, gesture.triggerId, formView(input.form, {}, form, title, {}, words), where);
  };
}
