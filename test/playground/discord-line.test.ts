import { describe, expect, it } from "vitest";
import { applicationCommands } from "../../src/discord/commands.js";
import { commandMenu, parseLine } from "./discord-line.js";

const commands = applicationCommands();
const png = { name: "fox.png", contentType: "image/png", data: "png" };

describe("the playground's Discord command line", () => {
  it("reads options as Discord's client does: a value runs to the next option name", () => {
    expect(parseLine("/image generate prompt:a fox: note: red aspect_ratio:16:9 seed:42", commands)).toEqual({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox: note: red", aspect_ratio: "16:9", seed: 42 },
      attachments: [],
    });
  });

  it("refuses what Discord's client would not send", () => {
    expect(() => parseLine("/imagine prompt:fox", commands)).toThrow("No command /imagine");
    expect(() => parseLine("/image generate aspect_ratio:1:1", commands)).toThrow("Missing prompt:");
    expect(() => parseLine("/image generate prompt:fox seed:many", commands)).toThrow("seed takes a number");
    expect(() => parseLine("/image generate a fox", commands)).toThrow('Say which option "a" is for');
  });

  it("puts attached files into the command's file options, in order", () => {
    const input = parseLine("/image edit prompt:add a hat", commands, [png, { ...png, name: "two.png" }]);
    expect(input.attachments?.map((a) => [a.option, a.name])).toEqual([
      ["image", "fox.png"],
      ["image_2", "two.png"],
    ]);
  });

  it("offers every command with its options and choices for completion", () => {
    const menu = commandMenu(commands);
    const generate = menu.find((c) => c.path === "image generate");
    expect(generate?.options.find((o) => o.name === "aspect_ratio")?.choices).toContain("16:9");
    expect(generate?.options.find((o) => o.name === "prompt")).toMatchObject({
      required: true,
      type: "string",
    });
    expect(menu.map((c) => c.path)).toContain("photo_avatar design");
  });
});
