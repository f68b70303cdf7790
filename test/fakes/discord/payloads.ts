import {
  type APIInteraction,
  type APITextChannel,
  ApplicationFlags,
  ApplicationIntegrationType,
  ChannelType,
  type GatewayGuildCreateDispatchData,
  type GatewayReadyDispatchData,
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  GuildMFALevel,
  GuildNSFWLevel,
  type GuildPremiumTier,
  GuildSystemChannelFlags,
  GuildVerificationLevel,
  type InteractionType,
  Locale,
  PermissionFlagsBits,
} from "discord-api-types/v10";
import { watched } from "../watch.js";
import type { World } from "./state.js";

const APPLICATION_FLAGS =
  ApplicationFlags.GatewayGuildMembersLimited | ApplicationFlags.ApplicationCommandBadge;

/** READY of one shard: only its guilds, announced as unavailable until their GUILD_CREATE. */
export function readyPayload(
  world: World,
  sessionId: string,
  resumeUrl: string,
  shard: [id: number, count: number],
  guildIds: string[],
): GatewayReadyDispatchData {
  return {
    v: 10,
    user: world.botUser,
    guilds: guildIds.map((id) => ({ id, unavailable: true })),
    session_id: sessionId,
    // discord.js reconnects here to resume; the real gateway's URL would take a test to Discord.
    resume_gateway_url: resumeUrl,
    shard,
    application: { id: world.applicationId, flags: APPLICATION_FLAGS, flags_new: String(APPLICATION_FLAGS) },
  };
}

export function guildCreatePayload(world: World, guildId: string): GatewayGuildCreateDispatchData {
  const guild = world.guild(guildId);
  const channels = guild.channelIds.map((id) => world.channels.get(id)!);
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: GuildVerificationLevel.None,
    default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
    explicit_content_filter: GuildExplicitContentFilter.Disabled,
    roles: guild.roles,
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: GuildMFALevel.None,
    application_id: null,
    system_channel_id: guild.channelIds[0] ?? null,
    system_channel_flags: GuildSystemChannelFlags.SuppressJoinNotifications,
    rules_channel_id: null,
    vanity_url_code: null,
    premium_tier: guild.premiumTier as GuildPremiumTier,
    premium_subscription_count: 0,
    preferred_locale: Locale.EnglishUS,
    public_updates_channel_id: null,
    nsfw_level: GuildNSFWLevel.Default,
    premium_progress_bar_enabled: false,
    hub_type: null,
    safety_alerts_channel_id: null,
    incidents_data: null,
    joined_at: guild.members.get(world.botUser.id)?.joinedAt ?? world.isoNow(),
    large: false,
    unavailable: false,
    member_count: guild.members.size,
    voice_states: [],
    members: [...guild.members.keys()].map((userId) => world.member(guildId, userId)),
    channels: channels as GatewayGuildCreateDispatchData["channels"],
    threads: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

// What Discord documents as app_permissions in DMs and group DMs of people, and in the DM with the bot.
const PRIVATE_APP_PERMISSIONS =
  PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.MentionEveryone;
const DM_APP_PERMISSIONS = PRIVATE_APP_PERMISSIONS | PermissionFlagsBits.UseExternalEmojis;

/** `authorizing_integration_owners`: by installation type ("0" server, "1" user), who installed. */
export type Owners = Partial<Record<"0" | "1", string>>;

/**
 * The installations an interaction of `userId` in `channelId` comes through, for a command that
 * allows `integrationTypes`, by Discord's rules: "0" is the guild's id where the bot was added
 * (the string "0" in the DM with the bot), "1" the person's id when they installed the app to
 * their account. Empty when nothing reaches there: no client would offer the command.
 */
export function ownersOf(
  world: World,
  channelId: string,
  userId: string,
  integrationTypes: readonly number[],
): Owners {
  const channel = world.channels.get(channelId);
  if (!channel) throw new Error(`the fake has no channel ${channelId}`);
  const guildId = "guild_id" in channel ? channel.guild_id : undefined;
  const server = integrationTypes.includes(ApplicationIntegrationType.GuildInstall);
  const user =
    integrationTypes.includes(ApplicationIntegrationType.UserInstall) && world.userInstalls.has(userId);
  const guildOwner = guildId
    ? server && world.guild(guildId).members.has(world.botUser.id) && guildId
    : server && channel.type === ChannelType.DM && "0";
  return { ...(guildOwner && { "0": guildOwner }), ...(user && { "1": userId }) };
}

export interface InteractionOrigin {
  id: string;
  token: string;
  type: InteractionType;
  userId: string;
  channelId: string;
  owners: Owners;
}

/** The fields every INTERACTION_CREATE carries; the caller adds `data` (and `message`). */
export function interactionBase(
  world: World,
  origin: InteractionOrigin,
): Omit<APIInteraction, "data" | "type"> & { type: InteractionType } {
  const channel = world.channels.get(origin.channelId);
  if (!channel) throw new Error(`the fake has no channel ${origin.channelId}`);
  const guildId = "guild_id" in channel ? channel.guild_id : undefined;
  const common = {
    id: origin.id,
    application_id: world.applicationId,
    type: origin.type,
    token: origin.token,
    version: 1 as const,
    channel_id: channel.id,
    locale: world.locales.get(origin.userId) ?? watched.locale() ?? Locale.EnglishUS,
    entitlements: [],
    attachment_size_limit: world.interactionUploadLimit(origin.userId, channel.id),
  };
  if (!guildId) {
    const group = channel.type === ChannelType.GroupDM;
    return {
      ...common,
      channel,
      user: world.user(origin.userId),
      app_permissions: (group ? PRIVATE_APP_PERMISSIONS : DM_APP_PERMISSIONS).toString(),
      authorizing_integration_owners: origin.owners,
      context: group ? 2 : 1,
    } as unknown as Omit<APIInteraction, "data" | "type"> & { type: InteractionType };
  }
  // Permissions in the channel (its overwrites applied), as Discord sends them.
  const text = channel as APITextChannel;
  const permissions = world.channelPermissions(text, origin.userId).toString();
  // Where the bot is not a member, a user install acts with the person's own permissions.
  const botIn = world.guild(guildId).members.has(world.botUser.id);
  return {
    ...common,
    channel: { ...channel, permissions },
    guild_id: guildId,
    guild: { id: guildId, locale: Locale.EnglishUS, features: [] },
    guild_locale: Locale.EnglishUS,
    member: { ...world.member(guildId, origin.userId), permissions },
    app_permissions: botIn ? world.channelPermissions(text, world.botUser.id).toString() : permissions,
    authorizing_integration_owners: origin.owners,
    context: 0,
  } as unknown as Omit<APIInteraction, "data" | "type"> & { type: InteractionType };
}
