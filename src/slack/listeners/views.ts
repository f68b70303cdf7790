import type { Middleware, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { commandByName } from "../../core/commands/catalogue.js";
import type { AnyCommand } from "../../core/commands/define.js";
import { fieldErrors } from "../form-errors.js";
import { conversationOf, gestureOf, type Person } from "../gesture.js";
import { type FormContext, type FormValues, readForm } from "../render/form.js";
import type { Listening } from "./context.js";
import { formFiles, formWordsFor } from "./forms.js";

type State = ViewSubmitAction["view"]["state"]["values"];
type FollowUp = NonNullable<FormContext["followUp"]>;

/**
 * A form submitted. A follow-up's fields are checked by the core (against its job's form), which
 * answers privately; a command's are checked here, and a wrong one keeps the form open with the
 * field's error, before the command goes to the core.
 */
export function formSubmitted(ctx: Listening): Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>> {
  return async ({ ack, body, view, context, client }) => {
    const gesture = gestureOf(body, context);
    const followUp = gesture.form?.followUp;
    if (followUp) {
      await ack();
      if (await ctx.first(gesture))
        await followUpSubmitted(ctx, gesture, followUp, view.state.values, client);
      return;
    }
    const command = gesture.form && commandByName(gesture.form.command);
    if (!command) {
      await ack();
      return;
    }
    const values = readForm(command, view.state.values);
    // In the language the form was shown in.
    const { t } = await formWordsFor(ctx, gesture.teamId, gesture.userId);
    const errors = fieldErrors(command, values.options, t);
    if (Object.keys(errors).length > 0) {
      await ack({ response_action: "errors", errors });
      return;
    }
    await ack();
    if (await ctx.first(gesture)) await commandSubmitted(ctx, gesture, command, values, client);
  };
}

async function followUpSubmitted(
  ctx: Listening,
  gesture: Person,
  followUp: FollowUp,
  state: State,
  client: WebClient,
): Promise<void> {
  const where = conversationOf(gesture);
  await ctx.later(gesture, async () => {
    const actor = await ctx.actors.of(gesture.teamId, gesture.userId);
    const asked = await ctx.bot.actionForm({ ...followUp, actor, conversation: where });
    const values = asked ? readForm(asked.form, state) : { options: {}, files: {} };
    const attachments = await formFiles(ctx, client, values.files, where);
    if (!attachments) return;
    await ctx.bot.handleAction({
      ...followUp,
      fields: values.options,
      attachments,
      actor,
      conversation: where,
      entry: "form",
      ...(gesture.home && { surface: "home" as const }),
    });
  });
}

async function commandSubmitted(
  ctx: Listening,
  gesture: Person,
  command: AnyCommand,
  values: FormValues,
  client: WebClient,
): Promise<void> {
  const where = conversationOf(gesture);
  // A message shortcut's image joins the files given in the form.
  const image = gesture.form?.image;
  const files = image ? { ...values.files, [image.option]: [image.fileId] } : values.files;
  await ctx.later(gesture, async () => {
    const attachments = await formFiles(ctx, client, files, where);
    if (!attachments) return;
    await ctx.bot.handleCommand({
      command: command.name,
      options: values.options,
      attachments,
      actor: await ctx.actors.of(gesture.teamId, gesture.userId),
      conversation: where,
      entry: image ? "message_shortcut" : "form",
      ...(image?.jobId && { results: { [image.option]: image.jobId } }),
    });
  });
}
