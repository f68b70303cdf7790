/**
 * Where the bot token may go with a file download: Slack's own file hosts, over https, and the
 * host of SLACK_API_URL (a proxy, or the fake Slack in tests). A `url_private` naming any other
 * host is not followed: the token would go to whoever runs it.
 */
const SLACK_FILE_HOSTS = new Set(["files.slack.com", "files-origin.slack.com", "files.slack-gov.com"]);

export function mayCarryToken(url: string, slackApiUrl: string): boolean {
  if (!URL.canParse(url)) return false;
  const target = new URL(url);
  const api = URL.canParse(slackApiUrl) ? new URL(slackApiUrl) : undefined;
  if (api && target.protocol === api.protocol && target.host === api.host) return true;
  return target.protocol === "https:" && SLACK_FILE_HOSTS.has(target.hostname);
}
