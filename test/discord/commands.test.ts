import { ApplicationCommandUpdateRequestSchema } from "discord-api-spec/zod";
import { ApplicationCommandOptionType as Opt } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { COMMANDS, commandByName } from "../../src/core/commands/catalogue.js";
import {
  applicationCommands,
  type CommandJson,
  definitionsHash,
  fileOptionBase,
  registeredCommands,
} from "../../src/discord/commands.js";
import { DISCORD_LIMITS } from "../../src/discord/limits.js";
import { commandListRules } from "../fakes/discord/rules.js";
import { checkSchema } from "../fakes/discord/validate.js";

const commands = applicationCommands();

/** The options of `/group sub` (or of `/name`). */
function optionsOf(group: string, sub?: string) {
  const top = commands.find((c) => c.name === group)!;
  const level = sub ? top.options!.find((o) => o.name === sub) : top;
  return ((level as { options?: unknown[] })?.options ?? []) as {
    name: string;
    type: Opt;
    required?: boolean;
    autocomplete?: boolean;
    choices?: { name: string; value: string }[];
    min_value?: number;
    max_value?: number;
    max_length?: number;
  }[];
}

/** Discord's own count: names, descriptions, choice names and values, of the command and all its options. */
function chars(node: {
  name?: string;
  description?: string;
  options?: unknown[];
  choices?: unknown[];
}): number {
  const choices = (node.choices ?? []) as { name: string; value: unknown }[];
  return (
    (node.name?.length ?? 0) +
    (node.description?.length ?? 0) +
    choices.reduce((n, c) => n + c.name.length + String(c.value).length, 0) +
    ((node.options ?? []) as CommandJson[]).reduce((n, o) => n + chars(o), 0)
  );
}

describe("application commands from the catalogue", () => {
  it("registers every catalogue command: one top-level command per group, subcommands inside", () => {
    const registered = commands.flatMap((c) => {
      const subs = (c.options ?? []).filter((o) => o.type === Opt.Subcommand);
      return subs.length ? subs.map((s) => `${c.name}.${s.name}`) : [c.name];
    });
    expect(registered.sort()).toEqual(COMMANDS.map((c) => c.name).sort());
    expect(commands.map((c) => c.name)).toEqual(
      expect.arrayContaining(["image", "video", "photo_avatar", "mockup", "thumbnail", "usage", "setup"]),
    );
  });

  it("gives Discord bodies it accepts, within 8000 characters and 25 options each", () => {
    for (const [i, command] of commands.entries()) {
      const asSent = { ...command, default_member_permissions: command.default_member_permissions && 32 };
      expect(checkSchema(ApplicationCommandUpdateRequestSchema, asSent, [i])).toEqual([]);
      expect(chars(command), command.name).toBeLessThanOrEqual(DISCORD_LIMITS.commandChars);
      expect(command.options?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.commandOptions);
      for (const option of command.options ?? []) {
        const nested = (option as { options?: unknown[] }).options?.length ?? 0;
        expect(nested).toBeLessThanOrEqual(DISCORD_LIMITS.commandOptions);
      }
    }
    expect(commandListRules(commands as unknown as Record<string, unknown>[])).toEqual([]);
  });

  it("types options from the zod schemas: integers with bounds, enums as choices, pickers as autocomplete", () => {
    const generate = optionsOf("image", "generate");
    expect(generate[0]).toMatchObject({ name: "prompt", type: Opt.String, required: true, max_length: 2000 });
    expect(generate.find((o) => o.name === "seed")).toMatchObject({
      type: Opt.Integer,
      min_value: 0,
      max_value: 2_147_483_647,
    });
    expect(generate.find((o) => o.name === "aspect_ratio")?.choices?.map((c) => c.value)).toEqual([
      "1:1",
      "16:9",
      "9:16",
      "4:3",
      "3:4",
    ]);
    const avatar = optionsOf("video", "avatar");
    // A default avatar can fill it, so Discord must let it be left out.
    expect(avatar.find((o) => o.name === "avatar")).toMatchObject({ autocomplete: true, required: false });
    expect(avatar.find((o) => o.name === "preset")).toMatchObject({ autocomplete: true, required: false });
    expect(avatar.find((o) => o.name === "voice")).toMatchObject({ autocomplete: true });
    expect(avatar.find((o) => o.name === "full_body")).toMatchObject({ type: Opt.Boolean });
    expect(avatar.find((o) => o.name === "audio")).toMatchObject({ type: Opt.Attachment, required: false });
    expect(optionsOf("mockup", "video").find((o) => o.name === "mockup")).toMatchObject({
      autocomplete: true,
    });
    expect(optionsOf("mockup", "video").find((o) => o.name === "style")?.choices).toHaveLength(9);
  });

  it("turns a file option taking several files into numbered attachment options", () => {
    const edit = optionsOf("image", "edit");
    expect(edit.filter((o) => o.type === Opt.Attachment).map((o) => [o.name, o.required ?? false])).toEqual([
      ["image", true],
      ["image_2", false],
      ["image_3", false],
      ["image_4", false],
    ]);
    const imageEdit = commandByName("image.edit")!;
    expect(fileOptionBase(imageEdit, "image_3")).toBe("image");
    expect(fileOptionBase(imageEdit, "image_5")).toBe("image_5");
    expect(fileOptionBase(imageEdit, "prompt")).toBe("prompt");
  });

  it("hides setup and budget from non-admins and never offers the API key as a text option", () => {
    const setup = commands.find((c) => c.name === "setup")!;
    expect(setup.default_member_permissions).toBe("32");
    expect(optionsOf("setup").find((o) => o.name === "api_key")).toMatchObject({ type: Opt.Boolean });
    expect(commands.filter((c) => c.default_member_permissions).map((c) => c.name)).toEqual([
      "setup",
      "budget",
    ]);
  });

  it("leaves the photo-avatar traits to the modal", () => {
    expect(optionsOf("photo_avatar", "design").map((o) => o.name)).toEqual([
      "name",
      "portrait",
      "delivery",
      "preset",
      "voice",
    ]);
  });

  it("offers every command to user installs everywhere, setup in servers and the DM, budget in servers only", () => {
    const reach = (c: { integration_types?: unknown; contexts?: unknown }) =>
      JSON.stringify([c.integration_types, c.contexts]);
    const everywhere = JSON.stringify([
      [0, 1],
      [0, 1, 2],
    ]);
    const byName = Object.fromEntries(registeredCommands().map((c) => [c.name, reach(c)]));
    expect(byName).toMatchObject({
      image: everywhere,
      preset: everywhere,
      "Edit image": everywhere,
      setup: JSON.stringify([
        [0, 1],
        [0, 1],
      ]),
      budget: JSON.stringify([[0], [0]]),
    });
    const others = Object.entries(byName).filter(([name]) => name !== "setup" && name !== "budget");
    expect(others.every(([, r]) => r === everywhere)).toBe(true);
  });

  it("hashes the definitions: the same catalogue gives the same hash, a change another", () => {
    expect(definitionsHash(applicationCommands())).toBe(definitionsHash(commands));
    const changed = commands.map((c) => (c.name === "usage" ? { ...c, description: "Changed" } : c));
    expect(definitionsHash(changed)).not.toBe(definitionsHash(commands));
  });
});
