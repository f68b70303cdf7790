import { ApplicationFlags } from "discord-api-types/v10";
import { errors } from "../errors.js";
import { assertSchema } from "../validate.js";
import { json, type Route } from "./types.js";

export interface GatewayAdvice {
  /** The shard count Discord recommends for the bot's guilds. */
  shards: number;
  /** How many shards may IDENTIFY at once. */
  maxConcurrency: number;
}

/** Hands discord.js the fake's own gateway; a gateway URL of the real Discord would leak the test. */
export const appRoutes = (advice: GatewayAdvice): Route[] => [
  {
    method: "GET",
    path: "/gateway/bot",
    auth: "bot",
    handle: ({ gatewayUrl }) =>
      json({
        url: gatewayUrl,
        shards: advice.shards,
        session_start_limit: {
          total: 1000,
          remaining: 999,
          reset_after: 86_400_000,
          max_concurrency: advice.maxConcurrency,
        },
      }),
  },
  { method: "GET", path: "/gateway", auth: "none", handle: ({ gatewayUrl }) => json({ url: gatewayUrl }) },
  { method: "GET", path: "/users/@me", auth: "bot", handle: ({ world }) => json(world.botUser) },
  {
    // The bot's DM with a user: the same channel every time, as on Discord.
    method: "POST",
    path: "/users/@me/channels",
    auth: "bot",
    handle: ({ world, body }) => {
      assertSchema("CreatePrivateChannelRequestSchema", body);
      const userId = String((body as { recipient_id?: unknown }).recipient_id);
      if (!world.users.has(userId)) throw errors.unknownUser();
      return json(world.dmChannel(userId));
    },
  },
  {
    method: "GET",
    path: "/applications/@me",
    auth: "bot",
    handle: ({ world }) =>
      json({
        id: world.applicationId,
        name: world.botUser.username,
        icon: null,
        description: "",
        summary: "",
        type: null,
        bot: world.botUser,
        bot_public: false,
        bot_require_code_grant: false,
        verify_key: world.verifyKey,
        flags: ApplicationFlags.GatewayGuildMembersLimited | ApplicationFlags.ApplicationCommandBadge,
        team: null,
        approximate_guild_count: world.guilds.size,
      }),
  },
];
