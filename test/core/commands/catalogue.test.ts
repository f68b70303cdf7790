import { describe, expect, it } from "vitest";
import {
  COMMANDS,
  commandByName,
  commandFor,
  commandGroups,
  describeOptions,
} from "../../../src/core/commands/catalogue.js";

/** Every command of DESIGN.md's table. */
const DESIGN_TABLE = [
  "usage",
  "avatars",
  "voices",
  "video.avatar",
  "video.cinematic",
  "video.list",
  "video.get",
  "image.generate",
  "image.edit",
  "image.inpaint",
  "photo_avatar.design",
  "photo_avatar.selfie",
  "mockup.generate",
  "mockup.video",
  "mockup.asset",
  "mockup.asset_edit",
  "mockup.list",
  "mockup.assets",
  "mockup.videos",
  "thumbnail.generate",
  "thumbnail.list",
  "jobs",
  "setup",
];

describe("the catalogue", () => {
  it("has every command of the design, each once", () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of DESIGN_TABLE) expect(names).toContain(name);
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    "%s fits both platforms' registration limits",
    (_name, command) => {
      expect(command.name).toMatch(/^[a-z_]+(\.[a-z_]+)?$/);
      expect(command.help.length).toBeGreaterThan(0);
      expect(command.help.length).toBeLessThanOrEqual(100);
      const options = describeOptions(command);
      expect(options.length).toBeLessThanOrEqual(25);
      for (const option of options) {
        expect(option.name).toMatch(/^[a-z][a-z0-9_]{0,31}$/);
        // Every option is described (from `.describe()`), within Discord's 100 characters.
        expect(option.description).not.toBe(option.name);
        expect(option.description.length).toBeLessThanOrEqual(100);
      }
      // Discord wants required options first.
      const firstOptional = options.findIndex((o) => !o.required);
      if (firstOptional >= 0) expect(options.slice(firstOptional).every((o) => !o.required)).toBe(true);
      if (command.main) expect(options.find((o) => o.name === command.main)?.main).toBe(true);
      for (const name of Object.keys(command.picks ?? {}))
        expect(options.some((o) => o.name === name)).toBe(true);
    },
  );

  it("describes option types, choices and bounds for the adapters", () => {
    const options = describeOptions(commandByName("image.generate")!);
    expect(options[0]).toMatchObject({
      name: "prompt",
      type: "string",
      required: true,
      main: true,
      maxLength: 2000,
    });
    expect(options.find((o) => o.name === "aspect_ratio")).toMatchObject({
      type: "string",
      required: false,
      choices: ["1:1", "16:9", "9:16", "4:3", "3:4"],
    });
    expect(options.find((o) => o.name === "seed")).toMatchObject({ type: "integer", min: 0 });

    const video = describeOptions(commandByName("video.avatar")!);
    // Optional so that a default avatar fills it; the command refuses a video with none (see below).
    expect(video.find((o) => o.name === "avatar")).toMatchObject({ required: false, pick: "avatars" });
    expect(video.find((o) => o.name === "preset")).toMatchObject({ required: false, pick: "presets" });
    expect(video.find((o) => o.name === "voice")).toMatchObject({ required: false, pick: "voices" });
    expect(video.find((o) => o.name === "full_body")).toMatchObject({ type: "boolean" });
    expect(video.find((o) => o.name === "audio")).toMatchObject({ type: "file", required: false });

    const inpaint = describeOptions(commandByName("image.inpaint")!);
    expect(inpaint.filter((o) => o.type === "file").map((o) => [o.name, o.required])).toEqual([
      ["image", true],
      ["mask", true],
    ]);
    expect(inpaint.find((o) => o.name === "image")?.file?.types).toContain("image/png");

    const style = describeOptions(commandByName("mockup.video")!).find((o) => o.name === "style");
    expect(style?.choices).toHaveLength(9);
    expect(describeOptions(commandByName("mockup.asset")!).find((o) => o.name === "type")?.choices).toEqual([
      "logo",
      "product",
    ]);
    expect(describeOptions(commandByName("avatars")!).find((o) => o.name === "page")).toMatchObject({
      type: "integer",
      default: 1,
      required: false,
    });
  });

  it("marks the API key of setup as modal-only and setup as an admin command", () => {
    const setup = commandByName("setup")!;
    expect(setup.adminOnly).toBe(true);
    expect(setup.ephemeral).toBe(true);
    expect(describeOptions(setup).find((o) => o.name === "api_key")).toMatchObject({
      secret: true,
      required: false,
    });
  });

  it("groups subcommands under one top-level command per group", () => {
    const groups = commandGroups();
    const image = groups.find((g) => g.name === "image")!;
    expect(image.commands.map((c) => c.sub)).toEqual(["generate", "edit", "inpaint"]);
    expect(image.help).toBe("Generate, edit and inpaint images");
    expect(groups.find((g) => g.name === "usage")?.commands.map((c) => c.sub)).toEqual([""]);
    expect(groups.length).toBeLessThanOrEqual(100);
    for (const group of groups) {
      expect(group.commands.length).toBeLessThanOrEqual(25);
      // Discord counts names, descriptions, option names and choices of one command: at most 8000.
      const size =
        group.name.length +
        group.help.length +
        group.commands
          .flatMap(({ sub, command }) => [
            sub,
            command.help,
            ...describeOptions(command).flatMap((o) => [
              o.name,
              o.description,
              ...(o.choices ?? []),
              ...(o.choices ?? []),
            ]),
          ])
          .join("").length;
      expect(size).toBeLessThanOrEqual(8000);
    }
  });

  it("finds a command from the words people type", () => {
    expect(commandFor(["image", "generate", "a", "fox"])).toMatchObject({
      command: { name: "image.generate" },
      used: 2,
    });
    expect(commandFor(["Mockup", "asset-edit"])).toMatchObject({
      command: { name: "mockup.asset_edit" },
      used: 2,
    });
    expect(commandFor(["usage"])).toMatchObject({ command: { name: "usage" }, used: 1 });
    expect(commandFor(["image"])).toBeUndefined();
    expect(commandFor([])).toBeUndefined();
  });
});
