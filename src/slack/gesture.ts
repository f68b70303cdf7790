import type { Context } from "@slack/bolt";
import type { ConversationRef } from "../core/base/ports.js";
import { type FormContext, readContext } from "./render/form.js";
import { personOf } from "./steps.js";

/**
 * A gesture: what one delivery from Slack says about itself, read here once whatever its kind
 * (a slash command, a click, a form submitted, a message shortcut, a search in a select, an event,
 * a workflow step), so that each listener starts from the same facts: who, where, which tenant,
 * the reply credential, and what tells a redelivery from the first.
 */
export interface Gesture {
  /** Which tenant: the workspace, whose bot token answers there, also after a restart. */
  teamId: string;
  /**
   * Who acted: for a workflow step, the person in its Person input; none for a workspace's own
   * events (app_uninstalled), a mention by a bot, or a step whose Person input is empty.
   */
  userId?: string;
  /**
   * Where: the channel; in a form, the channel it was opened for (its metadata keeps it); in the
   * person's App Home tab, their own id, which stands for it (the bot posts there in their DM).
   */
  channelId?: string;
  /** The thread of a mention, or the one it starts. */
  threadId?: string;
  /** The message acted on: a button or select clicked in it, a shortcut used on it. */
  messageTs?: string;
  /** Made in the person's App Home tab, or in a form opened there: the Home shows the outcome. */
  home: boolean;
  /** The form the gesture was made in (submitted, or searched in), as it was opened. */
  form?: FormContext;
  /**
   * The reply credential: the response_url Slack gave a command, a click on a message or a shortcut
   * (or kept by a settings form opened from a private panel), good for 30 minutes and 5 posts.
   */
  responseUrl?: string;
  /** A workflow step's reply credential: its execution, and the function's own token that ends it. */
  step?: StepRun;
  /** Opens a form (views.open): alive for 3 s, and good once. */
  triggerId?: string;
  /**
   * What every delivery of this gesture shares (its trigger, its event): Slack redelivers what it
   * thinks was not acknowledged, so only the first may run (recent.ts). None for a search, which
   * is answered, not run.
   */
  deliveryId?: string;
}

/** A gesture by a known person: commands, clicks, forms, shortcuts, searches, the Home opened. */
export type Person = Gesture & { userId: string };

export interface StepRun {
  executionId: string;
  token: string;
}

/**
 * The parts of a Slack payload a gesture is read from; each kind carries some of them. A slash
 * command's are flat strings; an interactive payload's (block_actions, view_submission,
 * message_action, block_suggestion) are objects; an Events API envelope has its event inside.
 */
export interface GestureBody {
  team_id?: string;
  user_id?: string;
  channel_id?: string;
  team?: { id: string } | null;
  user?: { id: string; team_id?: string };
  channel?: { id: string };
  container?: { channel_id?: unknown; message_ts?: unknown };
  message?: { ts?: string };
  view?: { type: string; private_metadata?: string };
  trigger_id?: string;
  response_url?: string;
  event_id?: string;
  event?: {
    type: string;
    user?: string;
    channel?: string;
    ts?: string;
    thread_ts?: string;
    inputs?: Record<string, unknown>;
    function_execution_id?: string;
    bot_access_token?: string;
  };
}

/**
 * What a payload's kind guarantees of its gesture: a person for commands, clicks, forms,
 * shortcuts, searches and the Home opened; a trigger for the gestures that may open a form; a run
 * for a workflow step.
 */
export type GestureOf<B> = Gesture &
  (B extends { user: { id: string } } | { user_id: string } | { event: { user: string } }
    ? { userId: string }
    : unknown) &
  (B extends { trigger_id: string } ? { triggerId: string } : unknown) &
  (B extends { event: { function_execution_id: string; bot_access_token: string } }
    ? { step: StepRun }
    : unknown);

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The gesture of a delivery. `context` is Bolt's: its teamId (from the installation that
 * authorized the request) wins over the payload's.
 */
export function gestureOf<B extends GestureBody>(body: B, context: Pick<Context, "teamId">): GestureOf<B> {
  const { event } = body;
  const form = body.view?.type === "modal" ? readContext(body.view.private_metadata ?? "") : undefined;
  const home = form ? form.home === true : body.view?.type === "home";
  const userId =
    body.user?.id ?? body.user_id ?? (event?.inputs ? personOf(event.inputs) : undefined) ?? event?.user;
  const channelId =
    form?.channelId ??
    (home ? userId : undefined) ??
    body.channel?.id ??
    text(body.container?.channel_id) ??
    body.channel_id ??
    event?.channel;
  const threadId = event?.thread_ts ?? event?.ts;
  const messageTs = body.message?.ts ?? text(body.container?.message_ts);
  const responseUrl = form?.responseUrl ?? body.response_url;
  const step = event?.function_execution_id !== undefined &&
    event.bot_access_token !== undefined && {
      step: { executionId: event.function_execution_id, token: event.bot_access_token },
    };
  const deliveryId =
    body.trigger_id !== undefined
      ? `trigger:${body.trigger_id}`
      : body.event_id !== undefined
        ? `event:${body.event_id}`
        : undefined;
  const gesture: Gesture = {
    teamId: context.teamId ?? body.team_id ?? body.team?.id ?? body.user?.team_id ?? "",
    ...(userId !== undefined && { userId }),
    ...(channelId !== undefined && { channelId }),
    ...(threadId !== undefined && { threadId }),
    ...(messageTs !== undefined && { messageTs }),
    home,
    ...(form && { form }),
    ...(responseUrl !== undefined && { responseUrl }),
    ...step,
    ...(body.trigger_id !== undefined && { triggerId: body.trigger_id }),
    ...(deliveryId !== undefined && { deliveryId }),
  };
  // What the payload's type promises is there (GestureOf), since it is read from those very fields.
  return gesture as GestureOf<B>;
}

/** Whether the gesture names its person (a mention by a bot, a step without one does not). */
export const isPerson = (gesture: Gesture): gesture is Person => Boolean(gesture.userId);

/**
 * The core's conversation for a person's gesture: where it was made, answered through its
 * response_url while that lives. `team` tells the adapter whose token answers there, also after
 * a restart.
 */
export function conversationOf(gesture: Person): ConversationRef {
  return {
    platform: "slack",
    channelId: gesture.channelId ?? gesture.userId,
    ...(gesture.threadId && { threadId: gesture.threadId }),
    data: { user: gesture.userId, team: gesture.teamId },
    ...(gesture.responseUrl && { live: { responseUrl: gesture.responseUrl } }),
  };
}
