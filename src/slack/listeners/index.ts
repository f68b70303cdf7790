import {
  type App,
  type BlockAction,
  ErrorCode,
  type MessageShortcut,
  type ViewSubmitAction,
} from "@slack/bolt";
import { IMAGE_INPUTS } from "../../core/actions/image-inputs.js";
import { isStoreOutage } from "../../store/index.js";
import { ACTION_ID } from "../render/action-id.js";
import { SEARCH_BLOCK_ID } from "../render/card.js";
import { FORM_CALLBACK_ID } from "../render/form.js";
import { STEPS } from "../steps.js";
import { clicked } from "./actions.js";
import { SLASH_COMMAND, slashCommand } from "./commands.js";
import type { Listening } from "./context.js";
import { homeOpened, mentioned, tokensRevoked, uninstalled, userChanged } from "./events.js";
import { stepStarted } from "./functions.js";
import { messageShortcut } from "./shortcuts.js";
import { formSuggestions, searchSuggestions } from "./suggestions.js";
import { formSubmitted } from "./views.js";

export { SLASH_COMMAND } from "./commands.js";
export type { Listening } from "./context.js";

/**
 * Every listener of the app, one named function per kind. Each reads its gesture once
 * (gesture.ts), acknowledges first (Slack waits 3 s), opens a form with the trigger_id before any
 * other awaited call but the redelivery check (the trigger dies after 3 s and works once), then
 * hands a core event to the bot in the person's lane, which does all the rest and answers through
 * the adapter.
 */
export function registerListeners(app: App, ctx: Listening): void {
  app.command(SLASH_COMMAND, slashCommand(ctx));
  app.view<ViewSubmitAction>(FORM_CALLBACK_ID, formSubmitted(ctx));
  app.options<"block_suggestion">({ callback_id: FORM_CALLBACK_ID }, formSuggestions(ctx));
  app.options<"block_suggestion">({ block_id: SEARCH_BLOCK_ID }, searchSuggestions(ctx));
  app.action<BlockAction>(ACTION_ID, clicked(ctx));
  for (const input of IMAGE_INPUTS) {
    app.shortcut<MessageShortcut>(
      { type: "message_action", callback_id: input.name },
      messageShortcut(ctx, input),
    );
  }
  // Workflow Builder's steps: each runs its command as the person who started the workflow.
  for (const step of STEPS) app.function(step.callbackId, stepStarted(ctx, step));
  app.event("app_home_opened", homeOpened(ctx));
  app.event("app_mention", mentioned(ctx));
  app.event("app_uninstalled", uninstalled(ctx));
  app.event("tokens_revoked", tokensRevoked(ctx));
  app.event("user_change", userChanged(ctx));

  app.error(async (error) => {
    if (error.code === ErrorCode.AuthorizationError) {
      // The store away, and the installation never read by this process: the outage is logged.
      if (isStoreOutage((error as { original?: unknown }).original)) return;
      // A request from a workspace the app is not installed in (any more): nothing to answer.
      ctx.logger.warn({ err: error }, "Slack: a request from a workspace without an installation");
      return;
    }
    ctx.logger.error({ err: error }, "Slack listener failed");
  });
}
