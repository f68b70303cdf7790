import { z } from "zod";
import type { AnyCommand } from "../core/commands/define.js";
import { InputError } from "../core/commands/errors.js";
import { parseOptions } from "../core/commands/validate.js";
import { english, type Translator } from "../core/i18n/translator.js";

/**
 * Inline errors of a submitted form (response_action "errors"), in the core's own words: each
 * option is validated by the core's parseOptions as if the command had only that option, so
 * every message lands on its field. What needs several fields or the service (a script or an
 * audio file, an avatar that exists) is the core's to answer after the form closes. Said in the
 * language of the person who submitted (`t`).
 */
export function fieldErrors(
  command: AnyCommand,
  options: Record<string, string>,
  t: Translator = english(),
): Record<string, string> {
  const errors: Record<string, string> = {};
  const shape = command.options.shape as Record<string, z.ZodType>;
  for (const [name, schema] of Object.entries(shape)) {
    const single = { ...command, options: z.object({ [name]: schema }), files: {} };
    try {
      parseOptions(single, options[name] === undefined ? {} : { [name]: options[name] });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      errors[name] = typeof error.said === "string" ? error.said : t.say(error.said);
    }
  }
  return errors;
}
