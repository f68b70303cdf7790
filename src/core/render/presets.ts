import { type Card, card } from "../base/cards.js";
import type { Platform } from "../base/ports.js";
import { clip } from "./text.js";
import { PLACE, typedOption } from "./words.js";

/** Presets as people see them: their settings in the words of the options they type. */

interface PresetView {
  name: string;
  values: Record<string, string | number | boolean>;
}

/** "aspect ratio 16:9, style luxury_macro": each setting by its option's name. */
export function describeValues(values: PresetView["values"]): string {
  return Object.entries(values)
    .map(([option, value]) => `${option.replaceAll("_", " ")} ${clip(String(value), 40)}`)
    .join(", ");
}

function section(title: string, presets: readonly PresetView[], limit: number, none: string): string[] {
  return [
    `${title} (${presets.length} of ${limit})`,
    ...(presets.length === 0 ? [none] : presets.map((p) => `• ${p.name}: ${describeValues(p.values)}`)),
  ];
}

/** The person's presets and their server's or workspace's, as `platform` names it. */
export function presetsCard(
  mine: readonly PresetView[],
  shared: readonly PresetView[],
  limit: number,
  platform: Platform,
): Card {
  return card("Presets", "info", {
    lines: [
      ...section(
        "Yours",
        mine,
        limit,
        "None yet: save one with preset save, or Save as preset under a result.",
      ),
      ...section(
        `The ${PLACE[platform]}'s`,
        shared,
        limit,
        "None: an admin can publish one of theirs with preset publish.",
      ),
      "Use one with the preset option of any command that makes something; what you type yourself still wins.",
    ],
  });
}

/** A preset saved as the person's own, or published to everyone in their server or workspace. */
export function presetSavedCard(preset: PresetView, where: "yours" | "shared", platform: Platform): Card {
  return card(`Preset ${preset.name} saved`, "success", {
    lines: [
      `${describeValues(preset.values)}.`,
      where === "yours"
        ? `Use it with ${typedOption(platform, "preset", preset.name)} on any command that makes something.`
        : "Everyone here can use it now with the preset option.",
    ],
  });
}
