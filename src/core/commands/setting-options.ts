import { z } from "zod";
import type { SETTINGS } from "../preferences/layers.js";
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
 * The settings a preset or a default may hold, as options of the commands that set them (preset
 * save): each takes every value some command accepts; a command it does not suit skips it.
 */
export const SETTING_OPTIONS = {
  aspect_ratio: z.enum(IMAGE_ASPECT_RATIOS).describe("Shape of images and videos").optional(),
  style: z.enum(ANIMATION_STYLES).describe("Animation style of mockup videos").optional(),
  resolution: z.enum(RESOLUTIONS).describe("Resolution of cinematic clips").optional(),
  duration: wholeNumber(1, 30, "Length of cinematic clips in seconds (1-30)").optional(),
  negative_prompt: text(1000, "What images and thumbnails should not show").optional(),
  avatar: id("Avatar of avatar videos (pick from the list)").optional(),
  voice: id("Voice of avatar videos (pick from the list)").optional(),
  full_body: flag("Animate the whole body in avatar videos").optional(),
  delivery: z
    .enum(DELIVERIES)
    .describe("Who sees your jobs: the channel (public) or only you (private)")
    .optional(),
} satisfies Record<(typeof SETTINGS)[number], z.ZodType>;

export const SETTING_PICKS = { avatar: "avatars", voice: "voices" } as const;
