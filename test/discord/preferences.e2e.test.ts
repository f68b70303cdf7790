import type { APIMessage, APIUser } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { PRESET_LIMIT } from "../../src/core/preferences/presets.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * Defaults and presets on Discord: a person's default fills what they leave out and the result
 * says so, a result's settings saved with Save as preset come back with `preset:`, an admin's
 * published preset serves everyone, and the limit is told.
 */

let world: DiscordWorld;
discordWorldPerFile((started) => {
  world = started;
});

const person = (user: APIUser) => ({
  platform: "discord" as const,
  tenantId: world.fake.guild.id,
  userId: user.id,
});

/** The recipe's fields of a result, by name. */
const recipe = (message: APIMessage) =>
  Object.fromEntries((message.embeds[0]?.fields ?? []).map((f) => [f.name, f.value]));

async function image(options: Record<string, string | number>, user?: APIUser): Promise<APIMessage> {
  return world.jobMessage(
    await world.command({ name: "image", subcommand: "generate", options, ...(user && { user }) }),
  );
}

describe("defaults and presets on Discord", () => {
  it("fills a left-out option from the person's default and says so in the result", async () => {
    const user = world.fake.addUser("sixteen-nine");
    await world.stores.preferences.update(person(user), () => ({
      defaults: { aspect_ratio: "16:9" },
      presets: [],
    }));
    const before = world.creations("/api/image/generate").length;
    const message = await image({ prompt: "a wide valley" }, user);

    expect(
      world
        .creations("/api/image/generate")
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ prompt: "a wide valley", name: "a wide valley", aspectRatio: "16:9" }]);
    expect(recipe(message)["Aspect ratio"]).toBe("16:9 (your default)");
    // Regenerate repeats the request, and still says where its values came from.
    const again = await world.fake.clickButton(message, world.controlId(message, "regenerate"), user);
    await world.answer(again);
    const regenerated = await world.until(() =>
      world.fake
        .messages()
        .find(
          (m) => m.id !== message.id && m.embeds[0]?.color === 0x57f287 && shown(m).includes("a wide valley"),
        ),
    );
    expect(recipe(regenerated)["Aspect ratio"]).toBe("16:9 (your default)");
    // What the command says itself wins over the default.
    await image({ prompt: "a tall tower", aspect_ratio: "9:16" }, user);
    expect(world.creations("/api/image/generate").at(-1)?.json).toMatchObject({ aspectRatio: "9:16" });
  });

  it("saves a result's settings with Save as preset, and a later command uses them with preset:", async () => {
    const made = await image({ prompt: "a castle", aspect_ratio: "4:3", negative_prompt: "people", seed: 9 });
    const click = await world.fake.clickButton(made, world.controlId(made, "save_preset"));
    const modal = (await world.firstResponse(click)).data as { custom_id: string; title: string };
    expect(modal.title).toBe("Save as preset");
    const submitted = await world.fake.submitModal(modal.custom_id, { name: "Castle look" });
    const saved = await world.answer(submitted);
    expect(isEphemeral(saved)).toBe(true);
    expect(shown(saved)).toContain("Preset Castle look saved");
    expect((await world.stores.preferences.get(person(world.fake.users.requester))).presets).toMatchObject([
      {
        name: "Castle look",
        values: { aspect_ratio: "4:3", negative_prompt: "people" },
        from: "image.generate",
      },
    ]);

    // The preset is offered as you type, then fills what the command leaves out (not the prompt or seed).
    const typed = await world.fake.sendAutocomplete({
      name: "image",
      subcommand: "generate",
      focused: "preset",
      value: "cas",
      options: { prompt: "x" },
    });
    const choices = ((await world.firstResponse(typed)).data as { choices: { value: string }[] }).choices;
    expect(choices.map((c) => c.value)).toEqual(["Castle look"]);

    const before = world.creations("/api/image/generate").length;
    const used = await image({ prompt: "a moat", preset: "castle look" });
    expect(
      world
        .creations("/api/image/generate")
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ prompt: "a moat", name: "a moat", aspectRatio: "4:3", negativePrompt: "people" }]);
    expect(recipe(used)).toMatchObject({
      "Aspect ratio": "4:3 (preset Castle look)",
      "Negative prompt": "people (preset Castle look)",
    });
  });

  it("refuses an unknown preset by name, listing the person's, and spends nothing", async () => {
    const before = world.creations(/./).length;
    const answer = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox", preset: "Nope" },
    });
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain('There is no preset "Nope". Your presets: Castle look.');
    expect(world.creations(/./).length).toBe(before);
  });

  it("lets an admin publish a preset that a member then uses", async () => {
    const { admin, other } = world.fake.users;
    const saved = await world.run({
      name: "preset",
      subcommand: "save",
      options: { name: "House", aspect_ratio: "1:1", negative_prompt: "text" },
      user: admin,
    });
    expect(shown(saved)).toContain("Preset House saved");
    const published = await world.run({
      name: "preset",
      subcommand: "publish",
      options: { name: "house" },
      user: admin,
    });
    expect(shown(published)).toContain("Everyone here can use it now");
    // Publishing is for admins.
    const refused = await world.run({
      name: "preset",
      subcommand: "publish",
      options: { name: "x" },
      user: other,
    });
    expect(shown(refused)).toContain("Only admins can use preset publish.");

    await image({ prompt: "a logo wall", preset: "House" }, other);
    expect(world.creations("/api/image/generate").at(-1)?.json).toEqual({
      prompt: "a logo wall",
      name: "a logo wall",
      aspectRatio: "1:1",
      negativePrompt: "text",
    });
    const list = await world.run({ name: "preset", subcommand: "list", user: other });
    expect(shown(list)).toContain("The server's (1 of 25)");
    expect(shown(list)).toContain("House: aspect ratio 1:1, negative prompt text");
  });

  it("renames and deletes presets; the server's only by admins", async () => {
    const { admin, other } = world.fake.users;
    const preset = (options: Record<string, string>, subcommand: string, user = other) =>
      world.run({ name: "preset", subcommand, options, user }).then(shown);
    expect(await preset({ name: "Mine", aspect_ratio: "16:9" }, "save")).toContain("Preset Mine saved");
    expect(await preset({ name: "mine", new_name: "Wide" }, "rename")).toContain(
      "Preset mine is now called Wide.",
    );
    expect(await preset({ name: "House", new_name: "Hijack", scope: "server" }, "rename")).toContain(
      "Only admins can change the server's presets.",
    );
    expect(await preset({ name: "House", scope: "server" }, "delete", admin)).toContain(
      "Preset House deleted from the server's.",
    );
    expect(await preset({ name: "Wide" }, "delete")).toContain("Preset Wide deleted.");
    const list = await preset({}, "list");
    expect(list).toContain("Yours (0 of 25)");
    expect(list).toContain("The server's (0 of 25)");
  });

  it("lists the preset commands in help, with every other group, within an embed's 25 fields", async () => {
    const help = await world.run({ name: "help" });
    expect(help.embeds[0]?.fields?.length).toBeLessThanOrEqual(25);
    for (const command of [
      "preset save <name>",
      "preset publish <name>",
      "budget",
      "image generate <prompt>",
    ]) {
      expect(shown(help)).toContain(command);
    }
  });

  it(`refuses the ${PRESET_LIMIT + 1}th preset, naming the limit`, async () => {
    const user = world.fake.addUser("collector");
    await world.stores.preferences.update(person(user), () => ({
      defaults: {},
      presets: Array.from({ length: PRESET_LIMIT }, (_, i) => ({
        name: `P${i}`,
        values: { aspect_ratio: "16:9" },
        from: null,
        createdAt: i,
      })),
    }));
    const answer = await world.run({
      name: "preset",
      subcommand: "save",
      options: { name: "One more", aspect_ratio: "1:1" },
      user,
    });
    expect(shown(answer)).toContain("You have 25 presets, the most allowed (25): delete one first.");
    expect((await world.stores.preferences.get(person(user))).presets).toHaveLength(PRESET_LIMIT);
  });

  it("saves a preset with what was typed only: the server's defaults fill commands, not presets", async () => {
    const guild = { platform: "discord" as const, tenantId: world.fake.guild.id };
    await world.stores.tenants.update(guild, { defaults: { aspect_ratio: "3:4" } });
    try {
      const user = world.fake.addUser("typist");
      await world.run({
        name: "preset",
        subcommand: "save",
        options: { name: "Dark", negative_prompt: "light" },
        user,
      });
      expect((await world.stores.preferences.get(person(user))).presets[0]?.values).toEqual({
        negative_prompt: "light",
      });
      const made = await image({ prompt: "a cave", preset: "Dark" }, user);
      expect(recipe(made)).toMatchObject({
        "Aspect ratio": "3:4 (server default)",
        "Negative prompt": "light (preset Dark)",
      });
    } finally {
      await world.stores.tenants.update(guild, { defaults: {} });
    }
  });

  it("makes an avatar video with the person's default avatar, and asks for one without any", async () => {
    const user = world.fake.addUser("presenter");
    const refused = await world.run({ name: "video", subcommand: "avatar", options: { script: "Hi" }, user });
    expect(shown(refused)).toContain("Pick an avatar for the video");

    await world.stores.preferences.update(person(user), () => ({
      defaults: { avatar: "cm2yaz9j10008l0qg9npyjgs3" },
      presets: [],
    }));
    const video = await world.jobMessage(
      await world.command({ name: "video", subcommand: "avatar", options: { script: "Hello there" }, user }),
    );
    expect(world.creations("/api/video/create").at(-1)?.json).toMatchObject({
      avatarId: "cm2yaz9j10008l0qg9npyjgs3",
      text: "Hello there",
    });
    expect(recipe(video).Avatar).toBe("cm2yaz9j10008l0qg9npyjgs3 (your default)");
  });
});
