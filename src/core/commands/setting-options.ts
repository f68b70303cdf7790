import { z } from "zod";
import type { Setting } from "../preferences/layers.js";
import {
  ANIMATION_STYLES,
  flag,
  IMAGE_ASPECT_RATIOS,
  id,
  RESOLUTIONS,
  text,
  wholeNumber,
} from "./options.js";
import { DELIVERIES } from "./personal.js";

/**
 * The settings a default or a preset may hold, under the names the commands use: a default fills
 * the option of that name in every command that has one. Each takes every value some command
 * accepts (aspect ratios: the images' five, a superset of the clips'); a command it does not suit
 * skips it.
 */
export const SETTING_SCHEMAS = {
  aspect_ratio: z.enum(IMAGE_ASPECT_RATIOS).describe("Shape of images and videos"),
  style: z.enum(ANIMATION_STYLES).describe("Animation style of mockup videos"),
  resolution: z.enum(RESOLUTIONS).describe("Resolution of cinematic clips"),
  duration: wholeNumber(1, 30, "Length of cinematic clips in seconds (1-30)"),
  negative_prompt: text(1000, "What images and thumbnails should not show"),
  avatar: id("Avatar of avatar videos (pick from the list)"),
  voice: id("Voice of avatar videos (pick from the list)"),
  full_body: flag("Animate the whole body in avatar videos"),
  delivery: z.enum(DELIVERIES).describe("Who sees your jobs: the channel (public) or only you (private)"),
} satisfies Record<Setting, z.ZodType>;

/** The same, each optional: the options of the commands that set some of them (preset save, settings). */
export const SETTING_OPTIONS = Object.fromEntries(
  Object.entries(SETTING_SCHEMAS).map(([name, schema]) => [name, schema.optional()]),
) as { [K in Setting]: z.ZodOptional<(typeof SETTING_SCHEMAS)[K]> };

export const SETTING_PICKS = { avatar: "avatars", voice: "voices" } as const;
