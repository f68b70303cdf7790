import { fail, isFailure, knownChannel, type Method, missingScope, str } from "./args.js";

/**
 * auth.test, users.info and apps.connections.open: who is calling, who is who, where Socket Mode
 * connects; conversations.join: a bot joins a public channel itself (channels:join), a private one
 * only by invitation; conversations.open: the bot's DM with one person (im:write);
 * conversations.info: a channel's name (channels:read for a public one, groups:read for a private
 * one the bot is in; any other is channel_not_found).
 */
export const workspaceMethods: Record<string, Method> = {
  "auth.test": {
    token: "bot",
    run({ team }) {
      return {
        ok: true,
        url: `https://${team.domain}.slack.com/`,
        team: team.name,
        user: "mediabot",
        team_id: team.id,
        user_id: team.botUserId,
        bot_id: team.botId,
        is_enterprise_install: false,
      };
    },
  },
  "auth.revoke": {
    token: "bot",
    run({ state, team }) {
      state.revokeTokens(team.id);
      return { ok: true, revoked: true };
    },
  },
  "users.info": {
    token: "bot",
    run({ state, args, team }) {
      const user = state.users.get(str(args, "user") ?? "");
      if (!user || user.team_id !== team.id) return fail("user_not_found");
      // Slack leaves the locale out unless asked for it.
      return {
        ok: true,
        user: str(args, "include_locale") === "true" ? user : { ...user, locale: undefined },
      };
    },
  },
  "conversations.info": {
    token: "bot",
    run(ctx) {
      const id = knownChannel(ctx);
      if (isFailure(id)) return id;
      const channel = ctx.state.channels.get(id)!;
      const refused = missingScope(ctx, channel.isPrivate ? "groups:read" : "channels:read");
      if (refused) return refused;
      return {
        ok: true,
        channel: {
          id,
          name: channel.name,
          is_channel: !channel.isPrivate,
          is_group: channel.isPrivate,
          is_im: channel.imUser !== undefined,
          is_private: channel.isPrivate,
          is_member: channel.botIsMember,
        },
      };
    },
  },
  "conversations.join": {
    token: "bot",
    run(ctx) {
      const id = knownChannel(ctx);
      if (isFailure(id)) return id;
      const channel = ctx.state.channels.get(id)!;
      if (channel.isPrivate) return fail("method_not_supported_for_channel_type");
      const already = channel.botIsMember;
      channel.botIsMember = true;
      return {
        ok: true,
        channel: { id, name: channel.name, is_channel: true, is_private: false, is_member: true },
        ...(already && {
          warning: "already_in_channel",
          response_metadata: { warnings: ["already_in_channel"] },
        }),
      };
    },
  },
  "conversations.open": {
    token: "bot",
    run({ state, args, team }) {
      const users = (str(args, "users") ?? "").split(",").filter(Boolean);
      if (users.length === 0) return fail("users_list_not_supplied");
      // Several users make a group DM, which the bot does not use.
      if (users.length > 1) return fail("not_supported");
      if (state.users.get(users[0]!)?.team_id !== team.id) return fail("user_not_found");
      const { channel, already } = state.openIm(users[0]!, team.id);
      return { ok: true, channel: { id: channel.id }, ...(already && { no_op: true, already_open: true }) };
    },
  },
  "apps.connections.open": {
    token: "app",
    run({ state }) {
      const ticket = state.secret();
      state.socketTickets.add(ticket);
      const url = `${state.baseUrl.replace(/^http/, "ws")}/link/?ticket=${ticket}&app_id=${state.appId}`;
      return { ok: true, url };
    },
  },
};
