import { ApplicationCommandOptionType, type CommandInteractionOption } from "discord.js";
import type { AnyCommand } from "../core/commands/define.js";
import type { Attachment } from "../core/ports.js";
import { fileOptionBase } from "./commands.js";
import { type DiscordFile, userAttachment } from "./files.js";

export interface CommandInput {
  /** Raw values by option name, as Discord typed them; the core validates them. */
  options: Record<string, unknown>;
  /** Files by the catalogue's option name (`image_2` is another file of `image`). */
  attachments: Record<string, Attachment[]>;
  /** The same files as Discord described them: what a form waiting for its submission keeps. */
  files: Record<string, DiscordFile[]>;
}

const NESTING = new Set([
  ApplicationCommandOptionType.Subcommand,
  ApplicationCommandOptionType.SubcommandGroup,
]);

/** The options of the subcommand that was used (or of the command itself). */
function leaf(data: readonly CommandInteractionOption[]): readonly CommandInteractionOption[] {
  const nested = data[0];
  return nested && NESTING.has(nested.type) ? leaf(nested.options ?? []) : data;
}

export function readOptions(
  command: AnyCommand | undefined,
  data: readonly CommandInteractionOption[],
): CommandInput {
  const input: CommandInput = { options: {}, attachments: {}, files: {} };
  for (const option of leaf(data)) {
    if (option.attachment) {
      const name = command ? fileOptionBase(command, option.name) : option.name;
      const { name: fileName, contentType, size, url } = option.attachment;
      const file = { name: fileName, contentType, size, url };
      input.files[name] = [...(input.files[name] ?? []), file];
      input.attachments[name] = [...(input.attachments[name] ?? []), userAttachment(file)];
    } else if (option.value !== undefined) {
      // defineProperty: an option named `__proto__` stays an option (and the core refuses it).
      Object.defineProperty(input.options, option.name, {
        value: option.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return input;
}
