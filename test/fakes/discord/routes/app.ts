import { ApplicationFlags } from "discord-api-types/v10";
import { json, type Route } from "./types.js";

/** Hands discord.js the fake's own gateway; a gateway URL of the real Discord would leak the test. */
export const appRoutes: Route[] = [
  {
    method: "GET",
    path: "/gateway/bot",
    auth: "bot",
    handle: ({ gatewayUrl }) =>
      json({
        url: gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
      }),
  },
  { method: "GET", path: "/gateway", auth: "none", handle: ({ gatewayUrl }) => json({ url: gatewayUrl }) },
  { method: "GET", path: "/users/@me", auth: "bot", handle: ({ world }) => json(world.botUser) },
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
