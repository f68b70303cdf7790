import type { Middleware, SlackEventMiddlewareArgs } from "@slack/bolt";
import { conversationOf, gestureOf, isPerson } from "../gesture.js";
import type { Listening } from "./context.js";

type On<E extends string> = Middleware<SlackEventMiddlewareArgs<E>>;

/** The Home tab shows the person's settings panel, kept current while their jobs run. */
export function homeOpened(ctx: Listening): On<"app_home_opened"> {
  return async ({ event, body, context }) => {
    if (event.tab !== "home") return;
    const gesture = gestureOf(body, context);
    if (!(await ctx.first(gesture))) return;
    await ctx.later(gesture, async () =>
      ctx.bot.openHome(await ctx.actors.of(gesture.teamId, gesture.userId)),
    );
  };
}

/** Mentioning the bot shows the help, in the thread of the mention. */
export function mentioned(ctx: Listening): On<"app_mention"> {
  return async ({ body, context }) => {
    const gesture = gestureOf(body, context);
    if (!isPerson(gesture) || !(await ctx.first(gesture))) return;
    // After the ack: the person's users.info (their language) can be asked.
    await ctx.later(gesture, async () =>
      ctx.bot.handleCommand({
        command: "help",
        options: {},
        attachments: {},
        actor: await ctx.actors.of(gesture.teamId, gesture.userId),
        conversation: conversationOf(gesture),
      }),
    );
  };
}

/** A member's data changed (their language, an admin's role): what the bot knew of them goes. */
export function userChanged(ctx: Listening): On<"user_change"> {
  // The envelope's workspace, as gestures are keyed: a Grid member's own team_id may be another.
  return async ({ event, body }) => {
    ctx.actors.forget(body.team_id, event.user.id);
  };
}

/**
 * Uninstalled, or the bot token revoked: the installation goes, and with it the token, so the
 * workspace's jobs stop calling Slack (their deliveries end as undeliverable, said in `jobs`).
 * With SLACK_BOT_TOKEN the token is the operator's to replace.
 */
async function removed(ctx: Listening, teamId: string, why: string): Promise<void> {
  ctx.workspaces.forget(teamId);
  if (ctx.installations) await ctx.installations.remove(teamId);
  else ctx.logger.error({ teamId, why }, "Slack: the app was removed from the workspace of SLACK_BOT_TOKEN");
}

export function uninstalled(ctx: Listening): On<"app_uninstalled"> {
  return async ({ body, context }) => {
    await removed(ctx, gestureOf(body, context).teamId, "app_uninstalled");
  };
}

export function tokensRevoked(ctx: Listening): On<"tokens_revoked"> {
  return async ({ event, body, context }) => {
    // A user's token revoked leaves the bot's working.
    if ((event.tokens.bot ?? []).length > 0)
      await removed(ctx, gestureOf(body, context).teamId, "tokens_revoked");
  };
}
