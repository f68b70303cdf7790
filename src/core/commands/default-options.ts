import type { OptionValue, OptionValues } from "../../store/preferences.js";
import { msg } from "../i18n/msg.js";
import { isSetting, type Setting } from "../preferences/layers.js";
import { styleLabel } from "../render/text.js";
import { InputError } from "./errors.js";
import { ANIMATION_STYLES, IMAGE_ASPECT_RATIOS, RESOLUTIONS } from "./options.js";
import { SETTING_SCHEMAS } from "./setting-options.js";

const listed = (values: readonly string[], label: (value: string) => string = (v) => v) =>
  values.map((value) => ({ label: label(value), value }));

/**
 * What a select offers for each default whose values are known ahead (avatars and voices come
 * from the account's lists; a negative prompt is typed). Any duration can be typed in `settings`.
 */
export const DEFAULT_CHOICES: Partial<Record<Setting, readonly { label: string; value: string }[]>> = {
  aspect_ratio: listed(IMAGE_ASPECT_RATIOS),
  style: listed(ANIMATION_STYLES, styleLabel),
  resolution: listed(RESOLUTIONS),
  duration: listed(["5", "8", "10", "15", "20", "30"], (s) => `${s} seconds`),
  full_body: [
    { label: "Yes: the whole body moves", value: "true" },
    { label: "No: head and shoulders", value: "false" },
  ],
  delivery: [
    { label: "Public: in the channel", value: "public" },
    { label: "Private: only you", value: "private" },
  ],
};

/** "aspect_ratio" -> "Aspect ratio". */
export function optionLabel(name: string): string {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A raw value (a select's string, a typed option) as the default it sets; refused with the option's rule. */
export function defaultValue(option: Setting, raw: unknown): OptionValue {
  const parsed = SETTING_SCHEMAS[option].safeParse(raw);
  if (!parsed.success) {
    throw new InputError(
      "input.invalid_option",
      msg("refusal.input.default_invalid", { option: optionLabel(option), value: String(raw) }),
    );
  }
  return parsed.data;
}

/** `current` with `set` applied and `clear` removed ("all": every setting; a chosen language stays). */
export function changedDefaults(
  current: OptionValues,
  set: Partial<Record<Setting, OptionValue>>,
  clear: readonly (Setting | "all")[] = [],
): OptionValues {
  const next: OptionValues = clear.includes("all")
    ? Object.fromEntries(Object.entries(current).filter(([option]) => !isSetting(option)))
    : { ...current };
  for (const option of clear) delete next[option];
  for (const [option, value] of Object.entries(set)) if (value !== undefined) next[option] = value;
  return next;
}
