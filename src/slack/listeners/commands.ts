import type { Middleware, SlackCommandMiddlewareArgs } from "@slack/bolt";
import { readCommandLine } from "../command-line.js";
import { conversationOf, gestureOf } from "../gesture.js";
import { formView, needsForm } from "../render/form.js";
import type { Listening } from "./context.js";
import { formWordsFor, openForm } from "./forms.js";

export const SLASH_COMMAND = "/media";

/**
 * `/media …`: its form when the command line leaves something to ask (opened before any other
 * awaited call but the redelivery check, while the trigger lives), else the command for the core.
 */
export function slashCommand(ctx: Listening): Middleware<SlackCommandMiddlewareArgs> {
  return async ({ command, ack, client, context }) => {
    await ack();
    const gesture = gestureOf(command, context);
    if (!(await ctx.first(gesture))) return;
    const request = readCommandLine(command.text);
    const where = conversationOf(gesture);
    if (request.command && needsForm(request.command, request.options)) {
      const form = { command: request.name, channelId: where.channelId };
      const words = await formWordsFor(ctx, gesture.teamId, gesture.userId);
      const view = formView(request.command, request.options, form, undefined, {}, words);
      await openForm(ctx, client, gesture.triggerId, view, where);
      return;
    }
    await ctx.later(gesture, async () =>
      ctx.bot.handleCommand({
        command: request.name,
        options: request.options,
        attachments: {},
        actor: await ctx.actors.of(gesture.teamId, gesture.userId),
        conversation: where,
      }),
    );
  };
}
