import { describe, expect, it } from "vitest";
import { pictureSvg, renderPicture, sizeOf, wrap } from "./pictures.js";
import { decodePng, pixelAt, solidPng } from "./png.js";

const red = { bytes: solidPng([220, 20, 20]), contentType: "image/png" };
const words = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe("the emulator's pictures", () => {
  it("write the prompt on the picture, escaped, with the emulator's mark and the picture's size", () => {
    const svg = pictureSvg({ kind: "generate", prompt: "a <red> fox & a hen", aspectRatio: "16:9" });
    expect(words(svg)).toEqual([
      "a &lt;red&gt; fox &amp; a hen",
      "EMULATOR · image",
      "768×432 · 16:9 · media-bot emulator",
    ]);
    expect(svg).toMatch(/^<svg [^>]*width="768" height="432"/);
  });

  it("have a look of their own per kind, said in their mark", () => {
    const recipes = [
      { kind: "generate", prompt: "a fox", aspectRatio: "1:1" },
      { kind: "edit", prompt: "a fox", aspectRatio: "1:1" },
      { kind: "inpaint", prompt: "a fox", aspectRatio: "1:1" },
      { kind: "mockup", instruction: "a fox" },
      { kind: "asset", type: "logo", prompt: "a fox", edited: false },
      { kind: "thumbnail", name: "Foxes", prompt: "a fox", aspectRatio: "16:9" },
      { kind: "avatar", name: "Ava", variant: 1, portrait: true, design: {} },
      { kind: "enhance", name: "Ava", prompt: "a fox" },
    ] as const;
    const marks = recipes.map((recipe) => words(pictureSvg(recipe)).find((w) => w?.startsWith("EMULATOR")));
    expect(marks).toEqual([
      "EMULATOR · image",
      "EMULATOR · edit",
      "EMULATOR · inpaint",
      "EMULATOR · mockup",
      "EMULATOR · logo",
      "EMULATOR · thumbnail",
      "EMULATOR · avatar preview",
      "EMULATOR · enhanced photo",
    ]);
    const drawn = recipes.map((recipe) => renderPicture(recipe).toString("base64"));
    expect(new Set(drawn).size).toBe(recipes.length);
  });

  it("take the colour a prompt names", () => {
    const sky = (prompt: string) => {
      const png = decodePng(renderPicture({ kind: "generate", prompt, aspectRatio: "16:9" }));
      return pixelAt(png, png.width * 0.5, png.height * 0.15);
    };
    const [r, g, b] = sky("a blue whale");
    expect(b).toBeGreaterThan(Math.max(r, g) + 40);
    const [r2, g2, b2] = sky("a red fox");
    expect(r2).toBeGreaterThan(Math.max(g2, b2) + 40);
  });

  it("label an avatar's previews by variant, with the design asked for", () => {
    const design = { gender: "female", age: "30s", outfit: "navy suit" };
    const one = pictureSvg({ kind: "avatar", name: "Ava", variant: 1, portrait: true, design });
    const two = pictureSvg({ kind: "avatar", name: "Ava", variant: 2, portrait: true, design });
    expect(words(one)).toContain("Variant 1");
    expect(words(two)).toContain("Variant 2");
    expect(words(one).join(" ")).toContain("Ava · female · 30s · navy suit");
    expect(sizeOf("3:4")).toEqual({ width: 576, height: 768 });
    expect(one).toMatch(/width="576" height="768"/);
  });

  it("put a mockup's product on the product's face", () => {
    const png = decodePng(renderPicture({ kind: "mockup", instruction: "on a shelf" }, [red]));
    expect(pixelAt(png, png.width * 0.5, png.height * 0.3)).toEqual([220, 20, 20]);
  });

  it("write a thumbnail's title large, in capitals", () => {
    const svg = pictureSvg({ kind: "thumbnail", name: "Ten tips", prompt: "a chart", aspectRatio: "9:16" });
    expect(words(svg).join(" ")).toContain("TEN TIPS");
    expect(svg).toMatch(/width="432" height="768"/);
  });

  it("show the source without its words when drawn over another picture", () => {
    const recipe = { kind: "generate", prompt: "a fox", aspectRatio: "1:1" } as const;
    expect(words(pictureSvg(recipe, [], { bare: true }))).toEqual([]);
  });

  it("wrap long prompts into a few lines, cutting the rest", () => {
    expect(wrap("a red fox in the snow", 10, 3)).toEqual(["a red fox", "in the", "snow"]);
    expect(wrap("one two three four five six", 7, 2)).toEqual(["one two", "three…"]);
    expect(wrap("supercalifragilistic", 8, 2)).toEqual(["superca…"]);
  });
});
