import { describe, expect, it } from "vitest";
import {
  addPreset,
  deletePreset,
  findPreset,
  PRESET_LIMIT,
  renamePreset,
} from "../../../src/core/preferences/presets.js";
import type { Preset } from "../../../src/store/preferences.js";

const preset = (name: string): Preset => ({
  name,
  values: { aspect_ratio: "16:9" },
  from: null,
  createdAt: 1,
});
const values = { style: "luxury_macro" };

describe("presets", () => {
  it("keeps names unique per owner whatever their case, of 1 to 32 characters", () => {
    const mine = [preset("Brand")];
    expect(() => addPreset(mine, { name: "brand", values, from: null }, "yours")).toThrow(
      /already a preset "Brand" among yours/,
    );
    expect(() => addPreset(mine, { name: "x".repeat(33), values, from: null }, "yours")).toThrow(
      /1 to 32 characters/,
    );
    expect(() => addPreset(mine, { name: "  ", values, from: null }, "yours")).toThrow(/1 to 32 characters/);
    expect(() => addPreset(mine, { name: "Empty", values: {}, from: null }, "yours")).toThrow(
      /at least one setting/,
    );
    const added = addPreset(mine, { name: "  Night  shot ", values, from: "image.generate" }, "yours", 5);
    expect(added.at(-1)).toEqual({ name: "Night shot", values, from: "image.generate", createdAt: 5 });
  });

  it(`refuses the ${PRESET_LIMIT + 1}th, naming the limit`, () => {
    const full = Array.from({ length: PRESET_LIMIT }, (_, i) => preset(`P${i}`));
    expect(() => addPreset(full, { name: "One more", values, from: null }, "yours")).toThrow(
      "You have 25 presets, the most allowed (25): delete one first.",
    );
    expect(() => addPreset(full, { name: "One more", values, from: null }, "server")).toThrow(
      /^The server has 25 presets/,
    );
    expect(() => addPreset(full, { name: "One more", values, from: null }, "workspace")).toThrow(
      /^The workspace has 25 presets/,
    );
  });

  it("renames and deletes by name without case, and says which exist when the name is unknown", () => {
    const mine = [preset("Brand"), preset("Night")];
    expect(renamePreset(mine, "brand", "Brand 2", "yours").map((p) => p.name)).toEqual(["Brand 2", "Night"]);
    expect(() => renamePreset(mine, "Brand", "night", "yours")).toThrow(/already a preset "Night"/);
    expect(deletePreset(mine, "NIGHT", "yours").map((p) => p.name)).toEqual(["Brand"]);
    expect(() => deletePreset(mine, "Day", "yours")).toThrow(
      'There is no preset "Day" among yours (Brand, Night).',
    );
  });

  it("finds a command's preset among the person's first, then the server's", () => {
    const mine = [preset("Brand")];
    const server = [{ ...preset("brand"), values: { aspect_ratio: "1:1" } }, preset("House")];
    expect(findPreset("BRAND", mine, server, "server")).toBe(mine[0]);
    expect(findPreset("house", mine, server, "server")).toBe(server[1]);
    expect(() => findPreset("Nope", mine, server, "server")).toThrow(
      'There is no preset "Nope". Your presets: Brand. The server\'s: brand, House. See the preset list command.',
    );
    // On Slack the presets everyone shares are the workspace's.
    expect(() => findPreset("Nope", [], [], "workspace")).toThrow(
      'There is no preset "Nope". Your presets: none. The workspace\'s: none. See the preset list command.',
    );
  });
});
