import type { IncomingMessage, ServerResponse } from "node:http";
import type { SlackState } from "./state.js";

/**
 * Slack's side of an OAuth install: the consent page (GET /oauth/v2/authorize) and a browser that
 * goes through the whole flow against the app.
 *
 * The consent page knows who is signed in from the browser's cookies, as Slack does: `fake-slack-team`
 * names the workspace (its admin approves), `fake-slack-consent=deny` cancels, `fake-slack-org=1`
 * makes an org-wide (Enterprise Grid) install. It answers with a redirect to the app's redirect URL
 * carrying `code` and `state` (or `error=access_denied`).
 */

export const AUTHORIZE_PATH = "/oauth/v2/authorize";

function cookiesOf(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0) jar.set(part.slice(0, at).trim(), decodeURIComponent(part.slice(at + 1).trim()));
  }
  return jar;
}

/** Where the consent page sends the browser, or the error page it shows instead. */
function consent(state: SlackState, req: IncomingMessage): URL | { status: number; error: string } {
  const query = new URL(req.url ?? "/", state.baseUrl).searchParams;
  const app = state.oauthApp;
  if (query.get("client_id") !== app.clientId) return { status: 400, error: "invalid_client_id" };
  const scopes = (query.get("scope") ?? "").split(",").filter(Boolean);
  if (scopes.length === 0) return { status: 400, error: "invalid_scope" };
  const asked = query.get("redirect_uri") ?? undefined;
  const redirect = asked ?? app.redirectUrls[0];
  if (!redirect || !app.redirectUrls.includes(redirect)) return { status: 400, error: "bad_redirect_uri" };
  const cookies = cookiesOf(req);
  const team = state.workspaces.get(cookies.get("fake-slack-team") ?? "");
  if (!team) return { status: 401, error: "not signed in to a workspace" };
  const back = new URL(redirect);
  if (cookies.get("fake-slack-consent") === "deny") {
    back.searchParams.set("error", "access_denied");
  } else {
    const code = `${Date.now()}.${state.secret(8)}`;
    state.grants.set(code, {
      teamId: team.id,
      userId: team.userIds.admin,
      scopes,
      ...(asked !== undefined && { redirectUri: asked }),
      issuedAt: Date.now(),
      used: false,
      orgWide: cookies.get("fake-slack-org") === "1",
    });
    back.searchParams.set("code", code);
  }
  const stateParam = query.get("state");
  if (stateParam !== null) back.searchParams.set("state", stateParam);
  return back;
}

export function handleAuthorize(state: SlackState, req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const answer = consent(state, req);
  if (answer instanceof URL) {
    res.writeHead(302, { location: answer.toString() }).end();
  } else {
    res
      .writeHead(answer.status, { "content-type": "text/html; charset=utf-8" })
      .end(`<h1>Slack</h1><p>${answer.error}</p>`);
  }
}

export interface InstallOptions {
  /** The admin clicks Cancel on the consent page. */
  deny?: boolean;
  /** An org-wide install of an Enterprise Grid. */
  orgWide?: boolean;
  /** The redirect is opened without the cookies the app set (another browser: a forged link). */
  otherBrowser?: boolean;
  /** Replaces the state, in the redirect and in the app's cookie alike (a forged state). */
  forgeState?: (state: string) => string;
}

export interface InstallResult {
  /** The app's answer to the redirect: its success or failure page. */
  status: number;
  body: string;
  /** Where the app sent the browser after the redirect, if it did. */
  location?: string;
}

/**
 * A browser installing the app in `teamId`: GET the app's install URL (which sets its state
 * cookie and sends the browser to Slack), approve on Slack's consent page, then follow Slack's
 * redirect back to the app, cookies and all.
 */
export async function installThroughBrowser(
  installUrl: string,
  teamId: string,
  options: InstallOptions = {},
): Promise<InstallResult> {
  const start = await fetch(installUrl, { redirect: "manual" });
  await start.body?.cancel();
  const toSlack = start.headers.get("location");
  if (start.status !== 302 || !toSlack)
    throw new Error(`fake Slack: the install URL answered ${start.status}, not a redirect to Slack`);
  const appCookies = start.headers.getSetCookie().map((c) => c.split(";", 1)[0]!);

  const slackCookies = [
    `fake-slack-team=${teamId}`,
    ...(options.deny ? ["fake-slack-consent=deny"] : []),
    ...(options.orgWide ? ["fake-slack-org=1"] : []),
  ];
  const consent = await fetch(toSlack, { redirect: "manual", headers: { cookie: slackCookies.join("; ") } });
  const body = await consent.text();
  const back = consent.headers.get("location");
  if (consent.status !== 302 || !back)
    throw new Error(`fake Slack: consent failed: ${consent.status} ${body}`);

  const redirect = new URL(back);
  let cookies = options.otherBrowser ? [] : appCookies;
  const forge = options.forgeState;
  const original = redirect.searchParams.get("state");
  if (forge && original !== null) {
    const forged = forge(original);
    redirect.searchParams.set("state", forged);
    cookies = cookies.map((c) => c.replace(original, forged));
  }
  const answer = await fetch(redirect, {
    redirect: "manual",
    headers: cookies.length > 0 ? { cookie: cookies.join("; ") } : {},
  });
  return {
    status: answer.status,
    body: await answer.text(),
    ...(answer.headers.get("location") && { location: answer.headers.get("location") ?? "" }),
  };
}
