import type { BlockAction, Middleware, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { actionByName } from "../../core/actions/catalogue.js";
import { conversationOf, type GestureOf, gestureOf } from "../gesture.js";
import { decodeActionId } from "../render/action-id.js";
import { formView } from "../render/form.js";
import type { Listening } from "./context.js";
import { formWordsFor, openForm } from "./forms.js";

type Clicked = GestureOf<BlockAction>;
type FollowUp = { action: string; jobId: string; value?: string };

/**
 * A button or a select on one of the core's cards, in a message or in the person's Home tab (no
 * channel, no message there: the Home shows the outcome). A follow-up with a form opens it;
 * anything else goes to the core, which updates the card.
 */
export function clicked(ctx: Listening): Middleware<SlackActionMiddlewareArgs<BlockAction>> {
  return async ({ ack, body, action, client, context }) => {
    await ack();
    const gesture = gestureOf(body, context);
    if (!(await ctx.first(gesture))) return;
    const key = decodeActionId(action.action_id);
    const { channelId, messageTs, home } = gesture;
    if (!key || channelId === undefined || (!home && messageTs === undefined)) return;
    // A select's value is the option chosen; a button's is in its action_id.
    const value =
      "selected_option" in action && action.selected_option ? action.selected_option.value : key.value;
    const followUp: FollowUp = {
      action: key.action,
      jobId: key.jobId,
      ...(value !== undefined && { value }),
    };
    if (actionByName(key.action)?.form && (await openedForm(ctx, client, gesture, channelId, followUp)))
      return;
    const where =
      home || messageTs === undefined
        ? { surface: "home" as const }
        : {
            message: {
              platform: "slack" as const,
              channelId,
              messageId: messageTs,
              data: { team: gesture.teamId },
            },
          };
    await ctx.later(gesture, async () =>
      ctx.bot.handleAction({
        ...followUp,
        actor: await ctx.actors.of(gesture.teamId, gesture.userId),
        ...where,
        conversation: conversationOf(gesture),
      }),
    );
  };
}

/**
 * A follow-up opens its form first, while the click's trigger_id is alive: a store read away, and
 * at most 1.5 s more for a form that shows an entry of the account's lists (a voice). False when
 * the core has no form for it (the action then runs as a plain click).
 */
async function openedForm(
  ctx: Listening,
  client: WebClient,
  gesture: Clicked,
  channelId: string,
  followUp: FollowUp,
): Promise<boolean> {
  const actor = ctx.actors.quick(gesture.teamId, gesture.userId);
  const [form, words] = await Promise.all([
    ctx.bot.actionForm({ ...followUp, actor, conversation: { channelId } }),
    formWordsFor(ctx, gesture.teamId, gesture.userId),
  ]);
  if (!form) return false;
  const onPanel = actionByName(followUp.action)?.on === "settings";
  const shownIn = gesture.home
    ? { home: true as const }
    : onPanel && gesture.responseUrl
      ? { responseUrl: gesture.responseUrl }
      : {};
  const context = { command: form.form.name, channelId, followUp, ...shownIn };
  const title = words.title({ action: followUp.action }, form.title);
  const view = formView(form.form, form.initial, context, title, form.choices, words);
  await openForm(ctx, client, gesture.triggerId, view, conversationOf(gesture));
  return true;
}
