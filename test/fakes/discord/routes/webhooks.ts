import type { APIMessage } from "discord-api-types/v10";
import { errors } from "../errors.js";
import { editMessage, type MessageBody } from "../messages.js";
import { MessageFlag, messageRules } from "../rules.js";
import type { InteractionRecord } from "../state.js";
import { assertRules, assertSchema } from "../validate.js";
import { responseMessage } from "./interactions.js";
import { json, noContent, type Reply, type Route, type RouteContext } from "./types.js";

export const TOKEN_LIFETIME_MS = 15 * 60 * 1000;
/** Followups of an interaction that came through a person's install only (no server install where it was used). */
const USER_INSTALL_FOLLOWUPS = 5;

/** The interaction whose token is the webhook token; it works for 15 minutes. */
function interactionOf({ world, clock, params }: RouteContext): InteractionRecord {
  if (params.webhook_id !== world.applicationId) throw errors.unknownWebhook();
  const interaction = world.interactionByToken(params.webhook_token ?? "");
  if (!interaction || clock.now() - interaction.createdAt > TOKEN_LIFETIME_MS)
    throw errors.invalidWebhookToken();
  return interaction;
}

/** `@original` or a followup: the token reaches only the messages of its own interaction. */
function messageOf(ctx: RouteContext, interaction: InteractionRecord): APIMessage {
  const requested = ctx.params.message_id;
  const id = requested === "@original" ? interaction.originalMessageId : requested;
  const mine =
    id !== undefined && (id === interaction.originalMessageId || interaction.followupIds.includes(id));
  const message = mine ? ctx.world.messages.get(id) : undefined;
  if (!message) throw errors.unknownMessage();
  return message;
}

function edit(ctx: RouteContext): Reply {
  const interaction = interactionOf(ctx);
  const message = messageOf(ctx, interaction);
  assertSchema("IncomingWebhookUpdateRequestPartialSchema", ctx.body);
  const body = (ctx.body ?? {}) as MessageBody;
  assertRules(messageRules(body as Record<string, unknown>, "", message.flags));
  return json(editMessage(ctx.world, message, body, ctx.files));
}

function followup(ctx: RouteContext): Reply {
  const interaction = interactionOf(ctx);
  if (interaction.stage === "new") throw errors.unknownWebhook();
  const owners = interaction.payload.authorizing_integration_owners ?? {};
  if (!("0" in owners) && interaction.followupIds.length >= USER_INSTALL_FOLLOWUPS) {
    throw errors.tooManyFollowups();
  }
  assertSchema("IncomingWebhookRequestPartialSchema", ctx.body);
  const body = (ctx.body ?? {}) as MessageBody;
  assertRules(messageRules(body as Record<string, unknown>, ""));
  const original = interaction.originalMessageId
    ? ctx.world.messages.get(interaction.originalMessageId)
    : undefined;
  // The first followup after a defer replaces the "is thinking..." placeholder instead of adding a message.
  const message =
    original && (original.flags ?? 0) & MessageFlag.Loading
      ? editMessage(ctx.world, original, { ...body, flags: undefined }, ctx.files)
      : responseMessage(ctx.world, interaction, body, ctx.files);
  if (message.id !== interaction.originalMessageId) interaction.followupIds.push(message.id);
  return ctx.query.get("wait") === "true" ? json(message) : noContent;
}

const base = "/webhooks/:webhook_id/:webhook_token";

export const webhookRoutes: Route[] = [
  { method: "POST", path: base, auth: "none", handle: followup },
  {
    method: "GET",
    path: `${base}/messages/:message_id`,
    auth: "none",
    handle: (ctx) => json(messageOf(ctx, interactionOf(ctx))),
  },
  { method: "PATCH", path: `${base}/messages/:message_id`, auth: "none", handle: edit },
  {
    method: "DELETE",
    path: `${base}/messages/:message_id`,
    auth: "none",
    handle: (ctx) => {
      const interaction = interactionOf(ctx);
      const message = messageOf(ctx, interaction);
      ctx.world.messages.delete(message.id);
      if (message.id === interaction.originalMessageId) interaction.originalMessageId = undefined;
      return noContent;
    },
  },
];
