import {
  type APIApplicationCommand,
  type APIAttachment,
  type APIDMChannel,
  type APIGroupDMChannel,
  type APIGuildMember,
  type APIInteraction,
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
  type APIRole,
  type APITextChannel,
  type APIUser,
  ChannelType,
  type GuildMemberFlags,
  type InteractionType,
  OverwriteType,
  PermissionFlagsBits,
  type RoleFlags,
  type UserFlags,
} from "discord-api-types/v10";
import type { Clock } from "./clock.js";
import type { Ids } from "./ids.js";

const P = PermissionFlagsBits;

/** What @everyone may do in the fake guild: enough to use commands and read the answers. */
const EVERYONE_PERMISSIONS =
  P.ViewChannel |
  P.SendMessages |
  P.ReadMessageHistory |
  P.UseApplicationCommands |
  P.EmbedLinks |
  P.AttachFiles |
  P.AddReactions |
  P.UseExternalEmojis;

/** The bot's managed role: what a typical invite grants, no Administrator. */
const BOT_PERMISSIONS = EVERYONE_PERMISSIONS | P.ManageMessages | P.SendMessagesInThreads;

export interface StoredFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

/**
 * Upload limits per file, by who uploads (https://discord.com/developers/docs/reference#uploading-files:
 * 10 MiB by default, more by Nitro or by the server's boost tier). The Nitro and boost figures are
 * Discord's support pages' (Nitro Basic 50 MB, Nitro 500 MB; boost level 2 50 MB, level 3 100 MB),
 * taken as MiB, as the default is; the API docs name none of them.
 */
export const UPLOAD_LIMITS = {
  default: 10 * 1024 * 1024,
  nitroBasic: 50 * 1024 * 1024,
  nitro: 500 * 1024 * 1024,
  boost: { 2: 50 * 1024 * 1024, 3: 100 * 1024 * 1024 } as Partial<Record<number, number>>,
} as const;

export type Nitro = "none" | "basic" | "nitro";

export interface GuildRecord {
  id: string;
  name: string;
  ownerId: string;
  /** Boost level, 0-3 (`premium_tier`). */
  premiumTier: number;
  roles: APIRole[];
  channelIds: string[];
  members: Map<string, { roles: string[]; joinedAt: string }>;
}

export type ChannelRecord = APITextChannel | APIDMChannel | APIGroupDMChannel;

export interface CallbackRecord {
  /** Interaction callback type: 4 reply, 5 defer, 6 deferred update, 7 update, 8 autocomplete, 9 modal. */
  type: number;
  data: unknown;
  withResponse: boolean;
  at: number;
  /**
   * How it came: "callback", POST /interactions/{id}/{token}/callback; "body", as the JSON body of
   * the 200 answering the request sent to the Interactions Endpoint URL.
   */
  via: "callback" | "body";
}

export type InteractionStage =
  | "new"
  | "deferred"
  | "replied"
  | "deferred-update"
  | "updated"
  | "modal"
  | "autocompleted";

export interface InteractionRecord {
  id: string;
  token: string;
  type: InteractionType;
  createdAt: number;
  payload: APIInteraction;
  userId: string;
  channelId: string;
  guildId?: string;
  /** The message a component lives on (buttons, selects, and modals opened from them). */
  sourceMessageId?: string;
  stage: InteractionStage;
  /** What `@original` means for the webhook routes once the interaction is answered. */
  originalMessageId?: string;
  followupIds: string[];
  callbacks: CallbackRecord[];
  modal?: APIModalInteractionResponseCallbackData;
  modalSubmitted?: boolean;
  /** Sent to the Interactions Endpoint URL: how the bot's server answered (0: no answer in time). */
  http?: { status: number; at: number };
}

/** Everything the fake Discord knows; the routes and the injectors read and change it. */
export class World {
  readonly users = new Map<string, APIUser>();
  /** The language each person's Discord client is set to (an interaction's `locale`); en-US if unset. */
  readonly locales = new Map<string, string>();
  readonly guilds = new Map<string, GuildRecord>();
  readonly channels = new Map<string, ChannelRecord>();
  /** Insertion order is posting order. */
  readonly messages = new Map<string, APIMessage>();
  readonly files = new Map<string, StoredFile>();
  readonly globalCommands = new Map<string, APIApplicationCommand>();
  readonly guildCommands = new Map<string, Map<string, APIApplicationCommand>>();
  readonly interactions = new Map<string, InteractionRecord>();
  /** People who added the app to their own account (a user install): its commands follow them anywhere. */
  readonly userInstalls = new Set<string>();
  /** People with Nitro, who may upload more (and so may the interactions they start). */
  readonly nitro = new Map<string, Exclude<Nitro, "none">>();
  readonly botUser: APIUser;
  /** The application's Ed25519 public key in hex (the portal's "Public Key"), set by the endpoint. */
  verifyKey = "";

  constructor(
    readonly ids: Ids,
    readonly clock: Clock,
    /** Origin of the fake's own attachment host, e.g. http://127.0.0.1:PORT */
    readonly cdnOrigin: string,
    /** Per file, for everyone without more (Nitro, a boosted server). */
    readonly attachmentSizeLimit: number,
  ) {
    this.botUser = this.addUser("media-bot", { bot: true });
  }

  get applicationId(): string {
    // Applications created since 2019 share their id with their bot user.
    return this.botUser.id;
  }

  isoNow(): string {
    return new Date(this.clock.now()).toISOString();
  }

  addUser(username: string, extra: Partial<APIUser> = {}): APIUser {
    const user: APIUser = {
      id: this.ids.snowflake(),
      username,
      discriminator: "0",
      global_name: extra.bot ? null : username[0]!.toUpperCase() + username.slice(1),
      avatar: null,
      public_flags: 0 as UserFlags,
      flags: 0 as UserFlags,
      primary_guild: null,
      ...extra,
    };
    this.users.set(user.id, user);
    return user;
  }

  /** `bot: false`: a server that never added the bot, where only people's own installs reach it. */
  addGuild(name: string, ownerId: string, { bot = true }: { bot?: boolean } = {}): GuildRecord {
    const id = this.ids.snowflake();
    const role = (roleName: string, permissions: bigint, position: number, managed = false): APIRole => ({
      id: position === 0 ? id : this.ids.snowflake(),
      name: roleName,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      position,
      permissions: permissions.toString(),
      managed,
      mentionable: false,
      flags: 0 as RoleFlags,
      ...(managed ? { tags: { bot_id: this.botUser.id } } : {}),
    });
    const guild: GuildRecord = {
      id,
      name,
      ownerId,
      roles: [
        role("@everyone", EVERYONE_PERMISSIONS, 0),
        role("Admins", EVERYONE_PERMISSIONS | P.ManageGuild, 1),
        role(this.botUser.username, BOT_PERMISSIONS, 2, true),
      ],
      channelIds: [],
      members: new Map(),
      premiumTier: 0,
    };
    this.guilds.set(id, guild);
    this.addMember(id, ownerId);
    if (bot) this.addMember(id, this.botUser.id, [guild.roles[2]!.id]);
    this.addChannel(id, "general");
    return guild;
  }

  adminRole(guildId: string): APIRole {
    return this.guild(guildId).roles[1]!;
  }

  addChannel(guildId: string, name: string): APITextChannel {
    const guild = this.guild(guildId);
    const channel: APITextChannel = {
      id: this.ids.snowflake(),
      type: ChannelType.GuildText,
      guild_id: guildId,
      name,
      position: guild.channelIds.length,
      permission_overwrites: [],
      parent_id: null,
      nsfw: false,
      topic: null,
      last_message_id: null,
      rate_limit_per_user: 0,
    };
    this.channels.set(channel.id, channel);
    guild.channelIds.push(channel.id);
    return channel;
  }

  addMember(guildId: string, userId: string, roles: string[] = []): void {
    this.guild(guildId).members.set(userId, { roles, joinedAt: this.isoNow() });
  }

  guild(guildId: string): GuildRecord {
    const guild = this.guilds.get(guildId);
    if (!guild) throw new Error(`the fake has no guild ${guildId}`);
    return guild;
  }

  user(userId: string): APIUser {
    const user = this.users.get(userId);
    if (!user) throw new Error(`the fake has no user ${userId}`);
    return user;
  }

  member(guildId: string, userId: string): APIGuildMember {
    const membership = this.guild(guildId).members.get(userId);
    if (!membership) throw new Error(`user ${userId} is not a member of guild ${guildId}`);
    return {
      user: this.user(userId),
      nick: null,
      avatar: null,
      banner: null,
      roles: membership.roles,
      joined_at: membership.joinedAt,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0 as GuildMemberFlags,
      pending: false,
      communication_disabled_until: null,
    };
  }

  /** Guild-level permissions, before any channel's overwrites. */
  permissions(guildId: string, userId: string): bigint {
    const guild = this.guild(guildId);
    if (userId === guild.ownerId) return Object.values(P).reduce((all, bit) => all | bit, 0n);
    const roles = new Set([guildId, ...(guild.members.get(userId)?.roles ?? [])]);
    const granted = guild.roles
      .filter((r) => roles.has(r.id))
      .reduce((all, r) => all | BigInt(r.permissions), 0n);
    return granted & P.Administrator ? Object.values(P).reduce((all, bit) => all | bit, 0n) : granted;
  }

  /**
   * Permissions in a guild channel, in Discord's order: the guild's, then the channel's overwrites
   * for @everyone, for the member's roles together, and for the member. Administrators and the
   * owner are above overwrites.
   */
  channelPermissions(channel: APITextChannel, userId: string): bigint {
    const guildId = channel.guild_id;
    if (!guildId) throw new Error(`channel ${channel.id} belongs to no guild`);
    let granted = this.permissions(guildId, userId);
    if (granted & P.Administrator) return granted;
    const overwrites = channel.permission_overwrites ?? [];
    const apply = (matching: typeof overwrites) => {
      const deny = matching.reduce((all, o) => all | BigInt(o.deny), 0n);
      const allow = matching.reduce((all, o) => all | BigInt(o.allow), 0n);
      granted = (granted & ~deny) | allow;
    };
    const roles = new Set(this.guild(guildId).members.get(userId)?.roles ?? []);
    apply(overwrites.filter((o) => o.type === OverwriteType.Role && o.id === guildId));
    apply(overwrites.filter((o) => o.type === OverwriteType.Role && roles.has(o.id)));
    apply(overwrites.filter((o) => o.type === OverwriteType.Member && o.id === userId));
    return granted;
  }

  /** What a server's boost lets anyone there upload; the default in DMs and group DMs. */
  placeUploadLimit(channelId: string): number {
    const channel = this.channels.get(channelId);
    const guildId = channel && "guild_id" in channel ? channel.guild_id : undefined;
    const boosted = guildId ? UPLOAD_LIMITS.boost[this.guild(guildId).premiumTier] : undefined;
    return Math.max(this.attachmentSizeLimit, boosted ?? 0);
  }

  /**
   * An interaction's `attachment_size_limit`: the larger of what its person's Nitro and the
   * place's boost allow. Discord applies it to uploads through the interaction's token only.
   */
  interactionUploadLimit(userId: string, channelId: string): number {
    const nitro = this.nitro.get(userId);
    const own = nitro === "nitro" ? UPLOAD_LIMITS.nitro : nitro === "basic" ? UPLOAD_LIMITS.nitroBasic : 0;
    return Math.max(own, this.placeUploadLimit(channelId));
  }

  /** A channel deleted by an admin: its messages go with it, as on Discord. */
  deleteChannel(channelId: string): APITextChannel {
    const channel = this.channels.get(channelId);
    if (channel?.type !== ChannelType.GuildText || !channel.guild_id)
      throw new Error(`the fake has no guild channel ${channelId}`);
    this.channels.delete(channelId);
    const guild = this.guild(channel.guild_id);
    guild.channelIds = guild.channelIds.filter((id) => id !== channelId);
    for (const message of [...this.messages.values()]) {
      if (message.channel_id === channelId) this.messages.delete(message.id);
    }
    return channel;
  }

  dmChannel(userId: string): APIDMChannel {
    for (const channel of this.channels.values()) {
      if (channel.type === ChannelType.DM && channel.recipients?.[0]?.id === userId) return channel;
    }
    const channel: APIDMChannel = {
      id: this.ids.snowflake(),
      type: ChannelType.DM,
      name: null,
      recipients: [this.user(userId)],
      last_message_id: null,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A group DM of these people; the bot is never in one (bots cannot join group DMs). */
  addGroupDm(userIds: string[]): APIGroupDMChannel {
    const channel: APIGroupDMChannel = {
      id: this.ids.snowflake(),
      type: ChannelType.GroupDM,
      name: null,
      icon: null,
      owner_id: userIds[0]!,
      recipients: userIds.map((id) => this.user(id)),
      last_message_id: null,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** Keeps the bytes and hands out an attachment whose URL the fake itself serves. */
  storeFile(channelId: string, file: StoredFile, extra: Partial<APIAttachment> = {}): APIAttachment {
    const id = this.ids.snowflake();
    this.files.set(id, file);
    const url = `${this.cdnOrigin}/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`;
    return {
      id,
      filename: file.filename,
      size: file.data.length,
      url,
      proxy_url: url,
      content_type: file.contentType,
      ...extra,
    };
  }

  commandScope(guildId?: string): Map<string, APIApplicationCommand> {
    if (!guildId) return this.globalCommands;
    let scope = this.guildCommands.get(guildId);
    if (!scope) {
      scope = new Map();
      this.guildCommands.set(guildId, scope);
    }
    return scope;
  }

  interactionByToken(token: string): InteractionRecord | undefined {
    for (const interaction of this.interactions.values()) if (interaction.token === token) return interaction;
    return undefined;
  }
}
