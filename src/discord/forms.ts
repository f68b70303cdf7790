import type { Choice } from "../core/base/ports.js";
import { describeOptions, type OptionInfo } from "../core/commands/catalogue.js";
import type { AnyCommand, FormDef } from "../core/commands/define.js";
import { type FormWords, formWords } from "../core/home/form-words.js";
import { DISCORD_LIMITS } from "./limits.js";
import type { FormField } from "./render/modal.js";

/**
 * Which options a command asks in a modal instead of on the command line: the long description
 * of a photo avatar (five free-text traits are tedious as slash options), and secrets (an API
 * key typed as an option would show in the channel's "used /setup" line and the client's history).
 */

const FORM_ONLY: Readonly<Record<string, readonly string[]>> = {
  "photo_avatar.design": ["gender", "age", "ethnicity", "outfit", "background"],
};

const FORM_PREFIX = "mb1form:";

export function isFormOnly(command: AnyCommand, option: string): boolean {
  return FORM_ONLY[command.name]?.includes(option) ?? false;
}

const described = new WeakMap<FormDef, OptionInfo[]>();

/** Read from the zod schema once per command (or follow-up form): it is asked before every first response. */
export function optionsOf(command: FormDef): OptionInfo[] {
  let options = described.get(command);
  if (!options) {
    options = describeOptions(command);
    described.set(command, options);
  }
  return options;
}

/**
 * The options the modal for this invocation asks: the form-only ones, and the secrets the user
 * asked to enter (a secret is registered as a yes/no option "enter it in a private form").
 * Empty: no modal, the command runs at once.
 */
export function formOptions(command: AnyCommand, given: Record<string, unknown>): OptionInfo[] {
  return optionsOf(command).filter(
    (o) => isFormOnly(command, o.name) || (o.secret === true && given[o.name] === true),
  );
}

/** The command line without the yes/no of its secrets: their values come from the modal. */
export function commandLineOptions(
  command: AnyCommand,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const secrets = new Set<string>(command.secret ?? []);
  return Object.fromEntries(Object.entries(given).filter(([name]) => !secrets.has(name)));
}

const ACRONYMS = new Set(["api", "id", "url"]);

/** "api_key" -> "API key", "photo_avatar.design" -> "Photo avatar design". */
export function humanize(name: string): string {
  const words = name
    .split(/[._\s]+/)
    .filter(Boolean)
    .map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w));
  const [first = "", ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(" ");
}

/**
 * The longest a number option can be typed: its bounds' digits, so that it gets a one-line box
 * (a duration of 1-30 is two characters, not a paragraph of 4000). Undefined for other options.
 */
function numberLength(o: OptionInfo): number | undefined {
  if (o.type !== "integer" && o.type !== "number") return undefined;
  if (o.min === undefined || o.max === undefined) return NUMBER_TEXT_MAX;
  const digits = Math.max(String(o.min).length, String(o.max).length);
  // Room for a decimal point and a few decimals.
  return o.type === "number" ? digits + 4 : digits;
}

/** Any number a person types: JavaScript's largest safe integer has 16 digits. */
const NUMBER_TEXT_MAX = 20;

/** The form the inputs are of, and its reader's words; without them, English and no form. */
export interface FieldsOf {
  form?: FormDef;
  words?: FormWords;
}

/**
 * The inputs of `options`, showing `initial` values (by option name) where given; `picks` are the
 * entries of an option's list (voices), offered in a select since a modal cannot search a list.
 * Labels, descriptions and choices' labels are in the reader's words; choices' values English.
 */
export function formFields(
  options: readonly OptionInfo[],
  initial: Record<string, string> = {},
  picks: Record<string, readonly Choice[]> = {},
  { form, words = formWords("en") }: FieldsOf = {},
): FormField[] {
  return options.map((o) => {
    const choices = picks[o.name]?.length
      ? picks[o.name]
      : o.choices?.map((c) => ({ label: words.choice(c, c), value: c }));
    return {
      name: o.name,
      label: words.label(o.name, humanize(o.name)),
      description: form ? words.description(form, o) : o.description,
      // A secret the user chose to enter must be given; the form-only traits stay optional.
      required: o.required || o.secret === true,
      ...(o.minLength !== undefined && { minLength: o.minLength }),
      maxLength: o.maxLength ?? numberLength(o) ?? DISCORD_LIMITS.textInputMax,
      ...(choices && { choices }),
      ...(o.file && { files: o.file.max }),
      ...(initial[o.name] !== undefined && { value: initial[o.name] }),
    };
  });
}

export function formCustomId(key: string): string {
  return `${FORM_PREFIX}${key}`;
}

export function formKeyOf(customId: string): string | undefined {
  return customId.startsWith(FORM_PREFIX) ? customId.slice(FORM_PREFIX.length) || undefined : undefined;
}
