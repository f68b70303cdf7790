import { StartupError } from "../core/config/startup.js";

/** Slack's answers that mean the token itself is wrong, not that Slack is down. */
const REFUSED = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "not_allowed_token_type",
]);

const WHAT = {
  SLACK_BOT_TOKEN: "the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page",
  SLACK_APP_TOKEN:
    "an app-level token (xapp-...) with the connections:write scope, from the app's Basic Information page",
} as const;

/** Why Slack refused to start, as the operator's one line. */
export function slackFailure(error: unknown, variable: keyof typeof WHAT, apiUrl: string): StartupError {
  const said = (error as { data?: { error?: unknown } } | null)?.data?.error;
  if (typeof said === "string" && REFUSED.has(said)) {
    return new StartupError(`${variable} was refused by Slack (${said}). Set it to ${WHAT[variable]}.`, {
      cause: error,
    });
  }
  const code = (error as { code?: unknown } | null)?.code;
  const system = systemCode(error);
  const reason = system
    ? `nothing answers there (${system})`
    : error instanceof Error
      ? error.message
      : String(error);
  if (code === "EADDRINUSE" || code === "EACCES") {
    return new StartupError(`SLACK_PORT cannot be listened on: ${reason}.`, { cause: error });
  }
  return new StartupError(`Slack at ${apiUrl} (SLACK_API_URL) could not be used: ${reason}.`, {
    cause: error,
  });
}

/**
 * The socket's own error code under the Web API client's wrapping (its `original`, then fetch's
 * `cause`): "fetch failed" alone would not say that nothing listens at SLACK_API_URL.
 */
function systemCode(error: unknown): string | undefined {
  let at: unknown = (error as { original?: unknown } | null)?.original ?? error;
  for (let depth = 0; depth < 4 && at instanceof Error; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code) && code !== "EADDRINUSE" && code !== "EACCES")
      return code;
    at = at.cause;
  }
  return undefined;
}
