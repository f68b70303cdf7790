import { type Card, card } from "../base/cards.js";
import type { Platform } from "../base/ports.js";
import { english, type Translator } from "../i18n/translator.js";
import { optionName } from "./settings.js";
import { clip } from "./text.js";
import { typedOption } from "./words.js";

/** Presets as people see them: their settings in the words of the options they type. */

interface PresetView {
  name: string;
  values: Record<string, string | number | boolean>;
}

/** "aspect ratio 16:9, style luxury_macro": each setting by its option's name. */
export function describeValues(values: PresetView["values"], t: Translator = english()): string {
  return Object.entries(values)
    .map(([option, value]) =>
      t.text("presets.value", {
        option: optionName(option, t, true),
        value:
          typeof value === "boolean"
            ? t.text("presets.flag", { value: String(value) })
            : clip(String(value), 40),
      }),
    )
    .join(t.text("settings.items_separator"));
}

function section(title: string, presets: readonly PresetView[], none: string, t: Translator): string[] {
  return [
    title,
    ...(presets.length === 0
      ? [none]
      : presets.map((p) => t.text("presets.item", { name: p.name, values: describeValues(p.values, t) }))),
  ];
}

/** The person's presets and their server's or workspace's, as `platform` names it. */
export function presetsCard(
  mine: readonly PresetView[],
  shared: readonly PresetView[],
  limit: number,
  platform: Platform,
  t: Translator = english(),
): Card {
  return card(t.text("presets.title"), "info", {
    lines: [
      ...section(
        t.text("presets.yours_count", { count: mine.length, limit }),
        mine,
        t.text("presets.yours_none", { save: "preset save", save_as_preset: t.text("action.save_preset") }),
        t,
      ),
      ...section(
        t.text("presets.tenant_count", { place: platform, count: shared.length, limit }),
        shared,
        t.text("presets.tenant_none", { publish: "preset publish" }),
        t,
      ),
      t.text("presets.how", { preset: "preset" }),
    ],
    locale: t.locale,
  });
}

/** A preset saved as the person's own, or published to everyone in their server or workspace. */
export function presetSavedCard(
  preset: PresetView,
  where: "yours" | "shared",
  platform: Platform,
  t: Translator = english(),
): Card {
  return card(t.text("presets.saved_title", { name: preset.name }), "success", {
    lines: [
      t.text("presets.saved_values", { values: describeValues(preset.values, t) }),
      where === "yours"
        ? t.text("presets.saved_yours", { typed: typedOption(platform, "preset", preset.name) })
        : t.text("presets.saved_shared", { preset: "preset" }),
    ],
    locale: t.locale,
  });
}
