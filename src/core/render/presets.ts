import { type Card, card } from "../cards.js";
import { clip } from "./text.js";

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

export function presetsCard(mine: readonly PresetView[], server: readonly PresetView[], limit: number): Card {
  return card("Presets", "info", {
    lines: [
      ...section(
        "Yours",
        mine,
        limit,
        "None yet: save one with preset save, or Save as preset under a result.",
      ),
      ...section(
        "The server's",
        server,
        limit,
        "None: an admin can publish one of theirs with preset publish.",
      ),
      "Use one with the preset option of any command that makes something; what you type yourself still wins.",
    ],
  });
}

export function presetSavedCard(preset: PresetView, where: "yours" | "the server's"): Card {
  return card(`Preset ${preset.name} saved`, "success", {
    lines: [
      `${describeValues(preset.values)}.`,
      where === "yours"
        ? `Use it with preset:${preset.name} (Slack: --preset ${preset.name}) on any command that makes something.`
        : "Everyone here can use it now with the preset option.",
    ],
  });
}
