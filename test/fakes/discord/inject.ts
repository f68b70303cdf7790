import {
  type APIApplicationCommand,
  type APIApplicationCommandOption,
  type APIAttachment,
  type APIInteraction,
  type APIMessage,
  type APIUser,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ChannelType,
  ComponentType,
  InteractionType,
  Locale,
  MessageFlags,
  ApplicationCommandOptionType as Opt,
} from "discord-api-types/v10";
import { watched } from "../watch.js";
import type { Clock } from "./clock.js";
import { interactionBase, type Owners, ownersOf } from "./payloads.js";
import { walkComponents } from "./rules.js";
import type { InteractionRecord, World } from "./state.js";

/** A file a test hands to the fake as if a user had attached it. */
export interface FakeFile {
  name: string;
  /** Discord leaves content_type out when it cannot tell; so does the fake when this is absent. */
  contentType?: string;
  data: Uint8Array | string;
}

export type OptionValue = string | number | boolean;

interface Actor {
  /** Who acts; the seeded `users.requester` when absent. */
  user?: APIUser | string;
}

export interface CommandInput extends Actor {
  name: string;
  subcommand?: string;
  group?: string;
  /** By option name; user, channel, role and mentionable options take ids. */
  options?: Record<string, OptionValue>;
  /** Files for attachment options. */
  attachments?: (FakeFile & { option: string })[];
  /**
   * Where the command is used: a channel of a guild (with the bot, or without it for a person who
   * installed the app), or a group DM the person is in; the seeded channel when absent.
   */
  channelId?: string;
  /** false: use the command in a DM with the bot. */
  guild?: boolean;
}

export interface AutocompleteInput extends Omit<CommandInput, "attachments"> {
  /** The option being typed in. */
  focused: string;
  /** What the user typed so far; Discord sends it as typed, unchecked. */
  value: string;
}

export interface MessageCommandInput extends Actor {
  /** The message command's registered name: "Edit image". */
  name: string;
  /** The message it is used on. */
  message: APIMessage | string;
}

/** What the fake dispatched, so a test can follow what the bot did with it. */
export interface InjectedInteraction {
  id: string;
  token: string;
  type: InteractionType;
  payload: APIInteraction;
}

export interface InjectorDeps {
  world: World;
  clock: Clock;
  defaultUserId: string;
  defaultChannelId: string;
  dispatch(payload: APIInteraction): Promise<void>;
}

type Json = Record<string, unknown>;
type Resolved = Partial<
  Record<"users" | "members" | "roles" | "channels" | "attachments", Record<string, unknown>>
>;

const fail = (message: string): never => {
  throw new Error(`fake Discord: ${message}`);
};

/**
 * Whether `typed` names a command, subcommand or option as a person whose client is in `locale`
 * sees it: its `name_localizations` entry there, or its own name. Whichever they typed, the
 * interaction carries the own name, as Discord's does.
 */
const names = (
  entity: { name: string; name_localizations?: Partial<Record<string, string | null>> | null },
  typed: string,
  locale: string,
) => typed === entity.name || typed === entity.name_localizations?.[locale];

/**
 * Builds interactions the way Discord's client would: only for registered commands, with the
 * option types, choices, bounds and permissions the registration declares, and only for
 * components that are on a message and enabled. A test that injects what no user could send fails.
 */
export function createInjector(deps: InjectorDeps) {
  const { world } = deps;

  const userIdOf = (user: APIUser | string | undefined) => {
    const id = typeof user === "string" ? user : (user?.id ?? deps.defaultUserId);
    world.user(id);
    return id;
  };

  async function inject(
    type: InteractionType,
    userId: string,
    channelId: string,
    owners: Owners,
    data: Json,
    source?: { message: APIMessage },
  ): Promise<InjectedInteraction> {
    const id = world.ids.snowflake();
    const token = world.ids.interactionToken(id);
    const base = interactionBase(world, { id, token, type, userId, channelId, owners });
    watched.given(data);
    const payload = {
      ...base,
      data,
      ...(source ? { message: structuredClone(source.message) } : {}),
    } as unknown as APIInteraction;
    const record: InteractionRecord = {
      id,
      token,
      type,
      createdAt: deps.clock.now(),
      payload,
      userId,
      channelId,
      ...(payload.guild_id ? { guildId: payload.guild_id } : {}),
      ...(source ? { sourceMessageId: source.message.id } : {}),
      stage: "new",
      followupIds: [],
      callbacks: [],
    };
    world.interactions.set(id, record);
    await deps.dispatch(payload);
    return { id, token, type, payload };
  }

  function place(input: CommandInput): { channelId: string; guildId?: string; userId: string } {
    const userId = userIdOf(input.user);
    if (input.guild === false) return { channelId: world.dmChannel(userId).id, userId };
    const channelId = input.channelId ?? deps.defaultChannelId;
    const channel = world.channels.get(channelId);
    if (channel?.type === ChannelType.DM) {
      if (channel.recipients?.[0]?.id !== userId) fail(`${channelId} is another user's DM with the bot`);
      return { channelId, userId };
    }
    if (channel?.type === ChannelType.GroupDM) {
      if (!channel.recipients?.some((u) => u.id === userId))
        fail(`user ${userId} is not in group DM ${channelId}`);
      return { channelId, userId };
    }
    if (!channel || !("guild_id" in channel) || !channel.guild_id)
      return fail(`${channelId} is not a guild channel`);
    if (!world.guild(channel.guild_id).members.has(userId))
      fail(`user ${userId} is not in guild ${channel.guild_id}`);
    return { channelId, guildId: channel.guild_id, userId };
  }

  /**
   * The command as the person's client offers it where they are, with the installations it comes
   * through: its contexts must include the place, and an installation its integration types allow
   * must reach there (the server's, or the person's own).
   */
  function findCommand(
    name: string,
    where: { channelId: string; guildId?: string; userId: string },
    type: ApplicationCommandType = ApplicationCommandType.ChatInput,
  ): { command: APIApplicationCommand; owners: Owners } {
    const { guildId, userId, channelId } = where;
    const guildCommands = guildId ? [...(world.guildCommands.get(guildId)?.values() ?? [])] : [];
    const all = [...guildCommands, ...world.globalCommands.values()];
    const locale = world.locales.get(userId) ?? Locale.EnglishUS;
    const command = all.find((c) => names(c, name, locale) && (c.type ?? 1) === type);
    if (!command) {
      return fail(
        `/${name} is not registered here (registered: ${all.map((c) => c.name).join(", ") || "none"})`,
      );
    }
    // Guild commands are the guild's own install; global ones default to it, as Discord's do.
    const types = command.guild_id
      ? [ApplicationIntegrationType.GuildInstall]
      : (command.integration_types ?? [ApplicationIntegrationType.GuildInstall]);
    const owners = ownersOf(world, channelId, userId, types);
    const group = world.channels.get(channelId)?.type === ChannelType.GroupDM;
    if (group) {
      if (command.guild_id || !command.contexts?.includes(2)) fail(`/${name} cannot be used in a group DM`);
    } else if (!guildId) {
      const dmAllowed = command.contexts ? command.contexts.includes(1) : command.dm_permission !== false;
      if (command.guild_id || !dmAllowed) fail(`/${name} cannot be used in a DM with the bot`);
    } else {
      if (command.contexts && !command.contexts.includes(0)) fail(`/${name} cannot be used in a guild`);
      const needed = command.default_member_permissions;
      // The server's permission settings are for the server's install of the app.
      const hides = needed != null && owners["0"] !== undefined;
      if (hides && (world.permissions(guildId, userId) & BigInt(needed)) !== BigInt(needed)) {
        fail(`/${name} is hidden from user ${userId}: it needs permissions ${needed}`);
      }
    }
    if (!owners["0"] && !owners["1"]) {
      fail(`/${name}: no installation of the app reaches user ${userId} in channel ${channelId}`);
    }
    return { command, owners };
  }

  /**
   * A component's installations are those of the message it is on: the interaction that made it
   * (a click by anyone else still comes through the requester's install); a channel message the
   * bot posted itself comes through the server's install.
   */
  function ownersOfMessage(message: APIMessage, userId: string): Owners {
    const made = [...world.interactions.values()].find(
      (i) => i.originalMessageId === message.id || i.followupIds.includes(message.id),
    );
    const owners = made?.payload.authorizing_integration_owners as Owners | undefined;
    return owners ?? ownersOf(world, message.channel_id, userId, [ApplicationIntegrationType.GuildInstall]);
  }

  /** Descends into the group and subcommand; returns the options there and a wrapper for the values. */
  function descend(command: APIApplicationCommand, input: CommandInput, locale: string) {
    let level = (command.options ?? []) as APIApplicationCommandOption[];
    const wrap: ((options: Json[]) => Json[])[] = [];
    if (input.group) {
      const group = level.find((o) => o.type === Opt.SubcommandGroup && names(o, input.group!, locale));
      if (!group || group.type !== Opt.SubcommandGroup)
        return fail(`/${command.name} has no group ${input.group}`);
      wrap.push((options) => [{ type: Opt.SubcommandGroup, name: group.name, options }]);
      level = group.options ?? [];
    }
    const subcommands = level.filter((o) => o.type === Opt.Subcommand || o.type === Opt.SubcommandGroup);
    if (subcommands.length && !input.subcommand) {
      fail(`/${command.name} needs one of: ${subcommands.map((o) => o.name).join(", ")}`);
    }
    if (input.subcommand) {
      const sub = level.find((o) => o.type === Opt.Subcommand && names(o, input.subcommand!, locale));
      if (!sub || sub.type !== Opt.Subcommand)
        return fail(`/${command.name} has no subcommand ${input.subcommand}`);
      wrap.unshift((options) => [{ type: Opt.Subcommand, name: sub.name, options }]);
      level = (sub.options ?? []) as APIApplicationCommandOption[];
    }
    return { level, wrap: (options: Json[]) => wrap.reduce((inner, w) => w(inner), options) };
  }

  function storeUpload(channelId: string, file: FakeFile): APIAttachment {
    const data = typeof file.data === "string" ? Buffer.from(file.data) : Buffer.from(file.data);
    const attachment = world.storeFile(channelId, {
      filename: file.name,
      contentType: file.contentType ?? "application/octet-stream",
      data,
    });
    if (!file.contentType) delete attachment.content_type;
    // Files attached to an interaction live only as long as its data.
    return { ...attachment, ephemeral: true };
  }

  function resolveId(
    option: { type: number; name: string },
    id: string,
    guildId: string | undefined,
    resolved: Resolved,
  ) {
    const user = world.users.get(id);
    const role = guildId ? world.guild(guildId).roles.find((r) => r.id === id) : undefined;
    const channel = world.channels.get(id);
    const put = (key: keyof Resolved, value: unknown) => {
      resolved[key] = { ...resolved[key], [id]: value };
    };
    const putUser = () => {
      if (!user) return false;
      put("users", user);
      if (guildId && world.guild(guildId).members.has(id)) {
        const { user: _omitted, ...member } = world.member(guildId, id);
        put("members", { ...member, permissions: world.permissions(guildId, id).toString() });
      }
      return true;
    };
    const putRole = () => {
      if (!role) return false;
      put("roles", role);
      return true;
    };
    const putChannel = () => {
      if (!channel) return false;
      put("channels", { id, type: channel.type, name: channel.name, permissions: "0" });
      return true;
    };
    const ok =
      option.type === Opt.User
        ? putUser()
        : option.type === Opt.Role
          ? putRole()
          : option.type === Opt.Channel
            ? putChannel()
            : putUser() || putRole();
    if (!ok) fail(`option ${option.name}: ${id} is not a known ${Opt[option.type]}`);
  }

  function checkValue(option: APIApplicationCommandOption, value: OptionValue) {
    const where = `option ${option.name}`;
    const expected: Partial<Record<Opt, string>> = {
      [Opt.String]: "string",
      [Opt.Integer]: "number",
      [Opt.Number]: "number",
      [Opt.Boolean]: "boolean",
    };
    const kind = expected[option.type] ?? "string";
    if (typeof value !== kind) fail(`${where} takes a ${Opt[option.type]}, got ${JSON.stringify(value)}`);
    if (option.type === Opt.Integer && !Number.isInteger(value)) fail(`${where} takes an integer`);
    if ("choices" in option && option.choices?.length && !option.choices.some((c) => c.value === value)) {
      fail(`${where}: ${JSON.stringify(value)} is not one of its choices`);
    }
    if (typeof value === "string" && option.type === Opt.String) {
      if (value.length < (option.min_length ?? 0) || value.length > (option.max_length ?? 6000)) {
        fail(`${where}: length ${value.length} is outside its bounds`);
      }
    }
    if (typeof value === "number" && (option.type === Opt.Integer || option.type === Opt.Number)) {
      if (value < (option.min_value ?? -(2 ** 53)) || value > (option.max_value ?? 2 ** 53)) {
        fail(`${where}: ${value} is outside its bounds`);
      }
    }
  }

  function commandData(input: CommandInput | AutocompleteInput, autocomplete: boolean) {
    const where = place(input);
    const { command, owners } = findCommand(input.name, where);
    const locale = world.locales.get(where.userId) ?? Locale.EnglishUS;
    const { level, wrap } = descend(command, input, locale);
    // Options typed under the names the person's client shows, sent under their own names.
    const given = { ...input.options };
    for (const option of level) {
      const shown = (
        option.name_localizations as Partial<Record<string, string | null>> | null | undefined
      )?.[locale];
      if (shown && shown !== option.name && shown in given) {
        given[option.name] = given[shown]!;
        delete given[shown];
      }
    }
    const files = "attachments" in input ? [...(input.attachments ?? [])] : [];
    const focused = "focused" in input ? input.focused : undefined;
    const resolved: Resolved = {};
    const values: Json[] = [];
    for (const option of level) {
      if (focused !== undefined && names(option, focused, locale)) {
        if (!("autocomplete" in option) || !option.autocomplete)
          fail(`option ${option.name} has no autocomplete`);
        values.push({
          type: option.type,
          name: option.name,
          value: (input as AutocompleteInput).value,
          focused: true,
        });
      } else if (option.type === Opt.Attachment) {
        const file = files.find((f) => names(option, f.option, locale));
        if (file) {
          files.splice(files.indexOf(file), 1);
          const attachment = storeUpload(where.channelId, file);
          resolved.attachments = { ...resolved.attachments, [attachment.id]: attachment };
          values.push({ type: option.type, name: option.name, value: attachment.id });
        } else if (option.required && !autocomplete) {
          fail(`/${command.name} needs the attachment ${option.name}`);
        }
      } else if (option.name in given) {
        const value = given[option.name]!;
        delete given[option.name];
        checkValue(option, value);
        if ([Opt.User, Opt.Role, Opt.Channel, Opt.Mentionable].includes(option.type)) {
          resolveId(option, String(value), where.guildId, resolved);
        }
        values.push({ type: option.type, name: option.name, value });
      } else if ("required" in option && option.required && !autocomplete) {
        fail(`/${command.name} needs the option ${option.name}`);
      }
    }
    const unknown = [...Object.keys(given), ...files.map((f) => f.option)];
    if (unknown.length) fail(`/${command.name} has no option ${unknown.join(", ")} there`);
    if (focused !== undefined && !values.some((v) => v.focused))
      fail(`/${command.name} has no option ${focused} there`);
    const options = wrap(values);
    return {
      where,
      owners,
      data: {
        id: command.id,
        name: command.name,
        type: 1,
        ...(options.length ? { options } : {}),
        ...(Object.keys(resolved).length ? { resolved } : {}),
        ...(command.guild_id ? { guild_id: command.guild_id } : {}),
      },
    };
  }

  function messageOf(message: APIMessage | string): APIMessage {
    const id = typeof message === "string" ? message : message.id;
    return world.messages.get(id) ?? fail(`message ${id} does not exist (any more)`);
  }

  /** A component a user can use: on the message, enabled, and seen by that user. */
  function componentOf(message: APIMessage, customId: string, types: number[], userId: string): Json {
    const found = walkComponents(message.components, "").find(
      ({ component }) => component.custom_id === customId && types.includes(component.type as number),
    );
    if (!found) {
      const ids = walkComponents(message.components, "").flatMap(
        ({ component }) => component.custom_id ?? [],
      );
      return fail(
        `message ${message.id} has no such component ${customId} (has: ${ids.join(", ") || "none"})`,
      );
    }
    if (found.component.disabled === true) fail(`component ${customId} is disabled`);
    const owner = message.interaction_metadata?.user.id;
    if ((message.flags ?? 0) & MessageFlags.Ephemeral && owner && owner !== userId) {
      fail(`message ${message.id} is ephemeral: only user ${owner} sees it`);
    }
    return found.component;
  }

  function selectValues(
    component: Json,
    values: string[],
    guildId: string | undefined,
    resolved: Resolved,
  ): void {
    const min =
      typeof component.min_values === "number" ? component.min_values : component.required === false ? 0 : 1;
    const max = typeof component.max_values === "number" ? component.max_values : 1;
    if (values.length < min || values.length > max)
      fail(`select ${component.custom_id} takes ${min}-${max} values`);
    if (component.type === ComponentType.StringSelect) {
      const allowed = (component.options as { value: string }[]).map((o) => o.value);
      for (const value of values)
        if (!allowed.includes(value)) fail(`select ${component.custom_id} has no option ${value}`);
      return;
    }
    const optionType = {
      [ComponentType.UserSelect]: Opt.User,
      [ComponentType.RoleSelect]: Opt.Role,
      [ComponentType.MentionableSelect]: Opt.Mentionable,
      [ComponentType.ChannelSelect]: Opt.Channel,
    }[component.type as number];
    for (const value of values)
      resolveId(
        { type: optionType ?? Opt.String, name: String(component.custom_id) },
        value,
        guildId,
        resolved,
      );
  }

  function guildOf(channelId: string): string | undefined {
    const channel = world.channels.get(channelId);
    return channel && "guild_id" in channel ? channel.guild_id : undefined;
  }

  return {
    async sendCommand(input: CommandInput): Promise<InjectedInteraction> {
      const { where, owners, data } = commandData(input, false);
      return inject(InteractionType.ApplicationCommand, where.userId, where.channelId, owners, data);
    },

    /**
     * Apps > `name` on a message, as Discord's client sends it: a registered message command, the
     * target's id, and the whole message in `resolved.messages`. Ephemeral messages have no menu.
     */
    async useMessageCommand(input: MessageCommandInput): Promise<InjectedInteraction> {
      const message = messageOf(input.message);
      if ((message.flags ?? 0) & MessageFlags.Ephemeral)
        fail(`message ${message.id} is ephemeral: it has no Apps menu`);
      const where = place({
        name: input.name,
        channelId: message.channel_id,
        ...(input.user && { user: input.user }),
      });
      const { command, owners } = findCommand(input.name, where, ApplicationCommandType.Message);
      const data = {
        id: command.id,
        name: command.name,
        type: ApplicationCommandType.Message,
        target_id: message.id,
        resolved: { messages: { [message.id]: structuredClone(message) } },
        ...(command.guild_id ? { guild_id: command.guild_id } : {}),
      };
      return inject(InteractionType.ApplicationCommand, where.userId, where.channelId, owners, data);
    },

    async sendAutocomplete(input: AutocompleteInput): Promise<InjectedInteraction> {
      const { where, owners, data } = commandData(input, true);
      return inject(
        InteractionType.ApplicationCommandAutocomplete,
        where.userId,
        where.channelId,
        owners,
        data,
      );
    },

    async clickButton(
      target: APIMessage | string,
      customId: string,
      user?: APIUser | string,
    ): Promise<InjectedInteraction> {
      const message = messageOf(target);
      const userId = userIdOf(user);
      const button = componentOf(message, customId, [ComponentType.Button], userId);
      const data = { custom_id: customId, component_type: ComponentType.Button, id: button.id };
      const owners = ownersOfMessage(message, userId);
      return inject(InteractionType.MessageComponent, userId, message.channel_id, owners, data, { message });
    },

    async selectMenu(
      target: APIMessage | string,
      customId: string,
      values: string[],
      user?: APIUser | string,
    ): Promise<InjectedInteraction> {
      const message = messageOf(target);
      const userId = userIdOf(user);
      const select = componentOf(message, customId, [3, 5, 6, 7, 8], userId);
      const resolved: Resolved = {};
      selectValues(select, values, guildOf(message.channel_id), resolved);
      const data = {
        custom_id: customId,
        component_type: select.type,
        id: select.id,
        values,
        ...(Object.keys(resolved).length ? { resolved } : {}),
      };
      const owners = ownersOfMessage(message, userId);
      return inject(InteractionType.MessageComponent, userId, message.channel_id, owners, data, { message });
    },

    /**
     * Submits the modal the bot last showed with this custom_id, as the user it was shown to.
     * `fields` go by the custom_id of each input: text for text inputs, values for selects, files for file uploads.
     * An input left out submits what the modal showed in it (pre-filled text, default options).
     */
    async submitModal(
      customId: string,
      fields: Record<string, string | string[] | FakeFile[]>,
    ): Promise<InjectedInteraction> {
      const shown = [...world.interactions.values()]
        .reverse()
        .find((i) => i.modal?.custom_id === customId && !i.modalSubmitted);
      if (!shown?.modal)
        return fail(`no open modal ${customId}: the bot has not shown one (or it was submitted)`);
      const guildId = guildOf(shown.channelId);
      const resolved: Resolved = {};
      const left = new Set(Object.keys(fields));
      const answer = (component: Json): Json => {
        const id = component.custom_id as string | undefined;
        const value = id === undefined ? undefined : fields[id];
        if (id !== undefined) left.delete(id);
        switch (component.type) {
          case ComponentType.ActionRow:
            return { type: 1, id: component.id, components: (component.components as Json[]).map(answer) };
          case ComponentType.Label:
            return {
              type: ComponentType.Label,
              id: component.id,
              component: answer(component.component as Json),
            };
          case ComponentType.TextDisplay:
            return { type: ComponentType.TextDisplay, id: component.id };
          case ComponentType.TextInput: {
            // An input left alone submits what it was pre-filled with.
            const prefilled = typeof component.value === "string" ? component.value : "";
            const text = typeof value === "string" ? value : prefilled;
            const min = typeof component.min_length === "number" ? component.min_length : 0;
            const max = typeof component.max_length === "number" ? component.max_length : 4000;
            if (component.required !== false && !text) fail(`modal ${customId}: ${id} is required`);
            if (text && (text.length < min || text.length > max))
              fail(`modal ${customId}: ${id} must be ${min}-${max} characters`);
            return { type: ComponentType.TextInput, id: component.id, custom_id: id, value: text };
          }
          case ComponentType.FileUpload: {
            const files = (Array.isArray(value) ? value : []) as FakeFile[];
            const min = typeof component.min_values === "number" ? component.min_values : 1;
            const max = typeof component.max_values === "number" ? component.max_values : 1;
            if (
              (component.required !== false || files.length) &&
              (files.length < min || files.length > max)
            ) {
              fail(`modal ${customId}: ${id} takes ${min}-${max} files`);
            }
            const ids = files.map((file) => {
              const attachment = storeUpload(shown.channelId, file);
              resolved.attachments = { ...resolved.attachments, [attachment.id]: attachment };
              return attachment.id;
            });
            return { type: ComponentType.FileUpload, id: component.id, custom_id: id, values: ids };
          }
          case ComponentType.StringSelect:
          case ComponentType.UserSelect:
          case ComponentType.RoleSelect:
          case ComponentType.MentionableSelect:
          case ComponentType.ChannelSelect: {
            // A select left alone submits its default options.
            const defaults = ((component.options ?? []) as { value: string; default?: boolean }[])
              .filter((o) => o.default)
              .map((o) => o.value);
            const values = (
              Array.isArray(value) ? value : typeof value === "string" ? [value] : defaults
            ) as string[];
            selectValues(component, values, guildId, resolved);
            return { type: component.type, id: component.id, custom_id: id, values };
          }
          default:
            return fail(
              `modal ${customId}: the fake cannot fill a component of type ${String(component.type)}`,
            );
        }
      };
      const components = (shown.modal.components as unknown as Json[]).map(answer);
      if (left.size) fail(`modal ${customId} has no input ${[...left].join(", ")}`);
      shown.modalSubmitted = true;
      const source = shown.sourceMessageId ? world.messages.get(shown.sourceMessageId) : undefined;
      const data = { custom_id: customId, components, ...(Object.keys(resolved).length ? { resolved } : {}) };
      return inject(
        InteractionType.ModalSubmit,
        shown.userId,
        shown.channelId,
        shown.payload.authorizing_integration_owners as Owners,
        data,
        source ? { message: source } : undefined,
      );
    },
  };
}

export type Injector = ReturnType<typeof createInjector>;
