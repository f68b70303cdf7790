import { ApplicationCommandOptionType, type CommandInteractionOption } from "discord.js";
import type { Attachment } from "../core/base/ports.js";
import type { AnyCommand } from "../core/commands/define.js";
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

/** A picked person, role or channel as the mention a typed one arrives as. */
function mentionOf(option: CommandInteractionOption): string | undefined {
  const id = String(option.value);
  switch (option.type) {
    case ApplicationCommandOptionType.User:
      return `<@${id}>`;
    case ApplicationCommandOptionType.Role:
      return `<@&${id}>`;
    case ApplicationCommandOptionType.Channel:
      return `<#${id}>`;
    case ApplicationCommandOptionType.Mentionable:
      return option.role ? `<@&${id}>` : `<@${id}>`;
    default:
      return undefined;
  }
}

export function readOptions(
  command: AnyCommand | undefined,
  data: readonly CommandInteractionOption[],
): CommandInput {
  const input: CommandInput = { options: {}, attachments: {}, files: {} };
  // What is picked in a mention picker (commands.ts) is the value of the option that takes mentions.
  const mentions = command?.mentions?.[0];
  const picked: string[] = [];
  for (const option of leaf(data)) {
    const mention = mentions === undefined ? undefined : mentionOf(option);
    if (mention !== undefined) {
      picked.push(mention);
    } else if (option.attachment) {
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
  if (mentions !== undefined && picked.length > 0) {
    // Two targets at once (typed and picked) reach the core as one value, which it refuses.
    const typed = input.options[mentions];
    input.options[mentions] = [...(typeof typed === "string" ? [typed] : []), ...picked].join(" ");
  }
  return input;
}
