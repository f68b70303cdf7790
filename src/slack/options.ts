import { describeOptions, type OptionInfo } from "../core/commands/catalogue.js";
import type { FormDef } from "../core/commands/define.js";

/**
 * describeOptions reads the zod schemas (z.toJSONSchema) on every call, about a quarter of a
 * millisecond per command: in a burst of commands that is time every later ack waits for. The
 * catalogue does not change while the bot runs, so each command is described once.
 */
const described = new WeakMap<FormDef, readonly OptionInfo[]>();

export function optionsOf(command: FormDef): readonly OptionInfo[] {
  let infos = described.get(command);
  if (!infos) {
    infos = describeOptions(command);
    described.set(command, infos);
  }
  return infos;
}
