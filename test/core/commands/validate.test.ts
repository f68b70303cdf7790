import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Attachment } from "../../../src/core/base/ports.js";
import { commandByName } from "../../../src/core/commands/catalogue.js";
import { titleFrom } from "../../../src/core/commands/options.js";
import { checkFiles, parseOptions } from "../../../src/core/commands/validate.js";
import { layersOf } from "../../../src/core/preferences/layers.js";

const generate = commandByName("image.generate")!;
/** The tenant's defaults alone, as layers. */
const server = (defaults: Record<string, string>) => layersOf(undefined, {}, defaults);

function file(name: string, contentType: string, size: number): Attachment {
  return { name, contentType, size, open: async () => Readable.from([Buffer.alloc(size)]) };
}

describe("option parsing", () => {
  it("accepts Slack's strings and Discord's typed values alike", () => {
    const slack = parseOptions(generate, { prompt: "a fox", seed: "7", aspect_ratio: "16:9" });
    const discord = parseOptions(generate, { prompt: "a fox", seed: 7, aspect_ratio: "16:9" });
    expect(slack).toEqual(discord);
    expect(slack).toMatchObject({ seed: 7 });

    const video = commandByName("video.avatar")!;
    expect(parseOptions(video, { avatar: "a1", script: "hi", full_body: "true" }).full_body).toBe(true);
    expect(parseOptions(video, { avatar: "a1", script: "hi", full_body: false }).full_body).toBe(false);
  });

  it("accepts dashed option names and ignores empty values", () => {
    expect(parseOptions(generate, { prompt: "a fox", "aspect-ratio": "9:16", name: "", seed: null })).toEqual(
      {
        prompt: "a fox",
        aspect_ratio: "9:16",
      },
    );
  });

  it("explains each invalid value with the option name and what it accepts", () => {
    expect(() => parseOptions(generate, { prompt: "a fox", aspect_ratio: "2:3", seed: "seven" })).toThrow(
      /aspect_ratio must be one of 1:1, 16:9, 9:16, 4:3, 3:4 \(got "2:3"\); seed must be a number \(got "seven"\)/,
    );
    expect(() => parseOptions(generate, {})).toThrow(/prompt is required/);
    expect(() => parseOptions(generate, { prompt: "x".repeat(2001) })).toThrow(
      /prompt takes at most 2000 characters/,
    );
    expect(() => parseOptions(generate, { prompt: "a", seed: "1.5" })).toThrow(/seed must be a whole number/);
    expect(() => parseOptions(commandByName("video.avatar")!, { avatar: "a", full_body: "maybe" })).toThrow(
      /full_body must be true or false/,
    );
    expect(() => parseOptions(commandByName("mockup.video")!, { mockup: "m1", style: "custom" })).toThrow(
      /prompt is required with the custom style/,
    );
  });

  it("refuses options the command does not have", () => {
    expect(() => parseOptions(generate, { prompt: "a fox", colour: "red" })).toThrow(
      /image generate has no option colour\. Its options: prompt, name, aspect_ratio/,
    );
  });

  it("fills what the user left out from the tenant's defaults, where the option accepts the value", () => {
    expect(parseOptions(generate, { prompt: "a" }, server({ aspect_ratio: "4:3" })).aspect_ratio).toBe("4:3");
    expect(
      parseOptions(generate, { prompt: "a", aspect_ratio: "1:1" }, server({ aspect_ratio: "4:3" }))
        .aspect_ratio,
    ).toBe("1:1");
    // Thumbnails take only 16:9 or 9:16: a 4:3 default does not apply there.
    const thumbnail = commandByName("thumbnail.generate")!;
    expect(
      parseOptions(thumbnail, { prompt: "a" }, server({ aspect_ratio: "4:3" })).aspect_ratio,
    ).toBeUndefined();
  });

  it("derives a name from the prompt at a word boundary", () => {
    expect(titleFrom("a red fox in snow")).toBe("a red fox in snow");
    const long = "a very long prompt about a red fox that walks through deep snow under the northern lights";
    expect(titleFrom(long)).toBe("a very long prompt about a red fox that walks through deep…");
    expect(titleFrom(long).length).toBeLessThanOrEqual(60);
  });
});

describe("attachment checks", () => {
  const edit = commandByName("image.edit")!;
  const inpaint = commandByName("image.inpaint")!;

  it("passes good files and normalizes their type", () => {
    const checked = checkFiles(edit, { image: [file("fox.PNG", "application/octet-stream", 100)] });
    expect(checked.image?.[0]?.contentType).toBe("image/png");
    expect(
      checkFiles(inpaint, {
        image: [file("a.jpg", "image/jpeg; q=1", 10)],
        mask: [file("m.png", "image/png", 10)],
      }).image?.[0]?.contentType,
    ).toBe("image/jpeg");
  });

  it("says which file is missing, of which type, too big or too many", () => {
    expect(() => checkFiles(edit, {})).toThrow(/Attach a file as image \(PNG, JPEG, WEBP up to 10 MB\)/);
    expect(() => checkFiles(inpaint, { image: [file("a.png", "image/png", 10)] })).toThrow(
      /Attach a file as mask/,
    );
    expect(() => checkFiles(edit, { image: [file("notes.pdf", "application/pdf", 10)] })).toThrow(
      /"notes\.pdf" is not a file image accepts \(application\/pdf\)/,
    );
    expect(() => checkFiles(edit, { image: [file("big.png", "image/png", 11 * 1024 * 1024)] })).toThrow(
      /"big\.png" is 11 MB, more than the 10 MB image accepts/,
    );
    expect(() =>
      checkFiles(edit, { image: Array.from({ length: 5 }, (_, i) => file(`${i}.png`, "image/png", 1)) }),
    ).toThrow(/at most 4 files; 5 were attached/);
    expect(() => checkFiles(generate, { image: [file("a.png", "image/png", 1)] })).toThrow(/takes no files/);
    expect(() => checkFiles(edit, { image: [file("a.png", "image/png", 0)] })).toThrow(/is empty/);
  });
});
