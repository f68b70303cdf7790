import type { Card } from "../base/cards.js";
import type { Json } from "../base/ports.js";
import { english, type Translator } from "../i18n/translator.js";
import { optionName } from "./settings.js";

/**
 * What a job's result was made with, read from the inputs it kept (the creation request, a
 * mockup's instruction and style), in the order people read them: the words first, then the
 * settings. Ids the service made up (media ids of references) are left out. A setting the person
 * left out and a preset or a default filled says so ("16:9 (your default)").
 */

/** Where a value the command was not given came from. */
export type Origin = { from: "preset"; preset: string } | { from: "person" } | { from: "server" };

/** The values a preset or default filled, by option name, as a job keeps them in `inputs.filled`. */
export type Filled = Record<string, { value: string | number | boolean; origin: Origin }>;

export function originLabel(origin: Origin, t: Translator = english()): string {
  return t.text("recipe.origin", {
    from: origin.from,
    preset: origin.from === "preset" ? origin.preset : "",
  });
}

/**
 * An option a job's command declares (commands/declare.ts): the request field it fills, and how a
 * kept value reads. The commands hand their declarations in: what a result shows needs nothing
 * here (the reading order below only ranks the options it knows).
 */
export interface MadeWith {
  option: string;
  field: string;
  show?: (value: Json) => string;
}

/**
 * The order people read a recipe in: the words first, then the settings. An option not listed
 * (one added later) follows these, in its command's order.
 */
const READING = [
  "prompt",
  "negative_prompt",
  "script",
  "instruction",
  "style",
  "aspect_ratio",
  "duration",
  "resolution",
  "seed",
  "voice",
  "avatar",
  "full_body",
];

/** `options` in reading order (a Remix form asks them in the order its result showed them). */
export function inReadingOrder<T extends { option: string }>(options: readonly T[]): T[] {
  const rank = (o: T) => {
    const at = READING.indexOf(o.option);
    return at === -1 ? READING.length : at;
  };
  return options
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i)
    .map(({ o }) => o);
}

const record = (value: Json | undefined): Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};

const ORIGINS = new Set(["preset", "person", "server"]);

/** The `filled` a job kept; entries an older or unknown version wrote are left out. */
export function filledOf(inputs: Json): Filled {
  const filled: Filled = {};
  for (const [option, entry] of Object.entries(record(record(inputs).filled))) {
    const { value, origin } = record(entry);
    const { from, preset } = record(origin);
    if (!["string", "number", "boolean"].includes(typeof value) || !ORIGINS.has(String(from))) continue;
    if (from === "preset" && typeof preset !== "string") continue;
    filled[option] = {
      value: value as string | number | boolean,
      origin: from === "preset" ? { from, preset: preset as string } : { from: from as "person" | "server" },
    };
  }
  return filled;
}

/**
 * What `option` was made with: the value its field holds in the request the job kept; a job that
 * kept no request (mockups, an avatar video from audio) kept what it shows by option name.
 */
export function keptValue(
  inputs: Json,
  { option, field }: Pick<MadeWith, "option" | "field">,
): Json | undefined {
  const kept = record(inputs);
  return Object.hasOwn(kept, "request") ? record(kept.request)[field] : kept[option];
}

export const isScalar = (value: Json | undefined): value is string | number | boolean =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

export function recipeOf(
  inputs: Json,
  options: readonly MadeWith[],
  t: Translator = english(),
): NonNullable<Card["recipe"]> {
  const filled = filledOf(inputs);
  // A value the request does not hold as filled (an avatar the button chose) was not the default's.
  const told = (option: string, value: Json) => {
    const entry = filled[option];
    return entry && String(entry.value) === String(value) ? ` (${originLabel(entry.origin, t)})` : "";
  };
  const entries = inReadingOrder(options).flatMap((made) => {
    const value = keptValue(inputs, made);
    if (!isScalar(value) || value === "" || (typeof value === "boolean" && !made.show)) return [];
    const shown = made.show ? made.show(value) : String(value);
    return [{ name: optionName(made.option, t), value: `${shown}${told(made.option, value)}` }];
  });
  const unnamed = Object.entries(filled).flatMap(([option, { value, origin }]) =>
    options.some((made) => made.option === option)
      ? []
      : [{ name: optionName(option, t), value: `${String(value)} (${originLabel(origin, t)})` }],
  );
  return [...entries, ...unnamed];
}
