import type { Middleware, SlackOptionsMiddlewareArgs } from "@slack/bolt";
import type { Choice } from "../../core/base/ports.js";
import { conversationOf, gestureOf } from "../gesture.js";
import { SLACK_LIMITS } from "../limits.js";
import { readSearchBlockId } from "../render/card.js";
import { cut } from "../render/mrkdwn.js";
import type { Listening } from "./context.js";

type Suggest = Middleware<SlackOptionsMiddlewareArgs<"block_suggestion">>;

/** The core's choices as an external select's options, within Slack's limits. */
function suggestions(choices: readonly Choice[]) {
  return choices
    .filter((c) => c.value.length <= SLACK_LIMITS.optionValue)
    .slice(0, SLACK_LIMITS.selectOptions)
    .map((c) => ({
      text: { type: "plain_text" as const, text: cut(c.label, SLACK_LIMITS.optionText) },
      value: c.value,
    }));
}

/** A search in one of a form's selects: the lists of the form's command. Answered at once, never queued. */
export function formSuggestions(ctx: Listening): Suggest {
  return async ({ ack, body, context }) => {
    const gesture = gestureOf(body, context);
    const form = gesture.form;
    const choices = form
      ? await ctx.bot.handleAutocomplete({
          command: form.command,
          option: body.action_id,
          query: body.value,
          actor: ctx.actors.quick(gesture.teamId, gesture.userId),
          conversation: conversationOf(gesture),
        })
      : [];
    await ack({ options: suggestions(choices) });
  };
}

/** A searchable select outside forms (an avatar in the Home tab): its block names what to search. */
export function searchSuggestions(ctx: Listening): Suggest {
  return async ({ ack, body, context }) => {
    const gesture = gestureOf(body, context);
    const search = readSearchBlockId(body.block_id);
    const choices = search
      ? await ctx.bot.handleAutocomplete({
          ...search,
          query: body.value,
          actor: ctx.actors.quick(gesture.teamId, gesture.userId),
          conversation: conversationOf(gesture),
        })
      : [];
    await ack({ options: suggestions(choices) });
  };
}
