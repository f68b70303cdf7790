import { z } from "zod";
import { sliceWhole } from "../render/text.js";

/**
 * Option types shared by the catalogue. Values arrive raw: Slack sends every value as a string,
 * Discord sends typed values, so numbers and flags accept both forms.
 */

export const IMAGE_ASPECT_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4"] as const;
export const WIDE_OR_TALL = ["16:9", "9:16"] as const;
export const ANIMATION_STYLES = [
  "luxury_macro",
  "neo_noir_night",
  "warm_lifestyle_sunset",
  "futuristic_clean_studio",
  "cyberpunk_showcase",
  "film_35mm_editorial",
  "high_fashion_runway",
  "nature_premium",
  "custom",
] as const;
export const ASSET_TYPES = ["logo", "product"] as const;
export const RESOLUTIONS = ["480p", "720p", "1080p"] as const;

export type AnimationStyle = (typeof ANIMATION_STYLES)[number];

export function text(max: number, description: string) {
  return z.string().trim().min(1).max(max).describe(description);
}

/**
 * Decimal notation only, as people write a count or a seed: not "0x10", "1e3", "0b1" or " ",
 * which Number() takes. "1.5" passes here so that it is refused as "not a whole number".
 */
const DECIMAL = /^[+-]?\d+(?:\.\d+)?$/;

export function wholeNumber(min: number, max: number, description: string) {
  return z
    .preprocess(
      (value) =>
        typeof value === "string" ? (DECIMAL.test(value.trim()) ? Number(value) : Number.NaN) : value,
      z.number().int().min(min).max(max),
    )
    .describe(description);
}

/** A yes/no option: `true` from Discord, "true"/"yes"/"1" from Slack (a bare `--flag` is "true"). */
export function flag(description: string) {
  return z.union([z.boolean(), z.stringbool()]).describe(description);
}

/** Service ids are opaque; this only keeps obvious junk (spaces, huge values) away from the service. */
export function id(description: string) {
  return z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[\w.:-]+$/, "is not an id")
    .describe(description);
}

export const seed = wholeNumber(0, 2_147_483_647, "Number for reproducible results (same seed, same image)");
export const page = wholeNumber(1, 1000, "Page of the list to show").default(1);

/** The service requires a name on most creations: the first words of the prompt make a good one. */
export function titleFrom(prompt: string, max = 60): string {
  const oneLine = prompt.replace(/\s+/g, " ").trim();
  if (oneLine.length <= max) return oneLine;
  const cut = sliceWhole(oneLine, max - 1);
  const atWord = cut.lastIndexOf(" ");
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

/** A seed for "Regenerate": anything but the previous one. */
export function newSeed(previous: number | undefined, random: () => number = Math.random): number {
  const next = Math.floor(random() * 2_147_483_647);
  return next === previous ? (next + 1) % 2_147_483_647 : next;
}
