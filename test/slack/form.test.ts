import type { ViewStateValue } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { actionByName } from "../../src/core/actions/catalogue.js";
import { commandByName } from "../../src/core/commands/catalogue.js";
import type { AnyCommand } from "../../src/core/commands/define.js";
import { fieldErrors } from "../../src/slack/form-errors.js";
import { formView, needsForm, readContext, readForm } from "../../src/slack/render/form.js";
import { viewErrors } from "../fakes/slack/blocks.js";

const command = (name: string): AnyCommand => {
  const found = commandByName(name);
  if (!found) throw new Error(`no command ${name}`);
  return found;
};

function view(name: string, options: Record<string, unknown> = {}) {
  const built = formView(command(name), options, { command: name, channelId: "C1" });
  expect(viewErrors(built)).toEqual([]);
  return built;
}

const input = (built: ReturnType<typeof view>, name: string) =>
  built.blocks.find((b) => b.type === "input" && b.block_id === name) as
    | { optional?: boolean; element: Record<string, unknown> }
    | undefined;

describe("needsForm", () => {
  it("opens a form for files, missing required options and API keys only", () => {
    expect(needsForm(command("image.generate"), { prompt: "a fox" })).toBe(false);
    expect(needsForm(command("image.generate"), {})).toBe(true);
    expect(needsForm(command("image.edit"), { prompt: "add a hat" })).toBe(true);
    expect(needsForm(command("setup"), {})).toBe(true);
    expect(needsForm(command("thumbnail.generate"), {})).toBe(true);
    expect(needsForm(command("thumbnail.generate"), { prompt: "bold title" })).toBe(false);
    expect(needsForm(command("usage"), {})).toBe(false);
    expect(needsForm(command("avatars"), {})).toBe(false);
  });
});

describe("formView", () => {
  it("builds image edit's form: file input, the typed prompt, and no invalid initial values", () => {
    const built = view("image.edit", { prompt: "add a hat", seed: "abc", aspect_ratio: "7:7" });

    expect(built).toMatchObject({
      type: "modal",
      callback_id: "media_form",
      title: { text: "Image edit" },
      submit: { text: "Start" },
    });
    expect(readContext(built.private_metadata ?? "")).toEqual({ command: "image.edit", channelId: "C1" });
    expect(input(built, "image")).toMatchObject({
      optional: false,
      element: {
        type: "file_input",
        action_id: "image",
        filetypes: ["png", "jpg", "jpeg", "webp"],
        max_files: 4,
      },
    });
    expect(input(built, "prompt")?.element).toMatchObject({
      type: "plain_text_input",
      initial_value: "add a hat",
      multiline: true,
    });
    expect(input(built, "seed")?.element).toMatchObject({
      type: "number_input",
      is_decimal_allowed: false,
      min_value: "0",
    });
    expect(input(built, "seed")?.element).not.toHaveProperty("initial_value");
    expect(input(built, "aspect_ratio")?.element).toMatchObject({ type: "static_select" });
    expect(input(built, "aspect_ratio")?.element).not.toHaveProperty("initial_option");
  });

  it("uses external selects for avatars and voices, a checkbox for flags, and audio types", () => {
    const built = view("video.avatar", { voice: "1", full_body: true });

    // Optional: a default avatar (or a preset's) fills it; the command asks for one when none does.
    expect(input(built, "avatar")).toMatchObject({
      optional: true,
      element: { type: "external_select", min_query_length: 0 },
    });
    expect(input(built, "voice")?.element).toMatchObject({
      type: "external_select",
      initial_option: { value: "1" },
    });
    expect(input(built, "full_body")?.element).toMatchObject({
      type: "checkboxes",
      initial_options: [{ value: "true" }],
    });
    expect(input(built, "audio")).toMatchObject({
      optional: true,
      element: { type: "file_input", filetypes: ["mp3", "wav", "m4a", "aac", "ogg", "webm"], max_files: 1 },
    });
  });

  it("names its button for what submitting does: Start a job, Save a preset or a key", () => {
    expect(view("image.generate").submit?.text).toBe("Start");
    expect(view("preset.save").submit?.text).toBe("Save");
    expect(view("preset.delete").submit?.text).toBe("Delete");
    expect(view("setup").submit?.text).toBe("Save");
    // Save as preset, under a result: the form asks only the preset's name.
    const saveAsPreset = actionByName("save_preset")?.form;
    const built = formView(
      saveAsPreset!.of({} as never),
      {},
      { command: "preset.save", channelId: "C1" },
      saveAsPreset!.title,
    );
    expect(built).toMatchObject({ title: { text: "Save as preset" }, submit: { text: "Save" } });
    // Nothing says "Run": a command that neither starts a job nor names its verb is submitted.
    expect(view("budget").submit?.text).toBe("Submit");
  });

  it("never shows an API key back", () => {
    const built = view("setup", { api_key: "sk-secret", allowed_channels: "none" });
    expect(input(built, "api_key")?.element).not.toHaveProperty("initial_value");
    expect(input(built, "allowed_channels")?.element).toMatchObject({ initial_value: "none" });
    expect(JSON.stringify(built)).not.toContain("sk-secret");
  });
});

describe("readForm and fieldErrors", () => {
  it("reads every kind of input by option name and leaves empty ones out", () => {
    const values: Record<string, Record<string, ViewStateValue>> = {
      avatar: {
        avatar: {
          type: "external_select",
          selected_option: { text: { type: "plain_text", text: "Anna" }, value: "av1" },
        },
      },
      voice: { voice: { type: "external_select", selected_option: null } },
      script: { script: { type: "plain_text_input", value: "Hello" } },
      name: { name: { type: "plain_text_input", value: null } },
      full_body: {
        full_body: {
          type: "checkboxes",
          selected_options: [{ text: { type: "plain_text", text: "x" }, value: "true" }],
        },
      },
      audio: { audio: { type: "file_input", files: [{ id: "F1" } as never, { id: "F2" } as never] } },
    };

    expect(readForm(command("video.avatar"), values)).toEqual({
      options: { avatar: "av1", script: "Hello", full_body: "true" },
      files: { audio: ["F1", "F2"] },
    });
  });

  it("puts the core's message for each invalid option on its own field", () => {
    const errors = fieldErrors(command("image.generate"), {
      prompt: "   ",
      seed: "-3",
      aspect_ratio: "16:9",
    });
    expect(Object.keys(errors).sort()).toEqual(["prompt", "seed"]);
    expect(errors.seed).toMatch(/seed must be at least 0/);
    expect(errors.prompt).toMatch(/prompt/);
    expect(fieldErrors(command("image.generate"), { prompt: "a fox" })).toEqual({});
  });
});
