import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { actor, admin, Harness, text } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("setup and tenancy", () => {
  it("an admin stores the tenant's key: encrypted at rest, never echoed, used for later calls", async () => {
    h = await Harness.start({ apiKeyTenants: ["guild-1", "guild-2"] });
    await h.command("setup", { api_key: "other-key", default_aspect_ratio: "16:9" }, { actor: admin() });
    const saved = h.chat.lastPost();
    expect(saved.options.ephemeral).toBe(true);
    expect(h.chat.lastCard().title).toBe("Settings saved");
    expect(text(h.chat.lastCard())).toContain("API key: This server's own key (stored encrypted)");
    expect(JSON.stringify(h.chat.posts)).not.toContain("other-key");

    // The key was checked with a read before it was kept, then every call of the tenant uses it.
    await h.command("usage");
    expect(text(h.chat.lastCard())).toContain("Plan: free");
    expect(h.emu.callsTo("GET", "/api/usage").at(-1)?.apiKey).toBe("other-key");

    // The tenant default applies: images are 16:9 unless the command says otherwise.
    await h.startJob("image.generate", { prompt: "a fox" });
    expect(h.creations("/api/image/generate").at(-1)?.json).toMatchObject({ aspectRatio: "16:9" });
    expect(h.creations("/api/image/generate").at(-1)?.apiKey).toBe("other-key");

    // Another tenant is untouched.
    await h.command("usage", {}, { actor: actor({ tenantId: "guild-2" }) });
    expect(text(h.chat.lastCard())).toContain("Plan: pro");

    await h.shutdown();
    // The database and its write-ahead log, whatever is left of it.
    const files = readdirSync(h.dir).filter((name) => name.startsWith("bot.sqlite"));
    expect(files).toContain("bot.sqlite");
    for (const name of files)
      expect(readFileSync(join(h.dir, name)).toString("latin1")).not.toContain("other-key");
    await h.restart();
  });

  it("a key the service rejects is not saved", async () => {
    h = await Harness.start();
    await h.command("setup", { api_key: "wrong-key" }, { actor: admin() });
    expect(h.lastEphemeral().lines[0]).toMatch(/did not accept that API key\. Nothing was saved/);
    await h.command("usage");
    expect(h.emu.callsTo("GET", "/api/usage").at(-1)?.apiKey).toBe("test-key");
  });

  it("non-admins are refused", async () => {
    h = await Harness.start();
    await h.command("setup", { api_key: "other-key" });
    expect(h.lastEphemeral()).toMatchObject({ title: "Not allowed", lines: ["Only admins can use setup."] });
    expect(h.emu.calls).toEqual([]);
  });

  it("without a tenant key and without MEDIA_API_KEY, commands say an admin must run setup", async () => {
    h = await Harness.start({ fallbackKey: null });
    await h.command("image.generate", { prompt: "a fox" });
    expect(h.lastEphemeral()).toMatchObject({ title: "Setup needed" });
    expect(h.lastEphemeral().lines[0]).toMatch(/an admin must run the setup command/);
    expect(h.emu.calls).toEqual([]);
    // Commands that need no key still work.
    await h.command("help");
    expect(h.chat.lastCard().title).toBe("Help: media bot commands");
  });

  it("allowed channels and roles restrict everyone but admins", async () => {
    h = await Harness.start();
    await h.command(
      "setup",
      { allowed_channels: "<#channel-9>", allowed_roles: "<@&role-1>, role-2" },
      { actor: admin() },
    );
    expect(text(h.chat.lastCard())).toContain("Allowed channels: channel-9");
    expect(text(h.chat.lastCard())).toContain("Allowed roles: role-1, role-2");

    await h.command("usage");
    expect(h.lastEphemeral().lines[0]).toMatch(/not enabled in this channel/);
    const inChannel = { platform: "discord" as const, channelId: "channel-9" };
    await h.command("usage", {}, { conversation: inChannel });
    expect(h.lastEphemeral().lines[0]).toMatch(/do not have a role/);
    await h.command("usage", {}, { conversation: inChannel, actor: actor({ roleIds: ["role-2"] }) });
    expect(h.chat.lastCard().title).toBe("Media service usage");
    await h.command("usage", {}, { actor: admin() });
    expect(h.chat.lastCard().title).toBe("Media service usage");
  });

  it("people named in admins act as admins: setup and past the allow-lists", async () => {
    h = await Harness.start();
    await h.command(
      "setup",
      { admins: "<@U042|ann>, user-1", allowed_channels: "channel-9" },
      { actor: admin() },
    );
    expect(text(h.chat.lastCard())).toContain("Extra admins: U042, user-1");
    await h.command("usage");
    expect(h.chat.lastCard().title).toBe("Media service usage");
    await h.command("setup", { default_aspect_ratio: "16:9" });
    expect(h.chat.lastCard()).toMatchObject({ title: "Settings saved" });
    await h.command("setup", { admins: "none" }, { actor: admin() });
    await h.command("usage");
    expect(h.lastEphemeral().lines[0]).toMatch(/not enabled in this channel/);
  });

  it("setup without options shows the current settings", async () => {
    h = await Harness.start();
    await h.command("setup", {}, { actor: admin() });
    expect(h.chat.lastCard()).toMatchObject({ title: "Current settings" });
    expect(text(h.chat.lastCard())).toContain("API key: The bot's default key");
  });
});
