import { createHash } from "node:crypto";
import {
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ChannelType,
  InteractionContextType,
  PermissionFlagsBits,
  type RESTPostAPIApplicationCommandsJSONBody,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type RESTPostAPIContextMenuApplicationCommandsJSONBody,
} from "discord-api-types/v10";
import { IMAGE_INPUTS } from "../core/actions/image-inputs.js";
import {
  type CommandGroup,
  commandGroups,
  describeOptions,
  type OptionInfo,
} from "../core/commands/catalogue.js";
import type { AnyCommand } from "../core/commands/define.js";
import { humanize, isFormOnly } from "./forms.js";
import { DISCORD_LIMITS as L } from "./limits.js";
import { localized } from "./localizations.js";
import { cut } from "./render/text.js";

/**
 * The catalogue as Discord application commands: one top-level command per group with its
 * subcommands (`/image generate`), one per single-word command (`/usage`). Options are typed from
 * the zod schemas (via the catalogue's `describeOptions`); files become attachment options, one
 * per file (`image`, `image_2`, ...), since an attachment option takes a single file.
 */

export type CommandJson = RESTPostAPIChatInputApplicationCommandsJSONBody;

const MANAGE_GUILD = String(PermissionFlagsBits.ManageGuild);

const { GuildInstall, UserInstall } = ApplicationIntegrationType;
const { Guild, BotDM, PrivateChannel } = InteractionContextType;

/**
 * Where each kind of command is offered, sent explicitly on every command: Discord's defaults
 * have changed before and depend on the app's settings at creation time. A person who installed
 * the app to their account has the commands in DMs, group DMs and servers without the bot, where
 * they are their own tenant; admin-only commands stay in servers, except setup's personal side (a
 * person's own key), offered in the DM with the bot. Both fields apply to global commands only.
 * https://discord.com/developers/docs/interactions/application-commands#contexts
 */
const REACH: Record<"everywhere" | "servers" | "serversAndDm", Reach> = {
  everywhere: { integration_types: [GuildInstall, UserInstall], contexts: [Guild, BotDM, PrivateChannel] },
  servers: { integration_types: [GuildInstall], contexts: [Guild] },
  serversAndDm: { integration_types: [GuildInstall, UserInstall], contexts: [Guild, BotDM] },
};

type Reach = Required<Pick<CommandJson, "integration_types" | "contexts">>;

function reachOf(commands: readonly AnyCommand[]): Reach {
  if (!commands.every((command) => command.adminOnly === true)) return REACH.everywhere;
  return commands.every((command) => command.personal === true) ? REACH.serversAndDm : REACH.servers;
}

/** The option names of a file option that takes `max` files: "image", "image_2", ... */
function fileOptionNames(name: string, max: number): string[] {
  return Array.from({ length: max }, (_, i) => (i === 0 ? name : `${name}_${i + 1}`));
}

/** "image_2" -> "image" when the command takes several files as `image`; the name itself otherwise. */
export function fileOptionBase(command: AnyCommand, name: string): string {
  const files = command.files ?? {};
  if (name in files) return name;
  const match = /^(.+)_(\d+)$/.exec(name);
  const base = match?.[1];
  const spec = base === undefined ? undefined : files[base];
  return spec && Number(match![2]) <= spec.max ? base! : name;
}

function scalarOption(info: OptionInfo): APIApplicationCommandBasicOption {
  const common = {
    name: info.name,
    description: cut(info.description, L.commandDescription),
    required: info.required,
  };
  if (info.secret) {
    return {
      ...common,
      type: ApplicationCommandOptionType.Boolean,
      required: false,
      description: cut(
        `Enter the ${humanize(info.name)} in a private form (never shown)`,
        L.commandDescription,
      ),
    };
  }
  const choices = info.choices && info.choices.length <= L.optionChoices ? info.choices : undefined;
  switch (info.type) {
    case "boolean":
      return { ...common, type: ApplicationCommandOptionType.Boolean };
    case "integer":
    case "number": {
      const bounds = {
        ...(info.min !== undefined && { min_value: info.min }),
        ...(info.max !== undefined && { max_value: info.max }),
      };
      return info.type === "integer"
        ? { ...common, ...bounds, type: ApplicationCommandOptionType.Integer }
        : { ...common, ...bounds, type: ApplicationCommandOptionType.Number };
    }
    default:
      return {
        ...common,
        type: ApplicationCommandOptionType.String,
        ...(choices
          ? { choices: choices.map((c) => ({ name: cut(c, L.choiceName), value: c })) }
          : {
              ...(info.pick && { autocomplete: true }),
              ...(info.minLength !== undefined && {
                min_length: Math.min(info.minLength, L.stringOptionMax),
              }),
              ...(info.maxLength !== undefined && {
                max_length: Math.min(info.maxLength, L.stringOptionMax),
              }),
            }),
      };
  }
}

function fileOptions(info: OptionInfo): APIApplicationCommandBasicOption[] {
  const max = info.file?.max ?? 1;
  return fileOptionNames(info.name, max).map((name, i) => ({
    type: ApplicationCommandOptionType.Attachment,
    name,
    description:
      i === 0
        ? cut(info.description, L.commandDescription)
        : cut(`Another file for ${info.name} (${i + 1} of ${max})`, L.commandDescription),
    required: i === 0 && info.required,
  }));
}

/**
 * Beside an option that takes mentions (the budget's `for`), Discord's own pickers of a person, a
 * role and a channel: what is picked arrives as the option's mention (options.ts), as a typed
 * `@name` in the string option does. The words (here, each, everyone) stay in the string option.
 */
export const MENTION_PICKERS = [
  { name: "person", type: ApplicationCommandOptionType.User, what: "a person" },
  { name: "role", type: ApplicationCommandOptionType.Role, what: "a role" },
  { name: "channel", type: ApplicationCommandOptionType.Channel, what: "a channel" },
] as const;

function mentionPickers(info: OptionInfo): APIApplicationCommandBasicOption[] {
  return MENTION_PICKERS.map(({ name, type, what }) => {
    const description = cut(`Or pick ${what} here, in place of ${info.name}`, L.commandDescription);
    return type === ApplicationCommandOptionType.Channel
      ? {
          name,
          description,
          type,
          channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement, ChannelType.GuildVoice],
        }
      : { name, description, type };
  });
}

/** A command's options as Discord takes them: required ones first, form-only ones left to the modal. */
function commandOptions(command: AnyCommand): APIApplicationCommandBasicOption[] {
  const options = describeOptions(command)
    .filter((info) => !isFormOnly(command, info.name))
    .flatMap((info) =>
      info.type === "file"
        ? fileOptions(info)
        : [scalarOption(info), ...(info.mention ? mentionPickers(info) : [])],
    );
  return [...options.filter((o) => o.required), ...options.filter((o) => !o.required)];
}

function topLevel(group: CommandGroup): CommandJson {
  const single =
    group.commands.length === 1 && group.commands[0]!.sub === "" ? group.commands[0]! : undefined;
  const options: APIApplicationCommandOption[] = single
    ? commandOptions(single.command)
    : group.commands.map(({ sub, command }) => ({
        type: ApplicationCommandOptionType.Subcommand,
        name: sub,
        description: cut(command.help, L.commandDescription),
        options: commandOptions(command),
      }));
  // Permissions hide whole commands: a group is hidden only when every subcommand is for admins.
  const adminOnly = group.commands.every(({ command }) => command.adminOnly === true);
  return {
    name: group.name,
    description: cut(group.help, L.commandDescription),
    options,
    ...reachOf(group.commands.map(({ command }) => command)),
    ...(adminOnly && { default_member_permissions: MANAGE_GUILD }),
  };
}

export function applicationCommands(): CommandJson[] {
  return commandGroups()
    .map(topLevel)
    .map((command) => localized(command));
}

/** Apps > "Edit image", ... on a message: the catalogue's images from the chat (no options, no description). */
export function messageCommands(): RESTPostAPIContextMenuApplicationCommandsJSONBody[] {
  return IMAGE_INPUTS.map((input) =>
    localized({
      type: ApplicationCommandType.Message,
      name: input.label,
      ...REACH.everywhere,
    }),
  );
}

/** Everything the bot registers: slash commands and message commands, in one overwrite. */
export function registeredCommands(): RESTPostAPIApplicationCommandsJSONBody[] {
  return [...applicationCommands(), ...messageCommands()];
}

/** Changes whenever anything Discord shows changes; registration on start compares it. */
export function definitionsHash(commands: readonly RESTPostAPIApplicationCommandsJSONBody[]): string {
  return createHash("sha256").update(JSON.stringify(commands)).digest("hex");
}

/** `/image generate` as the catalogue names it: "image.generate"; `/usage`: "usage". */
export function catalogueName(command: string, subcommand: string | null): string {
  return subcommand ? `${command}.${subcommand}` : command;
}
