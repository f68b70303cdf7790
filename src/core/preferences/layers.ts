import type { z } from "zod";
import type { OptionValues } from "../../store/preferences.js";
import type { Filled, Origin } from "../render/recipe.js";

/**
 * What fills the options a command was not given, highest first: a preset named in the command,
 * the person's defaults, the server's. The service's own default is what is left: the option stays
 * out. Each layer fills only the settings below, and only with a value the option accepts (a
 * 1:1 default does not suit a 16:9-or-9:16 option: the next layer's value, or none, is used).
 */

/** How a job is made, never what it is about: prompts, names, seeds and files are always typed. */
export const SETTINGS = [
  "aspect_ratio",
  "style",
  "resolution",
  "duration",
  "negative_prompt",
  "avatar",
  "voice",
  "full_body",
  "delivery",
] as const;

export type Setting = (typeof SETTINGS)[number];

const IS_SETTING: ReadonlySet<string> = new Set(SETTINGS);

export function isSetting(name: string): name is Setting {
  return IS_SETTING.has(name);
}

export interface Layer {
  origin: Origin;
  values: OptionValues;
}

export function layersOf(
  preset: { name: string; values: OptionValues } | undefined,
  person: OptionValues,
  server: OptionValues,
): Layer[] {
  return [
    ...(preset ? [{ origin: { from: "preset", preset: preset.name } as const, values: preset.values }] : []),
    { origin: { from: "person" }, values: person },
    { origin: { from: "server" }, values: server },
  ];
}

/** The values `layers` give the settings of `shape` that `given` leaves out, with their origin. */
export function fill(
  shape: Record<string, z.ZodType>,
  given: Record<string, unknown>,
  layers: readonly Layer[],
): Filled {
  const filled: Filled = {};
  for (const [option, schema] of Object.entries(shape)) {
    if (!IS_SETTING.has(option) || given[option] !== undefined) continue;
    for (const { origin, values } of layers) {
      const value = Object.hasOwn(values, option) ? values[option] : undefined;
      if (value !== undefined && schema.safeParse(value).success) {
        filled[option] = { value, origin };
        break;
      }
    }
  }
  return filled;
}
