import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BOT_SCOPES, REDIRECT_PATH, SLASH_COMMAND } from "../../src/slack/index.js";

const manifest = JSON.parse(readFileSync(new URL("../../slack-manifest.json", import.meta.url), "utf8"));

describe("slack-manifest.json", () => {
  it("installs the command, interactivity, options and events at the app's one endpoint", () => {
    const urls = [
      manifest.features.slash_commands[0].url,
      manifest.settings.interactivity.request_url,
      manifest.settings.interactivity.message_menu_options_url,
      manifest.settings.event_subscriptions.request_url,
    ];
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([
      SLASH_COMMAND,
    ]);
    for (const url of urls) expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual([
      "app_home_opened",
      "app_mention",
      "app_uninstalled",
      "tokens_revoked",
    ]);
    expect(manifest.features.slash_commands[0].should_escape).toBe(false);
    // The Home tab shows each person's settings panel (views.publish needs no scope).
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
  });

  it("asks for the scopes of every Web API method the adapter calls, and no more", () => {
    // chat.postMessage/update/postEphemeral; public channels without an invite, and joining one
    // to share a result's file there; files.info and url_private; the external upload;
    // users.info (admins); usergroups.list (the user groups budgets bind); mentions of the bot;
    // conversations.open, the DM a private file (Show) goes to;
    // conversations.history/replies, to find a keyed notice or a file Slack took before a crash
    // kept the bot from recording it.
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(
      [
        "app_mentions:read",
        "chat:write",
        "chat:write.public",
        "channels:join",
        "commands",
        "files:read",
        "files:write",
        "im:write",
        "users:read",
        "usergroups:read",
        "channels:history",
        "groups:history",
        "im:history",
        "mpim:history",
      ].sort(),
    );
  });

  it("asks OAuth installs for the same scopes, and sends installers back to the bot's redirect path", () => {
    expect([...BOT_SCOPES].sort()).toEqual([...manifest.oauth_config.scopes.bot].sort());
    expect(manifest.oauth_config.redirect_urls).toEqual([`https://YOUR-PUBLIC-HOST${REDIRECT_PATH}`]);
    // One workspace per install: org-wide installs are refused (see src/slack/installations.ts).
    expect(manifest.settings.org_deploy_enabled).toBe(false);
  });
});
