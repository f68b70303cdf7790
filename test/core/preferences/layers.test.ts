import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandByName } from "../../../src/core/commands/catalogue.js";
import { IMAGE_ASPECT_RATIOS } from "../../../src/core/commands/options.js";
import { SETTING_OPTIONS } from "../../../src/core/commands/setting-options.js";
import { parseFilled } from "../../../src/core/commands/validate.js";
import { layersOf, SETTINGS } from "../../../src/core/preferences/layers.js";

/**
 * What fills an option a command left out: the command's own value, then a preset named in it,
 * the person's default, the server's default, and last the service's (the option stays out).
 */

const generate = commandByName("image.generate")!;
const thumbnail = commandByName("thumbnail.generate")!;
const ratio = fc.option(fc.constantFrom(...IMAGE_ASPECT_RATIOS), { nil: undefined });

describe("the layers of settings", () => {
  it("takes command > preset > person > server > service, and says where a filled value came from", () => {
    fc.assert(
      fc.property(ratio, ratio, ratio, ratio, (command, preset, person, server) => {
        const layers = layersOf(
          preset === undefined
            ? { name: "Brand", values: {} }
            : { name: "Brand", values: { aspect_ratio: preset } },
          person === undefined ? {} : { aspect_ratio: person },
          server === undefined ? {} : { aspect_ratio: server },
        );
        const raw = { prompt: "a fox", ...(command !== undefined && { aspect_ratio: command }) };
        const { options, filled } = parseFilled(generate, raw, layers);
        const expected = command ?? preset ?? person ?? server;
        expect(options.aspect_ratio).toBe(expected);
        const origin =
          command !== undefined
            ? undefined
            : preset !== undefined
              ? { from: "preset", preset: "Brand" }
              : person !== undefined
                ? { from: "person" }
                : server !== undefined
                  ? { from: "server" }
                  : undefined;
        expect(filled.aspect_ratio?.origin).toEqual(origin);
      }),
    );
  });

  it("skips a layer whose value the option refuses, for the next one's", () => {
    // Thumbnails take 16:9 or 9:16: the preset's 4:3 does not fit, the person's 9:16 does.
    const layers = layersOf(
      { name: "Square", values: { aspect_ratio: "4:3" } },
      { aspect_ratio: "9:16" },
      {},
    );
    const { options, filled } = parseFilled(thumbnail, { prompt: "a title" }, layers);
    expect(options.aspect_ratio).toBe("9:16");
    expect(filled).toEqual({ aspect_ratio: { value: "9:16", origin: { from: "person" } } });
  });

  it("fills only settings: never the prompt, the name or the seed", () => {
    const layers = layersOf(undefined, { prompt: "sneaky", name: "x", seed: 3, negative_prompt: "blur" }, {});
    const { options, filled } = parseFilled(generate, { prompt: "a fox" }, layers);
    expect(options).toMatchObject({ prompt: "a fox", negative_prompt: "blur" });
    expect(options.seed).toBeUndefined();
    expect(Object.keys(filled)).toEqual(["negative_prompt"]);
  });

  it("lets a default avatar fill video.avatar's avatar, which is otherwise asked for", () => {
    const video = commandByName("video.avatar")!;
    const { options, filled } = parseFilled(
      video,
      { script: "Hello" },
      layersOf(undefined, { avatar: "a1" }, {}),
    );
    expect(options.avatar).toBe("a1");
    expect(filled.avatar?.origin).toEqual({ from: "person" });
  });

  it("has an option for every setting, to save in presets", () => {
    expect(Object.keys(SETTING_OPTIONS).sort()).toEqual([...SETTINGS].sort());
  });
});
