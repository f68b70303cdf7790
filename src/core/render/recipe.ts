import type { Card } from "../base/cards.js";
import type { Json } from "../base/ports.js";
import { styleLabel } from "./text.js";

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

export function originLabel(origin: Origin): string {
  switch (origin.from) {
    case "preset":
      return `preset ${origin.preset}`;
    case "person":
      return "your default";
    case "server":
      return "server default";
  }
}

const yesNo = (value: Json) => (value === true || value === "true" ? "yes" : "no");

/** `option`: the command option the kept value comes from, which a preset or default may fill. */
const ENTRIES: { key: string; name: string; option?: string; show?: (value: Json) => string }[] = [
  { key: "prompt", name: "Prompt" },
  { key: "negativePrompt", name: "Negative prompt", option: "negative_prompt" },
  { key: "text", name: "Script" },
  { key: "instruction", name: "Instruction" },
  { key: "style", name: "Style", option: "style", show: (v) => styleLabel(String(v)) },
  { key: "aspectRatio", name: "Aspect ratio", option: "aspect_ratio" },
  { key: "durationSeconds", name: "Duration", option: "duration", show: (v) => `${v} s` },
  { key: "resolution", name: "Resolution", option: "resolution" },
  { key: "seed", name: "Seed" },
  { key: "voiceId", name: "Voice", option: "voice" },
  { key: "avatarId", name: "Avatar", option: "avatar" },
  { key: "im2vid_full", name: "Full body", option: "full_body", show: yesNo },
];

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

/** Each kept setting by the option it came from (what Save as preset keeps). */
export function settingsOf(inputs: Json): Record<string, string | number | boolean> {
  const kept = record(inputs);
  const made = { ...kept, ...record(kept.request) };
  const settings: Record<string, string | number | boolean> = {};
  for (const { key, option } of ENTRIES) {
    const value = made[key];
    if (option && (typeof value === "string" || typeof value === "number" || typeof value === "boolean")) {
      if (value !== "") settings[option] = value;
    }
  }
  // Settings that reach no request (delivery) are known from what filled them.
  for (const [option, { value }] of Object.entries(filledOf(inputs))) {
    if (!ENTRIES.some((entry) => entry.option === option)) settings[option] ??= value;
  }
  return settings;
}

export function recipeOf(inputs: Json): NonNullable<Card["recipe"]> {
  const kept = record(inputs);
  const made = { ...kept, ...record(kept.request) };
  const filled = filledOf(inputs);
  // A value the request does not hold as filled (an avatar the button chose) was not the default's.
  const told = (option: string | undefined, value: Json) => {
    const entry = option === undefined ? undefined : filled[option];
    return entry && String(entry.value) === String(value) ? ` (${originLabel(entry.origin)})` : "";
  };
  const entries = ENTRIES.flatMap(({ key, name, option, show }) => {
    const value = made[key];
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return [];
    if (value === "" || (typeof value === "boolean" && !show)) return [];
    return [{ name, value: `${show ? show(value) : String(value)}${told(option, value)}` }];
  });
  const unnamed = Object.entries(filled).flatMap(([option, { value, origin }]) =>
    ENTRIES.some((entry) => entry.option === option)
      ? []
      : [{ name: styleLabel(option), value: `${String(value)} (${originLabel(origin)})` }],
  );
  return [...entries, ...unnamed];
}
