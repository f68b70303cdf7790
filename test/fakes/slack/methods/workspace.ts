import { fail, isFailure, knownChannel, type Method, str } from "./args.js";

/**
 * auth.test, users.info and apps.connections.open: who is calling, who is who, where Socket Mode
 * connects; conversations.join: a bot joins a public channel itself (channels:join), a private one
 * only by invitation; conversations.open: the bot's DM with one person (im:write).
 */
export const workspaceMethods: Record<string, Method> = {
  "auth.test": {
    token: "bot",
    run({ state }) {
      return {
        ok: true,
        url: `https://${state.teamDomain}.slack.com/`,
        team: "Media Bot Fake Workspace",
        user: "mediabot",
        team_id: state.teamId,
        user_id: state.botUserId,
        bot_id: state.botId,
        is_enterprise_install: false,
      };
    },
  },
  "users.info": {
    token: "bot",
    run({ state, args }) {
      const user = state.users.get(str(args, "user") ?? "");
      return user ? { ok: true, user } : fail("user_not_found");
    },
  },
  "conversations.join": {
    token: "bot",
    run({ state, args }) {
      const id = knownChannel(state, args);
      if (isFailure(id)) return id;
      const channel = state.channels.get(id)!;
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
    run({ state, args }) {
      const users = (str(args, "users") ?? "").split(",").filter(Boolean);
      if (users.length === 0) return fail("users_list_not_supplied");
      // Several users make a group DM, which the bot does not use.
      if (users.length > 1) return fail("not_supported");
      if (!state.users.has(users[0]!)) return fail("user_not_found");
      const { channel, already } = state.openIm(users[0]!);
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
