import type { IncomingMessage, ServerResponse } from "node:http";
import { type HTTPReceiverOptions, type Installation, webApi } from "@slack/bolt";
import type { WebClientOptions } from "@slack/web-api";
import { BotError } from "../core/base/errors.js";
import type { Logger } from "../core/base/log.js";
import type { SlackOAuth } from "../core/config/config.js";
import { OrgInstallError, type SlackInstallations } from "./installations.js";

/**
 * Installs in many workspaces with Bolt's own OAuth (its InstallProvider, inside the HTTPReceiver
 * whose request listener the bot's server calls for these two paths): GET /slack/install sets the
 * state cookie and sends the browser to Slack's consent page; Slack sends it back to
 * GET /slack/oauth_redirect, where Bolt checks the state against the cookie and the state
 * secret, trades the code at oauth.v2.access and hands the installation to the store.
 */

export const INSTALL_PATH = "/slack/install";
export const REDIRECT_PATH = "/slack/oauth_redirect";

/** The bot scopes of slack-manifest.json: what each workspace grants at install. */
export const BOT_SCOPES = [
  "commands",
  "chat:write",
  "chat:write.public",
  "channels:join",
  "files:read",
  "files:write",
  "users:read",
  // The user groups a person is in: what a Slack group's budget binds (actors.ts).
  "usergroups:read",
  // Channels' names, for budgets, usage and the export (names.ts).
  "channels:read",
  "groups:read",
  "im:write",
  "app_mentions:read",
  // Read back only after a crash, to find a notice or file Slack took before the bot recorded it.
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
];

/** Slack's consent page sits beside its Web API: https://slack.com/api/ -> https://slack.com/oauth/v2/authorize. */
export function authorizeUrl(apiUrl: string): string {
  return new URL("../oauth/v2/authorize", apiUrl).toString();
}

/** The HTTPReceiver options that turn Bolt's OAuth on. */
export function oauthReceiverOptions(
  oauth: SlackOAuth,
  installations: SlackInstallations,
  apiUrl: string,
  clientOptions: WebClientOptions,
  logger: Logger,
): Partial<HTTPReceiverOptions> {
  return {
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateSecret: oauth.stateSecret,
    scopes: BOT_SCOPES,
    installationStore: installations,
    installerOptions: {
      installPath: INSTALL_PATH,
      redirectUriPath: REDIRECT_PATH,
      // Straight to Slack's consent page: Bolt's own page would only show one "Add to Slack" button.
      directInstall: true,
      authorizationUrl: authorizeUrl(apiUrl),
      // oauth.v2.access and auth.test go where the rest of the Web API goes (SLACK_API_URL).
      clientOptions,
      callbackOptions: { afterInstallation: refuseOrgWide(clientOptions, logger), failure: installFailed },
    },
  };
}

/**
 * The bot's tenants are workspaces, so an org-wide (Enterprise Grid) install is undone before it
 * is stored: its token is revoked, so that the org does not show an app that answers nobody, and
 * the installer is told to install in each workspace.
 */
function refuseOrgWide(clientOptions: WebClientOptions, logger: Logger) {
  return async (
    installation: Installation,
    options: unknown,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<boolean> => {
    if (!installation.isEnterpriseInstall) return true;
    const token = installation.bot?.token;
    if (token) {
      await new webApi.WebClient(token, clientOptions).auth.revoke().catch((error: unknown) => {
        logger.warn({ err: error }, "Slack: could not revoke the token of a refused org-wide install");
      });
    }
    logger.warn({ enterpriseId: installation.enterprise?.id }, "Slack: refused an org-wide install");
    installFailed(new OrgInstallError(), options, req, res);
    return false;
  };
}

/** Bolt's failure codes worth a sentence of their own; anything else is "try again". */
const FAILURES: Record<string, { status: number; text: string }> = {
  slack_oauth_invalid_state: {
    status: 400,
    text: "This install link has expired or was opened in another browser. Start again from the install page.",
  },
  slack_oauth_missing_state: {
    status: 400,
    text: "This install link has no state: start again from the install page.",
  },
  slack_oauth_installer_authorization_error: {
    status: 400,
    text: "The install was cancelled in Slack. Start again from the install page to add the app.",
  },
};

/** The page a failed install ends on: why, in one sentence, never the error's detail. */
function installFailed(
  error: Error & { code: string },
  _options: unknown,
  _req: IncomingMessage,
  res: ServerResponse,
): void {
  const known = FAILURES[error.code];
  const own = error instanceof BotError ? { status: 400, text: error.userMessage } : undefined;
  const { status, text } = own ??
    known ?? { status: 500, text: "Slack did not complete the install. Try again in a minute." };
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
  res.end(
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Install failed</title></head><body><h1>The app was not installed</h1><p>${escapeHtml(text)}</p></body></html>`,
  );
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}
