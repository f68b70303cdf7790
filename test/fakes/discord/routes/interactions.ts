import { type APIMessage, InteractionType, MessageType } from "discord-api-types/v10";
import { errors } from "../errors.js";
import {
  createMessage,
  editMessage,
  type MessageBody,
  type UploadedFile,
  withComponentIds,
} from "../messages.js";
import { MessageFlag, messageRules, modalRules } from "../rules.js";
import type { CallbackRecord, InteractionRecord, World } from "../state.js";
import { assertRules, assertSchema, invalidFormBody, type SchemaName } from "../validate.js";
import { json, noContent, type Reply, type Route, type RouteContext } from "./types.js";

export const FIRST_RESPONSE_MS = 3000;

const SCHEMAS: Record<number, SchemaName> = {
  4: "CreateMessageInteractionCallbackRequestSchema",
  5: "CreateMessageInteractionCallbackRequestSchema",
  6: "UpdateMessageInteractionCallbackRequestSchema",
  7: "UpdateMessageInteractionCallbackRequestSchema",
  8: "ApplicationCommandAutocompleteCallbackRequestSchema",
  9: "ModalInteractionCallbackRequestSchema",
};

/** Which callback types Discord takes for each interaction type. */
function allowedCallbacks(interaction: InteractionRecord): number[] {
  switch (interaction.type) {
    case InteractionType.ApplicationCommand:
      return [4, 5, 9];
    case InteractionType.MessageComponent:
      return [4, 5, 6, 7, 9];
    case InteractionType.ApplicationCommandAutocomplete:
      return [8];
    case InteractionType.ModalSubmit:
      // No modal answers a modal; updating a message needs the modal to come from one.
      return interaction.sourceMessageId ? [4, 5, 6, 7] : [4, 5];
    default:
      return [];
  }
}

/** "image generate": how Discord names the command a message answers, subcommands included. */
function commandPath(interaction: InteractionRecord): string {
  type Level = { name: string; type?: number; options?: Level[] };
  const names: string[] = [];
  let level = interaction.payload.data as Level | undefined;
  while (level) {
    names.push(level.name);
    const next = level.options?.[0];
    level = next && (next.type === 1 || next.type === 2) ? next : undefined;
  }
  return names.join(" ");
}

/** The fields Discord adds to a message an interaction created. */
export function responseMessage(
  world: World,
  interaction: InteractionRecord,
  body: MessageBody,
  files: UploadedFile[],
  loading = false,
): APIMessage {
  const user = world.user(interaction.userId);
  const command = interaction.type === InteractionType.ApplicationCommand;
  return createMessage(world, {
    channelId: interaction.channelId,
    author: world.botUser,
    body,
    files,
    loading,
    type: command ? MessageType.ChatInputCommand : MessageType.Default,
    extra: {
      webhook_id: world.applicationId,
      application_id: world.applicationId,
      interaction_metadata: {
        id: interaction.id,
        type: interaction.type,
        user,
        authorizing_integration_owners: interaction.payload.authorizing_integration_owners,
        ...(interaction.sourceMessageId ? { interacted_message_id: interaction.sourceMessageId } : {}),
        ...(interaction.originalMessageId
          ? { original_response_message_id: interaction.originalMessageId }
          : {}),
      } as APIMessage["interaction_metadata"],
      ...(command
        ? {
            interaction: { id: interaction.id, type: interaction.type, name: commandPath(interaction), user },
          }
        : {}),
    },
  });
}

function sourceMessage(world: World, interaction: InteractionRecord): APIMessage {
  const message = interaction.sourceMessageId && world.messages.get(interaction.sourceMessageId);
  if (!message) throw errors.unknownMessage();
  return message;
}

/** An interaction's first response, from the callback endpoint or inline in an HTTP interaction's answer. */
export function callback(ctx: RouteContext): Reply {
  return respond(ctx, "callback");
}

/**
 * An interaction's first response, however it came: by the callback endpoint, or in the body of
 * the Interactions Endpoint URL's 200 (which Discord applies as it would the callback).
 */
export function respond(ctx: RouteContext, via: CallbackRecord["via"]): Reply {
  const { world, clock, params } = ctx;
  const interaction = world.interactions.get(params.interaction_id ?? "");
  if (!interaction || interaction.token !== params.interaction_token) throw errors.unknownInteraction();
  if (interaction.stage !== "new") throw errors.alreadyAcknowledged();
  if (clock.now() - interaction.createdAt > FIRST_RESPONSE_MS) throw errors.unknownInteraction();

  const body = (ctx.body ?? {}) as { type?: unknown; data?: Record<string, unknown> | null };
  const type = typeof body.type === "number" ? body.type : -1;
  const schema = SCHEMAS[type];
  if (!schema) {
    throw invalidFormBody({
      kind: "schema",
      schema: "InteractionCallback",
      issues: [{ path: "type", message: `${String(body.type)} is not an interaction callback type` }],
    });
  }
  assertSchema(schema, body);
  if (!allowedCallbacks(interaction).includes(type)) {
    assertRules([
      {
        path: "type",
        message: `callback type ${type} is not valid for interaction type ${interaction.type} here`,
      },
    ]);
  }
  const data = body.data ?? {};
  if (type === 4) assertRules(messageRules(data, "data"));
  if (type === 5 && typeof data.flags === "number" && data.flags & ~MessageFlag.Ephemeral) {
    assertRules([
      {
        path: "data.flags",
        message: "a deferred reply takes only the EPHEMERAL flag; set the rest when editing",
      },
    ]);
  }
  if (type === 7) assertRules(messageRules(data, "data", sourceMessage(world, interaction).flags));
  if (type === 9) assertRules(modalRules(data, "data"));

  let message: APIMessage | undefined;
  switch (type) {
    case 4:
      message = responseMessage(world, interaction, data, ctx.files);
      interaction.stage = "replied";
      break;
    case 5:
      message = responseMessage(
        world,
        interaction,
        { flags: ((data.flags as number | undefined) ?? 0) & MessageFlag.Ephemeral },
        [],
        true,
      );
      interaction.stage = "deferred";
      break;
    case 6:
      interaction.stage = "deferred-update";
      break;
    case 7:
      message = editMessage(world, sourceMessage(world, interaction), data, ctx.files);
      interaction.stage = "updated";
      break;
    case 8:
      interaction.stage = "autocompleted";
      break;
    case 9:
      interaction.modal = {
        ...data,
        components: withComponentIds(data.components as MessageBody["components"]),
      } as unknown as InteractionRecord["modal"];
      interaction.stage = "modal";
      break;
  }
  interaction.originalMessageId = message?.id ?? (type === 6 ? interaction.sourceMessageId : undefined);
  const withResponse = ctx.query.get("with_response") === "true";
  interaction.callbacks.push({ type, data: body.data, withResponse, at: clock.now(), via });

  // Without with_response Discord answers 204 and no JSON content type: discord.js would parse one.
  if (!withResponse) return noContent;
  return json({
    interaction: {
      id: interaction.id,
      type: interaction.type,
      ...(message
        ? {
            response_message_id: message.id,
            response_message_loading: type === 5,
            response_message_ephemeral: Boolean((message.flags ?? 0) & MessageFlag.Ephemeral),
          }
        : {}),
    },
    ...(message && (type === 4 || type === 7) ? { resource: { type, message } } : {}),
  });
}

export const interactionRoutes: Route[] = [
  {
    method: "POST",
    path: "/interactions/:interaction_id/:interaction_token/callback",
    auth: "none",
    handle: callback,
  },
];
