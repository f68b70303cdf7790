import { z } from "zod";
import type { OptionValue, OptionValues } from "../../store/preferences.js";
import { styleLabel } from "../render/text.js";
import { InputError } from "./errors.js";
import {
  ANIMATION_STYLES,
  flag,
  IMAGE_ASPECT_RATIOS,
  id,
  RESOLUTIONS,
  text,
  wholeNumber,
} from "./options.js";
import { DELIVERIES } from "./personal.js";

/**
 * The options a person (and a server) may give a default, under the names the commands use, so
 * that a default fills the option of that name in every command that has one. Each schema takes
 * every value any command accepts (aspect ratios: the images' five, a superset of the clips').
 */
export const DEFAULT_OPTIONS = {
  aspect_ratio: z.enum(IMAGE_ASPECT_RATIOS).describe("Shape of images, clips and thumbnails"),
  style: z.enum(ANIMATION_STYLES).describe("Animation style of mockup videos"),
  resolution: z.enum(RESOLUTIONS).describe("Resolution of cinematic clips"),
  duration: wholeNumber(1, 30, "Length of cinematic clips in seconds (1-30)"),
  negative_prompt: text(1000, "What images and thumbnails should not show"),
  avatar: id("Avatar of avatar videos (pick from the list)"),
  voice: id("Voice of avatar videos (pick from the list)"),
  full_body: flag("Animate the whole body of photo avatars"),
  delivery: z.enum(DELIVERIES).describe("Who sees your jobs: the channel (public) or only you (private)"),
};

export type DefaultOption = keyof typeof DEFAULT_OPTIONS;

const listed = (values: readonly string[], label: (value: string) => string = (v) => v) =>
  values.map((value) => ({ label: label(value), value }));

/**
 * What a select offers for each default whose values are known ahead (avatars and voices come
 * from the account's lists; a negative prompt is typed). Any duration can be typed in `settings`.
 */
export const DEFAULT_CHOICES: Partial<Record<DefaultOption, readonly { label: string; value: string }[]>> = {
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
export const DEFAULT_OPTION_NAMES = Object.keys(DEFAULT_OPTIONS) as DefaultOption[];

export function isDefaultOption(name: string): name is DefaultOption {
  return Object.hasOwn(DEFAULT_OPTIONS, name);
}

/** "aspect_ratio" -> "Aspect ratio". */
export function optionLabel(name: string): string {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A raw value (a select's string, a typed option) as the default it sets; refused with the option's rule. */
export function defaultValue(option: DefaultOption, raw: unknown): OptionValue {
  const parsed = DEFAULT_OPTIONS[option].safeParse(raw);
  if (!parsed.success) {
    throw new InputError("input.invalid_option", `${optionLabel(option)} cannot be "${String(raw)}".`);
  }
  return parsed.data;
}

/** `current` with `set` applied and `clear` removed ("all": every default). */
export function changedDefaults(
  current: OptionValues,
  set: Partial<Record<DefaultOption, OptionValue>>,
  clear: readonly (DefaultOption | "all")[] = [],
): OptionValues {
  const next: OptionValues = clear.includes("all") ? {} : { ...current };
  for (const option of clear) delete next[option];
  for (const [option, value] of Object.entries(set)) if (value !== undefined) next[option] = value;
  return next;
}
