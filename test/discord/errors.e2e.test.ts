import { Routes } from "discord.js";
import { describe, expect, it } from "vitest";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * What goes wrong, said privately and clearly: bad options and files (checked before anything
 * is created), the service refusing the key or the credits, setup's key entered in a modal,
 * commands hidden where they do not apply, and controls or forms the bot no longer knows.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

/** Nothing was created at the service, and nothing public stayed in the channel. */
function nothingCreated() {
  expect(world.emu.calls.filter((c) => c.method === "POST")).toEqual([]);
  expect(world.fake.messages().filter((m) => !isEphemeral(m))).toEqual([]);
}

describe("invalid input", () => {
  it("answers privately and creates nothing: blank prompt, wrong file type, unknown avatar", async () => {
    const blank = await world.run({ name: "image", subcommand: "generate", options: { prompt: "   " } });
    expect(isEphemeral(blank)).toBe(true);
    expect(shown(blank)).toContain("Check the command");
    expect(shown(blank)).toContain("prompt is required");

    const text = await world.run({
      name: "image",
      subcommand: "edit",
      options: { prompt: "snow" },
      attachments: [{ option: "image", name: "notes.txt", contentType: "text/plain", data: "hello" }],
    });
    expect(isEphemeral(text)).toBe(true);
    expect(shown(text)).toContain('"notes.txt" is not a file image accepts');

    const avatar = await world.run({
      name: "video",
      subcommand: "avatar",
      options: { avatar: "nobody", script: "Hi" },
    });
    expect(isEphemeral(avatar)).toBe(true);
    expect(shown(avatar)).toContain('There is no avatar "nobody"');
    nothingCreated();
  });
});

describe("the service refuses", () => {
  it("says the API key was not accepted when the service answers 401", async () => {
    world.emu.inject({
      method: "POST",
      path: "/api/image/generate",
      status: 401,
      body: { error: "Invalid API key" },
    });
    const answer = await world.run({ name: "image", subcommand: "generate", options: { prompt: "a fox" } });
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain("API key not accepted");
    expect(world.fake.messages().filter((m) => !isEphemeral(m))).toEqual([]);
  });

  it("says the credits ran out, with the account's figures", async () => {
    const account = world.emu.account("test-key");
    const limit = account.creditsLimit;
    account.creditsUsed = limit;
    try {
      const answer = await world.run({
        name: "mockup",
        subcommand: "asset",
        options: { prompt: "logo", type: "logo" },
      });
      expect(isEphemeral(answer)).toBe(true);
      expect(shown(answer)).toContain("Out of credits or over the plan limit");
      expect(shown(answer)).toContain("Credits left");
    } finally {
      account.creditsUsed = 0;
    }
  });
});

describe("setup", () => {
  it("is hidden from members without Manage Guild", async () => {
    await expect(world.command({ name: "setup" })).rejects.toThrow(/hidden from user/);
  });

  it("takes the API key in a private modal, checks it with the service, and never shows it", async () => {
    const open = async () => {
      const command = await world.command({
        name: "setup",
        options: { api_key: true },
        user: world.fake.users.admin,
      });
      const modal = await world.firstResponse(command);
      expect(modal.type).toBe(9);
      return (modal.data as { custom_id: string }).custom_id;
    };

    const wrong = await world.answer(await world.fake.submitModal(await open(), { api_key: "not-a-key" }));
    expect(isEphemeral(wrong)).toBe(true);
    expect(shown(wrong)).toContain("did not accept that API key. Nothing was saved");

    const saved = await world.answer(await world.fake.submitModal(await open(), { api_key: "other-key" }));
    expect(isEphemeral(saved)).toBe(true);
    expect(shown(saved)).toContain("Settings saved");
    expect(shown(saved)).toContain("This server's own key");
    const sent = JSON.stringify(world.fake.calls.map((c) => c.json));
    expect(sent).not.toContain("other-key");

    const usage = await world.run({ name: "usage" });
    expect(shown(usage)).toContain("free");
  });
});

describe("controls and forms the bot no longer knows", () => {
  it("answers a click on a control of an older format privately", async () => {
    const old = (await world.discord.client.rest.post(Routes.channelMessages(world.fake.channel.id), {
      body: {
        content: "An old job",
        components: [
          { type: 1, components: [{ type: 2, style: 1, label: "Keep 1", custom_id: "mb0:keep:1" }] },
        ],
      },
    })) as { id: string };
    const click = await world.fake.clickButton(old.id, "mb0:keep:1");
    const answer = await world.until(() => world.fake.followups(click.id)[0]);
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain("older version of the bot");
  });

  it("runs a form opened before a restart: the form waited in the store, not in the process", async () => {
    const command = await world.command({
      name: "photo_avatar",
      subcommand: "design",
      options: { name: "Kept" },
    });
    const customId = ((await world.firstResponse(command)).data as { custom_id: string }).custom_id;
    await world.restart();
    await world.answer(await world.fake.submitModal(customId, { gender: "male" }));
    expect(world.creations("/api/avatar/design/create")).toHaveLength(1);
  });

  it("asks to run the command again when its modal stayed open more than 15 minutes", async () => {
    const before = world.creations("/api/avatar/design/create").length;
    const command = await world.command({
      name: "photo_avatar",
      subcommand: "design",
      options: { name: "Late" },
    });
    const customId = ((await world.firstResponse(command)).data as { custom_id: string }).custom_id;
    world.fake.clock.advance(15 * 60_000 + 1_000);
    const answer = await world.answer(await world.fake.submitModal(customId, { gender: "male" }));
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain("Run the command again");
    expect(world.creations("/api/avatar/design/create")).toHaveLength(before);
  });
});
