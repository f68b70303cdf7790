import { type APIMessage, ChannelType, MessageType, PermissionFlagsBits } from "discord-api-types/v10";
import { errors } from "../errors.js";
import { snowflakeTime } from "../ids.js";
import { createMessage, editMessage, type MessageBody } from "../messages.js";
import { MessageFlag, messageRules } from "../rules.js";
import type { ChannelRecord } from "../state.js";
import { assertRules, assertSchema } from "../validate.js";
import { json, noContent, type Reply, type Route, type RouteContext } from "./types.js";

// Discord documents "the past few minutes" for enforce_nonce.
const NONCE_WINDOW_MS = 5 * 60 * 1000;

/** The channel, if the bot may see it: every bot-token route needs View Channel. */
export function channelOf(
  { world, params }: RouteContext,
  needs = PermissionFlagsBits.ViewChannel,
): ChannelRecord {
  const channel = world.channels.get(params.channel_id ?? "");
  if (!channel) throw errors.unknownChannel();
  // A group DM has people only: a user install answers there through its interactions alone.
  if (channel.type === ChannelType.GroupDM) throw errors.missingAccess();
  if (!("guild_id" in channel && channel.guild_id)) return channel;
  if (!world.guild(channel.guild_id).members.has(world.botUser.id)) throw errors.missingAccess();
  const granted = world.channelPermissions(channel, world.botUser.id);
  // Discord hides what the bot cannot see (50001) and refuses what it may see but not do (50013).
  if (!(granted & PermissionFlagsBits.ViewChannel)) throw errors.missingAccess();
  if ((granted & needs) !== needs) throw errors.missingPermissions();
  return channel;
}

/** Ephemeral messages exist only for their interaction's token: the bot token cannot see them. */
function messageOf(ctx: RouteContext): APIMessage {
  const channel = channelOf(ctx, withFiles(ctx, PermissionFlagsBits.ViewChannel));
  const message = ctx.world.messages.get(ctx.params.message_id ?? "");
  if (!message || message.channel_id !== channel.id || (message.flags ?? 0) & MessageFlag.Ephemeral) {
    throw errors.unknownMessage();
  }
  return message;
}

/** Uploading needs Attach Files besides (https://discord.com/developers/docs/topics/permissions). */
const withFiles = (ctx: RouteContext, needs: bigint) =>
  ctx.files.length > 0 ? needs | PermissionFlagsBits.AttachFiles : needs;

function post(ctx: RouteContext): Reply {
  const channel = channelOf(
    ctx,
    withFiles(ctx, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages),
  );
  assertSchema("MessageCreateRequestSchema", ctx.body);
  const body = (ctx.body ?? {}) as MessageBody & { enforce_nonce?: boolean | null };
  assertRules(messageRules(body as Record<string, unknown>, ""));
  const { world, clock } = ctx;
  if (body.enforce_nonce && body.nonce != null) {
    const earlier = [...world.messages.values()].find(
      (m) =>
        m.channel_id === channel.id &&
        m.author.id === world.botUser.id &&
        m.nonce === body.nonce &&
        clock.now() - snowflakeTime(m.id) < NONCE_WINDOW_MS,
    );
    if (earlier) return json(earlier);
  }
  const message = createMessage(world, {
    channelId: channel.id,
    author: world.botUser,
    body: { ...body, flags: (body.flags ?? 0) & ~MessageFlag.Ephemeral },
    files: ctx.files,
    type: body.message_reference ? MessageType.Reply : MessageType.Default,
  });
  return json(message);
}

function list(ctx: RouteContext): Reply {
  const channel = channelOf(ctx);
  const limit = Math.min(100, Math.max(1, Number(ctx.query.get("limit") ?? 50)));
  const before = ctx.query.get("before");
  const after = ctx.query.get("after");
  const visible = [...ctx.world.messages.values()]
    .filter((m) => m.channel_id === channel.id && !((m.flags ?? 0) & MessageFlag.Ephemeral))
    .filter((m) => (!before || BigInt(m.id) < BigInt(before)) && (!after || BigInt(m.id) > BigInt(after)))
    .reverse();
  return json(after && !before ? visible.slice(-limit) : visible.slice(0, limit));
}

function patch(ctx: RouteContext): Reply {
  const message = messageOf(ctx);
  if (message.author.id !== ctx.world.botUser.id) throw errors.otherUsersMessage();
  assertSchema("MessageEditRequestPartialSchema", ctx.body);
  const body = (ctx.body ?? {}) as MessageBody;
  assertRules(messageRules(body as Record<string, unknown>, "", message.flags));
  return json(editMessage(ctx.world, message, body, ctx.files));
}

const base = "/channels/:channel_id/messages";

export const channelRoutes: Route[] = [
  { method: "POST", path: base, auth: "bot", handle: post },
  { method: "GET", path: base, auth: "bot", handle: list },
  { method: "GET", path: `${base}/:message_id`, auth: "bot", handle: (ctx) => json(messageOf(ctx)) },
  { method: "PATCH", path: `${base}/:message_id`, auth: "bot", handle: patch },
  {
    method: "DELETE",
    path: `${base}/:message_id`,
    auth: "bot",
    handle: (ctx) => {
      const message = messageOf(ctx);
      // Anyone else's message needs Manage Messages (https://discord.com/developers/docs/resources/message#delete-message).
      if (message.author.id !== ctx.world.botUser.id) {
        const channel = channelOf(ctx, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ManageMessages);
        if (!("guild_id" in channel && channel.guild_id)) throw errors.missingPermissions();
      }
      ctx.world.messages.delete(message.id);
      return noContent;
    },
  },
];
