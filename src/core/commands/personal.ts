import { z } from "zod";
import { PRESET_NAME_MAX } from "../preferences/presets.js";
import type { AnyCommand } from "./define.js";

/**
 * Options every command that starts a job takes besides its own: how its result is delivered,
 * and a preset whose settings fill the options left out (before the person's and the server's
 * defaults). `delivery` is filled like any setting; `preset` never is.
 */

export const DELIVERIES = ["public", "private"] as const;
export type Delivery = (typeof DELIVERIES)[number];

const personalOptions = {
  delivery: z
    .enum(DELIVERIES)
    .describe("Who sees the job and its result: the channel (public) or only you (private)")
    .optional(),
  preset: z
    .string()
    .trim()
    .min(1)
    .max(PRESET_NAME_MAX)
    .describe("A preset (yours or the server's) whose settings fill the options you leave out")
    .optional(),
};

export function withPersonalOptions(command: AnyCommand): AnyCommand {
  return command.starts
    ? {
        ...command,
        options: command.options.extend(personalOptions),
        picks: { ...command.picks, preset: "presets" },
      }
    : command;
}
