import type { OptionValue, OptionValues } from "../../store/preferences.js";
import { msg } from "../i18n/msg.js";
import { english, type Translator } from "../i18n/translator.js";
import { isSetting, type Setting } from "../preferences/layers.js";
import { styleLabel } from "../render/text.js";
import { InputError } from "./errors.js";
import { ANIMATION_STYLES, IMAGE_ASPECT_RATIOS, RESOLUTIONS } from "./options.js";
import { SETTING_SCHEMAS } from "./setting-options.js";

const listed = (values: readonly string[], label: (value: string) => string = (v) => v) =>
  values.map((value) => ({ label: label(value), value }));

/**
 * What a select offers for each default whose values are known ahead (avatars and voices come
 * from the account's lists; a negative prompt is typed), labelled in the reader's language. Any
 * duration can be typed in `settings`.
 */
export function defaultChoices(
  option: string,
  t: Translator = english(),
): readonly { label: string; value: string }[] | undefined {
  switch (option) {
    case "aspect_ratio":
      return listed(IMAGE_ASPECT_RATIOS);
    case "style":
      // The service's names of its styles, as the commands' choices show them.
      return listed(ANIMATION_STYLES, styleLabel);
    case "resolution":
      return listed(RESOLUTIONS);
    case "duration":
      return listed(DURATIONS, (s) => t.text("settings.choice.duration", { seconds: Number(s) }));
    case "full_body":
      return listed(["true", "false"], (value) => t.text("settings.choice.full_body", { value }));
    case "delivery":
      return listed(["public", "private"], (value) => t.text("settings.choice.delivery", { value }));
    default:
      return undefined;
  }
}

const DURATIONS = ["5", "8", "10", "15", "20", "30"];

/** A raw value (a select's string, a typed option) as the default it sets; refused with the option's rule. */
export function defaultValue(option: Setting, raw: unknown): OptionValue {
  const parsed = SETTING_SCHEMAS[option].safeParse(raw);
  if (!parsed.success) {
    throw new InputError(
      "input.invalid_option",
      msg("refusal.input.default_invalid", {
        option: msg("settings.option", { option }),
        value: String(raw),
      }),
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
