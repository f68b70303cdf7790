import { describe, expect, expectTypeOf, it } from "vitest";
import { COMMANDS } from "../../../src/core/commands/catalogue.js";
import { declaredOf, redrawn, requestOf } from "../../../src/core/commands/declare.js";
import { imageOptions } from "../../../src/core/commands/image.js";

/** Each option of a command that starts a job says which field of the service's request it fills. */

describe("the options' declaration", () => {
  it("covers every option of every command that starts a job, but the bot's own (delivery, preset)", () => {
    for (const command of COMMANDS.filter((c) => c.starts)) {
      const declared = declaredOf(command.options).map((d) => d.option);
      const own = ["delivery", "preset"];
      expect(declared, command.name).toEqual(
        Object.keys(command.options.shape).filter((o) => !own.includes(o)),
      );
    }
  });

  it("makes the request: each value under its field, a name from the prompt, nothing left out or of the bot's", () => {
    const request = requestOf(imageOptions, {
      prompt: "a red fox in the snow",
      aspect_ratio: "16:9" as const,
      seed: 0,
      delivery: "private",
    });
    expect(request).toEqual({
      prompt: "a red fox in the snow",
      name: "a red fox in the snow",
      aspectRatio: "16:9",
      seed: 0,
    });
    // Typed from what was given: a seed given is a number, one left out would be optional.
    expectTypeOf(request).toExtend<{ prompt: string; name: string; aspectRatio: "16:9"; seed: number }>();
    expectTypeOf(request).not.toHaveProperty("aspect_ratio");
    expectTypeOf(request).not.toHaveProperty("delivery");
    expectTypeOf(requestOf(imageOptions, { prompt: "a fox" })).not.toHaveProperty("seed");
    expect(requestOf(imageOptions, { prompt: "a fox", name: "Fox" })).toEqual({
      prompt: "a fox",
      name: "Fox",
    });
  });

  it("redraws the seed on Regenerate and keeps the rest", () => {
    const previous = { prompt: "a fox", name: "a fox", seed: 7, referenceImageMediaId: "m1" };
    const again = redrawn(imageOptions, previous);
    expect(again).toMatchObject({ prompt: "a fox", name: "a fox", referenceImageMediaId: "m1" });
    expect(again.seed).not.toBe(7);
    expect(Number.isInteger(again.seed)).toBe(true);
  });
});
