import type { TenantSettings } from "../../store/tenants.js";
import type { Actor } from "../base/ports.js";
import { commandByName } from "../commands/catalogue.js";
import type { FormDef, StartedJob } from "../commands/define.js";
import { isSetting, type Layer, layersOf } from "../preferences/layers.js";
import { findPreset } from "../preferences/presets.js";
import type { Filled } from "../render/recipe.js";
import { PLACE } from "../render/words.js";
import { personOf } from "../tenancy/tenancy.js";
import type { Core } from "./core.js";

/**
 * A person's presets and defaults as the layers that fill a command's options. Read once per
 * gesture that starts a job, after its ack (as admit reads the tenant): never before it.
 */

/** The preset a command's options (as given, by option) name, if any ("" or a blank value names none). */
function presetName(given: Record<string, unknown>): string | undefined {
  const value = Object.hasOwn(given, "preset") ? given.preset : undefined;
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The layers for `actor`: the preset `given` names (refused when unknown), their defaults, the server's. */
export async function layersFor(
  core: Pick<Core, "preferences">,
  actor: Actor,
  settings: TenantSettings,
  given: Record<string, unknown> = {},
): Promise<Layer[]> {
  const mine = await core.preferences.get(personOf(actor));
  const name = presetName(given);
  const preset =
    name === undefined ? undefined : findPreset(name, mine.presets, settings.presets, PLACE[actor.platform]);
  return layersOf(preset, mine.defaults, settings.defaults);
}

/** The started job, keeping what filled its options (its result's recipe tells it). */
export function keepingFilled(started: StartedJob, filled: Filled): StartedJob {
  return Object.keys(filled).length === 0 ? started : { ...started, inputs: { ...started.inputs, filled } };
}

/**
 * A follow-up's form with the settings of the command it starts that it does not ask (Edit asks
 * only the prompt): filled by the same layers as the command's own, or left out.
 */
export function withUnaskedSettings(form: FormDef): FormDef {
  const target = commandByName(form.name);
  if (!target?.starts) return form;
  const asked = form.options.shape as Record<string, unknown>;
  const unasked = Object.fromEntries(
    Object.entries(target.options.shape as Record<string, unknown>).filter(
      ([option]) => isSetting(option) && !Object.hasOwn(asked, option),
    ),
  );
  return { ...form, options: form.options.extend(unasked) };
}
