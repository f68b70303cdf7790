import type { OptionValues, Preset } from "../../store/preferences.js";
import { InputError } from "../base/refusals.js";
import { type Arg, command, msg } from "../i18n/msg.js";
import { clip } from "../render/text.js";
import type { Place } from "../render/words.js";

/**
 * Presets' rules, the same for a person's and a server's: at most 25 each, names of 1-32
 * characters, unique per owner whatever their case. A command's `preset` finds the person's
 * first, then the server's (a person's own "Brand" wins over the server's).
 */

export const PRESET_LIMIT = 25;
export const PRESET_NAME_MAX = 32;

/** Whose presets a list is: the person's, or their server's or workspace's (named in messages). */
export type PresetOwner = "yours" | Place;

const same = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: "accent" }) === 0;

export function presetNamed(presets: readonly Preset[], name: string): Preset | undefined {
  const wanted = name.trim();
  return presets.find((preset) => same(preset.name, wanted));
}

function checkedName(name: string): string {
  const trimmed = name.trim().replace(/\s+/g, " ");
  if (trimmed.length < 1 || trimmed.length > PRESET_NAME_MAX) {
    throw new InputError(
      "input.preset_name",
      msg("refusal.preset.name", { max: PRESET_NAME_MAX, name: clip(trimmed, 40) }),
    );
  }
  return trimmed;
}

function names(presets: readonly Preset[]): Arg {
  return presets.length === 0 ? msg("refusal.preset.none") : presets.map((p) => p.name).join(", ");
}

/** `presets` with `preset` added, or a refusal naming the limit or the name taken. */
export function addPreset(
  presets: readonly Preset[],
  preset: { name: string; values: OptionValues; from: string | null },
  owner: PresetOwner,
  now = Date.now(),
): Preset[] {
  const name = checkedName(preset.name);
  if (Object.keys(preset.values).length === 0) {
    throw new InputError("input.preset_empty", msg("refusal.preset.empty"));
  }
  const taken = presetNamed(presets, name);
  if (taken) {
    throw new InputError("input.preset_taken", msg("refusal.preset.taken", { name: taken.name, owner }));
  }
  if (presets.length >= PRESET_LIMIT) {
    throw new InputError(
      "input.preset_limit",
      msg("refusal.preset.full", { owner, count: presets.length, limit: PRESET_LIMIT }),
    );
  }
  return [...presets, { name, values: preset.values, from: preset.from, createdAt: now }];
}

export function renamePreset(
  presets: readonly Preset[],
  from: string,
  to: string,
  owner: PresetOwner,
): Preset[] {
  const preset = requirePreset(presets, from, owner);
  const name = checkedName(to);
  const taken = presetNamed(presets, name);
  if (taken && taken !== preset) {
    throw new InputError(
      "input.preset_taken",
      msg("refusal.preset.taken_rename", { name: taken.name, owner }),
    );
  }
  return presets.map((p) => (p === preset ? { ...p, name } : p));
}

export function deletePreset(presets: readonly Preset[], name: string, owner: PresetOwner): Preset[] {
  const preset = requirePreset(presets, name, owner);
  return presets.filter((p) => p !== preset);
}

export function requirePreset(presets: readonly Preset[], name: string, owner: PresetOwner): Preset {
  const preset = presetNamed(presets, name);
  if (!preset) {
    throw new InputError(
      "input.unknown_preset",
      msg("refusal.preset.unknown", { name: clip(name.trim(), 40), owner, names: names(presets) }),
    );
  }
  return preset;
}

/**
 * The preset a command names: the person's, else their `place`'s (server or workspace); unknown
 * names are refused with both lists.
 */
export function findPreset(
  name: string,
  mine: readonly Preset[],
  shared: readonly Preset[],
  place: Place,
): Preset {
  const preset = presetNamed(mine, name) ?? presetNamed(shared, name);
  if (!preset) {
    throw new InputError(
      "input.unknown_preset",
      msg("refusal.preset.unknown_any", {
        name: clip(name.trim(), 40),
        mine: names(mine),
        place,
        shared: names(shared),
        list: command("preset.list"),
      }),
    );
  }
  return preset;
}
