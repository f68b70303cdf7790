import { describe, expect, it } from "vitest";
import { commandByName } from "../../../src/core/commands/catalogue.js";
import { madeWith, settingsFor } from "../../../src/core/commands/made-with.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import { recipeOf } from "../../../src/core/render/recipe.js";

/** What each command declares its options fill (commands/declare.ts), as results read it. */
const image = madeWith(commandByName("image.generate"));
const avatarVideo = madeWith(commandByName("video.avatar"));

/** A result's "how it was made" says which settings a preset or a default filled. */

describe("the recipe", () => {
  const inputs = {
    request: { prompt: "a fox", aspectRatio: "16:9", negativePrompt: "blur", seed: 4 },
    filled: {
      aspect_ratio: { value: "16:9", origin: { from: "person" } },
      negative_prompt: { value: "blur", origin: { from: "preset", preset: "Brand" } },
      delivery: { value: "private", origin: { from: "server" } },
    },
  };

  it("tells each filled setting's origin, and filled settings that reach no request", () => {
    expect(recipeOf(inputs, image)).toEqual([
      { name: "Prompt", value: "a fox" },
      { name: "Negative prompt", value: "blur (preset Brand)" },
      { name: "Aspect ratio", value: "16:9 (your default)" },
      { name: "Seed", value: "4" },
      { name: "Delivery", value: "private (server default)" },
    ]);
  });

  it("names the options and the origins in the reader's language, the values as they were typed", () => {
    expect(recipeOf(inputs, image, translatorFor("de"))).toEqual([
      { name: "Prompt", value: "a fox" },
      { name: "Negativ-Prompt", value: "blur (Preset Brand)" },
      { name: "Seitenverhältnis", value: "16:9 (dein Standard)" },
      { name: "Seed", value: "4" },
      { name: "Zustellung", value: "private (Standard des Servers)" },
    ]);
  });

  it("says nothing of a filled value the request does not hold, nor of what an older version kept", () => {
    expect(
      recipeOf(
        {
          request: { avatarId: "a2", voiceId: "v1", text: "Hi", im2vid_full: true },
          filled: {
            avatar: { value: "a1", origin: { from: "person" } },
            voice: { value: "v1", origin: "odd" },
          },
        },
        avatarVideo,
      ),
    ).toEqual([
      { name: "Script", value: "Hi" },
      { name: "Voice", value: "v1" },
      { name: "Avatar", value: "a2" },
      { name: "Full body", value: "yes" },
    ]);
  });

  it("reads a result's settings by option, without its prompt, seed or name (Save as preset)", () => {
    expect(settingsFor({ command: "image.generate", inputs })).toEqual({
      negative_prompt: "blur",
      aspect_ratio: "16:9",
      delivery: "private",
    });
    expect(
      settingsFor({ command: "mockup.video", inputs: { mockupId: "m1", style: "luxury_macro" } }),
    ).toEqual({ style: "luxury_macro" });
  });
});
