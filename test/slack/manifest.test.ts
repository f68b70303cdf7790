import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commandByName } from "../../src/core/commands/catalogue.js";
import { BOT_SCOPES, REDIRECT_PATH, SLASH_COMMAND } from "../../src/slack/index.js";
import { manifestFunctions, STEPS, stepInputs } from "../../src/slack/steps.js";

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), "utf8"));
const manifest = read("slack-manifest.json");
const publicManifest = read("slack-manifest.public.json");

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
      "user_change",
    ]);
    // Mentions arrive as Slack's escapes (<@U…>, <!subteam^S…>, <#C…>), which budgets take.
    expect(manifest.features.slash_commands[0].should_escape).toBe(true);
    expect(publicManifest.features.slash_commands[0].should_escape).toBe(true);
    // The Home tab shows each person's settings panel (views.publish needs no scope).
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
  });

  it("asks for the scopes of every Web API method the adapter calls, and no more", () => {
    // chat.postMessage/update/postEphemeral; public channels without an invite, and joining one
    // to share a result's file there; files.info and url_private; the external upload;
    // users.info (admins, people's names); usergroups.list (the user groups budgets bind);
    // conversations.info (channels' names, public and private); mentions of the bot;
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
        "channels:read",
        "groups:read",
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
    // One workspace per install: org-wide installs are refused (see src/slack/installations.ts),
    // though the manifest with workflow steps must be org-ready (Slack's rule for custom steps).
    expect(publicManifest.settings.org_deploy_enabled).toBe(false);
  });
});

describe("the workflow steps in slack-manifest.json", () => {
  it("declares each step as the code defines it, run by the app itself (remote), org-ready", () => {
    expect(manifest.functions).toEqual(manifestFunctions());
    expect(Object.keys(manifest.functions)).toEqual([
      "generate_image",
      "edit_image",
      "make_thumbnail",
      "make_avatar_video",
      "make_cinematic_video",
    ]);
    expect(manifest.settings.function_runtime).toBe("remote");
    expect(manifest.settings.org_deploy_enabled).toBe(true);
  });

  it("names only options and file options its command has, and offers every required one of them", () => {
    for (const step of STEPS) {
      const command = commandByName(step.command);
      expect(command, step.command).toBeDefined();
      const shape = (command!.options as unknown as { shape: Record<string, unknown> }).shape;
      for (const option of Object.keys(step.options))
        expect(Object.keys(shape), step.callbackId).toContain(option);
      for (const file of Object.keys(step.files))
        expect(Object.keys(command!.files ?? {}), step.callbackId).toContain(file);
      // A required file may come as a file or as a link, so neither input is required on its own.
      for (const [file, spec] of Object.entries(command!.files ?? {})) {
        if (!spec.required) continue;
        expect(step.files[file], `${step.callbackId} ${file}`).toBeDefined();
        expect(stepInputs(step)[`${file}_url`]?.type, `${step.callbackId} ${file}_url`).toBe("string");
      }
    }
  });

  it("slack-manifest.public.json, for public distribution, is the same app without the steps", () => {
    const { functions: _functions, ...rest } = manifest;
    const { function_runtime: _runtime, ...settings } = manifest.settings;
    expect(publicManifest).toEqual({ ...rest, settings: { ...settings, org_deploy_enabled: false } });
  });
});
