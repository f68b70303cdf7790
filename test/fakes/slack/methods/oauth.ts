import { GRANT_TTL_MS, type SlackState } from "../state.js";
import { type Args, fail, type Method, type Result, str } from "./args.js";

/** What an access token's answer says of it: with rotation, its refresh token and lifetime. */
function issued({ token, refreshToken, expiresInS }: ReturnType<SlackState["issueBotToken"]>) {
  return {
    access_token: token,
    ...(refreshToken && { refresh_token: refreshToken, expires_in: expiresInS }),
  };
}

/**
 * With token rotation: a refresh token traded once for the workspace's next access token and
 * the next refresh token (https://docs.slack.dev/authentication/using-token-rotation).
 */
function refreshed(state: SlackState, args: Args): Result {
  const rotation = state.oauthApp.rotation;
  const entry = rotation?.refreshTokens.get(str(args, "refresh_token") ?? "");
  if (!rotation || !entry || entry.used) return fail("invalid_refresh_token");
  const team = state.workspace(entry.teamId);
  if (!state.botTokenOf(team.id)) return fail("invalid_refresh_token");
  entry.used = true;
  return {
    ok: true,
    app_id: state.appId,
    scope: "",
    token_type: "bot",
    ...issued(state.issueBotToken(team.id)),
    bot_user_id: team.botUserId,
    team: { id: team.id, name: team.name },
    enterprise: null,
    is_enterprise_install: false,
  };
}

/**
 * oauth.v2.access: the app trades the code of an install (see ../oauth.ts) for the workspace's bot
 * token, proving itself with its client id and secret. A code works once, for 10 minutes, and
 * with the redirect_uri it was issued for, if one was named. With grant_type=refresh_token, a
 * refresh token instead (token rotation).
 */
export const oauthMethods: Record<string, Method> = {
  "oauth.v2.access": {
    token: "none",
    run({ state, args }) {
      const app = state.oauthApp;
      if (str(args, "client_id") !== app.clientId) return fail("invalid_client_id");
      if (str(args, "client_secret") !== app.clientSecret) return fail("bad_client_secret");
      const grantType = str(args, "grant_type") ?? "authorization_code";
      if (grantType === "refresh_token") return refreshed(state, args);
      if (grantType !== "authorization_code") return fail("invalid_grant_type");
      const grant = state.grants.get(str(args, "code") ?? "");
      if (!grant || grant.used || Date.now() - grant.issuedAt > GRANT_TTL_MS) return fail("invalid_code");
      if (grant.redirectUri !== undefined && str(args, "redirect_uri") !== grant.redirectUri)
        return fail("bad_redirect_uri");
      grant.used = true;
      const team = state.workspace(grant.teamId);
      const shared = {
        ok: true as const,
        app_id: state.appId,
        authed_user: { id: grant.userId },
        scope: grant.scopes.join(","),
        token_type: "bot",
        ...issued(state.installApp(team.id)),
        bot_user_id: team.botUserId,
      };
      return grant.orgWide
        ? {
            ...shared,
            team: null,
            enterprise: { id: `E0${team.id.slice(2)}`, name: `${team.name} Org` },
            is_enterprise_install: true,
          }
        : {
            ...shared,
            team: { id: team.id, name: team.name },
            enterprise: null,
            is_enterprise_install: false,
          };
    },
  },
};
