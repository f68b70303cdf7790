import type { z } from "zod";
import type { Attachment } from "../base/ports.js";
import { isMessageKey } from "../i18n/catalogues.js";
import { type Msg, msg } from "../i18n/msg.js";
import { fill, type Layer } from "../preferences/layers.js";
import type { Filled } from "../render/recipe.js";
import { clip } from "../render/text.js";
import type { FormDef } from "./define.js";
import { InputError } from "./errors.js";
import { effectiveType, typeLabel } from "./files.js";

/** "aspect-ratio" (accepted on Slack) and "aspect_ratio" are the same option. */
export function optionKey(name: string): string {
  return name.trim().toLowerCase().replaceAll("-", "_");
}

/**
 * Raw values as their options name them: how the core reads what a gesture gave, once, where a
 * command comes in (flows/command.ts) and wherever raw values are checked.
 */
export function byOption<T>(raw: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(raw).map(([name, value]) => [optionKey(name), value]));
}

type Issue = z.core.$ZodIssue;

/** What is wrong with one option's value, as a message of the catalogues. */
function explain(issue: Issue, given: unknown): Msg {
  switch (issue.code) {
    case "invalid_type":
      return given === undefined ? msg("input.is_required") : msg("input.must_be", { kind: issue.expected });
    case "invalid_value":
      return msg("input.one_of", { values: issue.values.map(String).join(", ") });
    case "invalid_union":
      // The only unions in the catalogue are the yes/no flags.
      return msg("input.must_be", { kind: "boolean" });
    case "too_small":
      if (issue.origin === "string") {
        return Number(issue.minimum) <= 1
          ? msg("input.not_empty")
          : msg("input.min_characters", { n: String(issue.minimum) });
      }
      // As written, not as a number of the reader's language: "2147483647", an option's bound.
      return msg("input.at_least", { n: String(issue.minimum) });
    case "too_big":
      return issue.origin === "string"
        ? msg("input.max_characters", { n: String(issue.maximum) })
        : msg("input.at_most", { n: String(issue.maximum) });
    case "invalid_format":
      return issue.message.startsWith("Invalid") ? msg("input.wrong_format") : ownWords(issue.message);
    case "custom":
      // A refinement whose message is a catalogue key, its values in the issue's params.
      return isMessageKey(issue.message) ? msg(issue.message, issue.params) : ownWords(issue.message);
    default:
      return ownWords(issue.message);
  }
}

/** A check's own sentence (a refinement of an option's schema), still English in every language. */
const ownWords = (text: string) => msg("input.own_words", { text });

/** One option's problem, with the value given when it can be shown. */
function problem(option: string, issue: Issue, value: unknown): Msg {
  const what = explain(issue, value);
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? msg("input.problem_given", { option, what, value: clip(String(value), 40) })
    : msg("input.problem", { option, what });
}

/** Missing values: adapters send "" for an empty modal field and null for an unset one. */
function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/**
 * Raw adapter values -> the command's typed options, with `layers` (a preset, the person's and the
 * server's defaults) filling what the user left out. Every problem is reported at once, each naming
 * the option and what it accepts.
 */
export function parseOptions<C extends FormDef>(
  def: C,
  raw: Record<string, unknown>,
  layers: readonly Layer[] = [],
): z.output<C["options"]> {
  return parseFilled(def, raw, layers).options;
}

/** parseOptions, also telling which options a layer filled (kept by the job, shown in its recipe). */
export function parseFilled<C extends FormDef>(
  def: C,
  raw: Record<string, unknown>,
  layers: readonly Layer[],
): { options: z.output<C["options"]>; filled: Filled } {
  const shape = def.options.shape as Record<string, z.ZodType>;
  const fileOptions = new Set(Object.keys(def.files ?? {}));
  const given: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(byOption(raw))) {
    // Own keys only: `constructor` or `__proto__` is no option, whatever Object.prototype holds.
    if (Object.hasOwn(shape, key)) {
      if (!isBlank(value)) given[key] = value;
    } else if (!fileOptions.has(key)) {
      unknown.push(key);
    }
  }
  if (unknown.length > 0) {
    const known = [...Object.keys(shape), ...fileOptions].join(", ") || "none";
    throw new InputError(
      "input.unknown_option",
      msg("input.unknown_option", {
        command: def.name.replace(".", " "),
        unknown: unknown.join(", "),
        known,
      }),
    );
  }
  const filled = fill(shape, given, layers);
  for (const [option, { value }] of Object.entries(filled)) given[option] = value;

  const parsed = (def.options as z.ZodObject).safeParse(given);
  if (parsed.success) return { options: parsed.data as z.output<C["options"]>, filled };
  // One problem per option and kind: zod may report the same twice.
  const seen = new Map<string, Msg>();
  for (const issue of parsed.error.issues) {
    const option = String(issue.path[0] ?? "options");
    const said = problem(option, issue, given[option]);
    seen.set(JSON.stringify(said), said);
  }
  throw new InputError("input.invalid_option", msg("input.problems", { problems: [...seen.values()] }));
}

/**
 * The files of each option, checked for count, type and size before anything reaches the service;
 * their content types are normalized (the upload declares them).
 */
export function checkFiles(
  def: Pick<FormDef, "name" | "files">,
  attachments: Record<string, Attachment[]>,
): Record<string, Attachment[]> {
  const specs = def.files ?? {};
  const given = byOption(attachments);
  const stray = Object.keys(given).filter(
    (name) => !Object.hasOwn(specs, name) && (given[name]?.length ?? 0) > 0,
  );
  if (stray.length > 0) {
    const accepted = Object.keys(specs);
    throw new InputError(
      "input.unexpected_file",
      accepted.length > 0
        ? msg("input.files_only_as", {
            command: def.name.replace(".", " "),
            accepted: accepted.join(", "),
            stray: stray.join(", "),
          })
        : msg("input.no_files", { command: def.name.replace(".", " ") }),
    );
  }

  const checked: Record<string, Attachment[]> = {};
  for (const [option, spec] of Object.entries(specs)) {
    const files = (Object.hasOwn(given, option) ? given[option] : undefined)?.filter(Boolean) ?? [];
    const accepts = { types: typeLabel(spec.types), size: { bytes: spec.maxBytes } };
    if (files.length === 0 && spec.required) {
      throw new InputError("input.missing_file", msg("input.missing_file", { option, ...accepts }));
    }
    if (files.length > spec.max) {
      throw new InputError(
        "input.too_many_files",
        msg("input.too_many_files", { option, max: spec.max, count: files.length }),
      );
    }
    checked[option] = files.map((file) => {
      const contentType = effectiveType(file.name, file.contentType);
      if (!spec.types.includes(contentType)) {
        throw new InputError(
          "input.file_type",
          msg("input.file_type", {
            file: clip(file.name, 60),
            option,
            type: contentType || "unknown",
            ...accepts,
          }),
        );
      }
      if (file.size > spec.maxBytes) {
        throw new InputError(
          "input.file_size",
          msg("input.file_size", {
            file: clip(file.name, 60),
            size: { bytes: file.size },
            limit: { bytes: spec.maxBytes },
            option,
          }),
        );
      }
      if (file.size <= 0) {
        throw new InputError("input.file_empty", msg("input.file_empty", { file: clip(file.name, 60) }));
      }
      return contentType === file.contentType ? file : { ...file, contentType, open: () => file.open() };
    });
  }
  return checked;
}
