import type { JobRecord } from "../../store/jobs.js";
import type { OptionValues } from "../../store/preferences.js";
import { translatorFor } from "../i18n/translator.js";
import { isSetting } from "../preferences/layers.js";
import { viewOf } from "../render/job.js";
import { filledOf, isScalar, keptValue, type MadeWith, recipeOf } from "../render/recipe.js";
import { commandByName } from "./catalogue.js";
import { type Declared, declaredOf } from "./declare.js";
import type { AnyCommand } from "./define.js";

/**
 * What a result was made with, read through its command's declaration: "How it was made", the
 * settings Save as preset keeps, and what Remix asks again.
 */

/** The options a job's command declares, but its name (the title says it; a Remix names anew). */
export function madeWith(command: Pick<AnyCommand, "options"> | undefined): Declared[] {
  return command ? declaredOf(command.options).filter((made) => !made.names) : [];
}

const ofJob = (job: Pick<JobRecord, "command">): MadeWith[] => madeWith(commandByName(job.command));

/** "How it was made" of a job's result. */
export function recipeFor(job: Pick<JobRecord, "command" | "inputs" | "id">) {
  return recipeOf(job.inputs, ofJob(job), translatorFor(viewOf(job).locale));
}

/**
 * The settings a job was made with, by option (what Save as preset keeps): not its prompt, script,
 * name or seed, which are what a job is about. Settings that reach no request (delivery) are
 * known from what filled them.
 */
export function settingsFor(job: Pick<JobRecord, "command" | "inputs">): OptionValues {
  const made = ofJob(job);
  const settings: OptionValues = {};
  for (const option of made) {
    const value = keptValue(job.inputs, option);
    if (isSetting(option.option) && isScalar(value) && value !== "") settings[option.option] = value;
  }
  for (const [option, { value }] of Object.entries(filledOf(job.inputs))) {
    if (isSetting(option) && !made.some((m) => m.option === option)) settings[option] = value;
  }
  return settings;
}
