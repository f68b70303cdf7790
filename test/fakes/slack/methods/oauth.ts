import { GRANT_TTL_MS } from "../state.js";
import { fail, type Method, str } from "./args.js";

/**
 * oauth.v2.access: the app trades the code of an install (see ../oauth.ts) for the workspace's bot
 * token, proving itself with its client id and secret. A code works once, for 10 minutes, and
 * with the redirect_uri it was issued for, if one was named.
 */
export const oauthMethods: Record<string, Method> = {
  "oauth.v2.access": {
    token: "none",
    run({ state, args }) {
      const app = state.oauthApp;
      if (str(args, "client_id") !== app.clientId) return fail("invalid_client_id");
      if (str(args, "client_secret") !== app.clientSecret) return fail("bad_client_secret");
      const grant = state.grants.get(str(args, "code") ?? "");
      if (!grant || grant.used || Date.now() - grant.issuedAt > GRANT_TTL_MS) return fail("invalid_code");
      if (grant.redirectUri !== undefined && str(args, "redirect_uri") !== grant.redirectUri)
        return fail("bad_redirect_uri");
      grant.used = true;
      const team = state.workspace(grant.teamId);
      const access_token = state.installApp(team.id);
      const shared = {
        ok: true as const,
        app_id: state.appId,
        authed_user: { id: grant.userId },
        scope: grant.scopes.join(","),
        token_type: "bot",
        access_token,
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
