import type { Card } from "../cards.js";
import type { Json } from "../ports.js";
import { styleLabel } from "./text.js";

/**
 * What a job's result was made with, read from the inputs it kept (the creation request, a
 * mockup's instruction and style), in the order people read them: the words first, then the
 * settings. Ids the service made up (media ids of references) are left out.
 */

const ENTRIES: { key: string; name: string; show?: (value: Json) => string }[] = [
  { key: "prompt", name: "Prompt" },
  { key: "negativePrompt", name: "Negative prompt" },
  { key: "text", name: "Script" },
  { key: "instruction", name: "Instruction" },
  { key: "style", name: "Style", show: (v) => styleLabel(String(v)) },
  { key: "aspectRatio", name: "Aspect ratio" },
  { key: "durationSeconds", name: "Duration", show: (v) => `${v} s` },
  { key: "resolution", name: "Resolution" },
  { key: "seed", name: "Seed" },
  { key: "voiceId", name: "Voice" },
  { key: "avatarId", name: "Avatar" },
];

const record = (value: Json | undefined): Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};

export function recipeOf(inputs: Json): NonNullable<Card["recipe"]> {
  const kept = record(inputs);
  const made = { ...kept, ...record(kept.request) };
  return ENTRIES.flatMap(({ key, name, show }) => {
    const value = made[key];
    if (typeof value !== "string" && typeof value !== "number") return [];
    if (value === "") return [];
    return [{ name, value: show ? show(value) : String(value) }];
  });
}
