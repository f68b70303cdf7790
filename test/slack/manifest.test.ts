import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SLASH_COMMAND } from "../../src/slack/index.js";

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
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(["app_mention"]);
    expect(manifest.features.slash_commands[0].should_escape).toBe(false);
  });

  it("asks for the scopes of every Web API method the adapter calls, and no more", () => {
    // chat.postMessage/update/postEphemeral; public channels without an invite, and joining one
    // to share a result's file there; files.info and url_private; the external upload;
    // users.info (admins); mentions of the bot; conversations.history/replies, to find a keyed
    // notice Slack took before a crash kept the bot from recording it.
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(
      [
        "app_mentions:read",
        "chat:write",
        "chat:write.public",
        "channels:join",
        "commands",
        "files:read",
        "files:write",
        "users:read",
        "channels:history",
        "groups:history",
        "im:history",
        "mpim:history",
      ].sort(),
    );
  });
});
