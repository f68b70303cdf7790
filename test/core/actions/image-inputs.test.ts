import { describe, expect, it } from "vitest";
import { IMAGE_INPUTS, imageInputByLabel, imageInputByName } from "../../../src/core/actions/image-inputs.js";
import { commandByName } from "../../../src/core/commands/catalogue.js";
import { parseOptions } from "../../../src/core/commands/validate.js";

/**
 * Each image from the chat runs a catalogue command with the image as one of its file options and
 * the follow-up form's fields as its options: a form asking what the command does not take, or a
 * name past a platform's limit, fails here rather than in front of someone.
 */
describe("images from the chat", () => {
  it("run a catalogue command that takes an image file and every field of their form", () => {
    for (const input of IMAGE_INPUTS) {
      const command = commandByName(input.command);
      expect(command, input.name).toBeDefined();
      expect(command!.files?.[input.file]?.types, input.name).toContain("image/png");
      const formOptions = Object.keys(input.form.options.shape);
      const commandOptions = Object.keys(command!.options.shape);
      for (const option of formOptions) expect(commandOptions, `${input.name}: ${option}`).toContain(option);
      // What the form gives is enough for the command.
      expect(() => parseOptions(command!, { [input.form.main ?? "prompt"]: "a red fox" })).not.toThrow();
    }
  });

  it("fit Discord's message command names, Slack's callback ids and view titles", () => {
    for (const input of IMAGE_INPUTS) {
      expect(input.label.length).toBeLessThanOrEqual(32);
      expect(input.name).toMatch(/^[a-z][a-z0-9_]{0,23}$/);
      expect(input.title.length).toBeLessThanOrEqual(24);
      expect(imageInputByName(input.name)).toBe(input);
      expect(imageInputByLabel(input.label)).toBe(input);
    }
    expect(new Set(IMAGE_INPUTS.map((i) => i.label)).size).toBe(IMAGE_INPUTS.length);
  });
});
