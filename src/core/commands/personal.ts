import { z } from "zod";
import type { AnyCommand } from "./define.js";

/**
 * Options every command that starts a job takes besides its own: how its result is delivered.
 * They are filled like any option, from the person's and the server's defaults when left out.
 */

export const DELIVERIES = ["public", "private"] as const;
export type Delivery = (typeof DELIVERIES)[number];

const personalOptions = {
  delivery: z
    .enum(DELIVERIES)
    .describe("Who sees the job and its result: the channel (public) or only you (private)")
    .optional(),
};

export function withPersonalOptions(command: AnyCommand): AnyCommand {
  return command.starts ? { ...command, options: command.options.extend(personalOptions) } : command;
}
