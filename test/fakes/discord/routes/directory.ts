import { errors } from "../errors.js";
import type { GuildRecord } from "../state.js";
import { channelOf } from "./channels.js";
import { json, type Route, type RouteContext } from "./types.js";

/**
 * Who people, roles and channels are, as the bot token reads them: a guild's roles and one of its
 * members (only in a guild the bot is in: 10004 Unknown Guild where it is not, as Discord hides
 * guilds from a bot outside them; 10007 for someone who is not a member), a user (10013), and a
 * channel the bot may see (the message routes' rules).
 */

function guildOf({ world, params }: RouteContext): GuildRecord {
  const guild = world.guilds.get(params.guild_id ?? "");
  if (!guild?.members.has(world.botUser.id)) throw errors.unknownGuild();
  return guild!;
}

export const directoryRoutes: Route[] = [
  {
    method: "GET",
    path: "/guilds/:guild_id/roles",
    auth: "bot",
    handle: (ctx) => json(guildOf(ctx).roles),
  },
  {
    method: "GET",
    path: "/guilds/:guild_id/members/:user_id",
    auth: "bot",
    handle: (ctx) => {
      const guild = guildOf(ctx);
      const userId = ctx.params.user_id ?? "";
      if (!guild.members.has(userId)) throw errors.unknownMember();
      return json(ctx.world.member(guild.id, userId));
    },
  },
  {
    method: "GET",
    path: "/users/:user_id",
    auth: "bot",
    handle: ({ world, params }) => {
      const user = world.users.get(params.user_id ?? "");
      if (!user) throw errors.unknownUser();
      return json(user);
    },
  },
  {
    method: "GET",
    path: "/channels/:channel_id",
    auth: "bot",
    handle: (ctx) => json(channelOf(ctx)),
  },
];
