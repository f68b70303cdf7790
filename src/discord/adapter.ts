import { createHash } from "node:crypto";
import {
  type APIDMChannel,
  type APIMessage,
  DiscordAPIError,
  MessageFlags,
  type REST,
  Routes,
} from "discord.js";
import { isCard } from "../core/cards.js";
import { MessageGoneError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import type { ChatAdapter, ConversationRef, Json, Message, MessageRef, PostOptions } from "../core/ports.js";
import { filesOf } from "./files.js";
import { DISCORD_LIMITS } from "./limits.js";
import { type PlaceInfo, placeOf } from "./places.js";
import { refusalOf } from "./refusals.js";
import { renderMessage } from "./render/message.js";

/**
 * The core's chat port on Discord. While an interaction's token is young (under 14 of its 15
 * minutes) messages go through it: the deferred reply becomes the first message, later ones are
 * followups, edits use the interaction webhook. After that, and for the keyed posts that announce
 * a finished job, the bot token edits and posts channel messages. Every reference carries what it
 * needs (token and its age) as plain JSON, so a job resumed after a restart edits the same way.
 * The token and its age are the reference's `live` part: the core keeps them only while a job
 * may still edit its message. Where the bot is no member (a server that did not add it, a group
 * DM: `gestureOnly`), the token is all there is: past it, what is left to show goes to the
 * person's DM, as for a private job.
 */

/** How the interaction was acknowledged: a deferred reply (public or private), or a deferred update of a clicked message. */
export type Deferral = "public" | "ephemeral" | "update";

/** The parts of a discord.js interaction the adapter keeps. */
export interface InteractionInfo extends PlaceInfo {
  id: string;
  token: string;
  /** Who acted: a private answer goes to them (their DM once the token is dead). */
  user: { id: string };
  channelId: string | null;
  /** From the snowflake: Discord's time of the interaction, which the token's 15 minutes count from. */
  createdTimestamp: number;
  attachmentSizeLimit?: number | null;
}

interface TokenData {
  token: string;
  /** When the interaction was created (ms). */
  at: number;
}

export interface DiscordAdapterOptions {
  rest: REST;
  /** Known once the client is ready; interactions and resumed jobs come after that. */
  applicationId(): string;
  clock?: { now(): number };
  logger: Logger;
  /** Who people, roles and channels are, and a member's roles now (names.ts). */
  directory?: Required<Pick<ChatAdapter, "names" | "rolesOf">>;
}

/** Where a link to a message in a DM or group DM points instead of a guild. */
const DM_LINK = "@me";

/** The first line of what continues in the person's DM: where it comes from, and why it is here. */
function whyInDm(target: ConversationRef): string {
  if (target.privateFrom !== undefined) {
    return `Your private job from <#${target.privateFrom}>: its message there could no longer be updated (Discord allows that for 15 minutes), so it continues here.`;
  }
  const from = target.data?.guild === DM_LINK ? "a group DM" : `<#${target.channelId}>`;
  return `Your job from ${from}: the bot is not a member there and could answer only through your command, which Discord allows for 15 minutes, so it continues here.`;
}

/**
 * A job's progress on a message only its interaction's token reaches says beforehand where the
 * job goes past the token's 15 minutes, so that a bar that stops moving surprises nobody.
 */
function withDmHint(message: Message): Message {
  if (!isCard(message) || message.progress === undefined) return message;
  const hint =
    "Discord lets the bot update this message for 15 minutes: if the job takes longer, it continues in your DM with the bot.";
  return { ...message, lines: [...message.lines, hint] };
}

/** Discord's codes for a webhook token that no longer works. */
const EXPIRED_TOKEN = new Set([50027, 10015]);
/** Someone deleted the message (a placeholder too): retrying cannot bring it back. */
const UNKNOWN_MESSAGE = 10008;

function tokenOf(live: ConversationRef["live"]): TokenData | undefined {
  return typeof live?.token === "string" && typeof live.at === "number"
    ? { token: live.token, at: live.at }
    : undefined;
}

/** enforce_nonce makes a repeated create return the first message; nonces hold 25 characters. */
export function nonceOf(idempotencyKey: string): string {
  return createHash("sha256").update(idempotencyKey).digest("base64url").slice(0, DISCORD_LIMITS.nonce);
}

export class DiscordAdapter implements ChatAdapter {
  readonly platform = "discord" as const;
  /** Interactions whose deferred reply ("is thinking…") has not become a message yet, by creation time. */
  private readonly placeholders = new Map<string, number>();
  private readonly clock: { now(): number };

  readonly names?: ChatAdapter["names"];
  readonly rolesOf?: ChatAdapter["rolesOf"];

  constructor(private readonly options: DiscordAdapterOptions) {
    this.clock = options.clock ?? Date;
    if (options.directory) {
      this.names = options.directory.names;
      this.rolesOf = options.directory.rolesOf;
    }
  }

  /** The conversation of an interaction just acknowledged, for the core's event. */
  conversation(interaction: InteractionInfo, deferral: Deferral): ConversationRef {
    this.forgetDeadPlaceholders();
    if (deferral !== "update") this.placeholders.set(interaction.id, interaction.createdTimestamp);
    return {
      platform: "discord",
      channelId: interaction.channelId ?? "",
      data: {
        interactionId: interaction.id,
        user: interaction.user.id,
        deferral,
        sizeLimit: interaction.attachmentSizeLimit ?? DISCORD_LIMITS.defaultUploadBytes,
        // For links to its messages: DMs and group DMs are "@me" in them.
        guild: interaction.guildId ?? DM_LINK,
      },
      live: { token: interaction.token, at: interaction.createdTimestamp },
      ...(placeOf(interaction) === "elsewhere" && { gestureOnly: true as const }),
    };
  }

  /** The interaction's attachment_size_limit (boosted servers take more), carried by its conversation and messages. */
  uploadLimit(target: ConversationRef | MessageRef): number {
    const limit = target.data?.sizeLimit;
    return typeof limit === "number" && limit > 0 ? limit : DISCORD_LIMITS.defaultUploadBytes;
  }

  /** A plain channel post, with the bot token: no interaction to answer through. */
  channel(_guildId: string, channelId: string): ConversationRef {
    return { platform: "discord", channelId };
  }

  /** In the server of the message's interaction, or a DM; a channel post in a tenant's own channel is in the tenant's guild. */
  messageUrl(ref: MessageRef, guildId: string): string {
    const guild = typeof ref.data?.guild === "string" ? ref.data.guild : guildId;
    return `https://discord.com/channels/${guild}/${ref.channelId}/${ref.messageId}`;
  }

  post(target: ConversationRef, message: Message, options: PostOptions = {}): Promise<MessageRef> {
    return this.send(target, message, options).catch((error: unknown) => {
      throw refusalOf(error);
    });
  }

  edit(ref: MessageRef, message: Message): Promise<void> {
    return this.change(ref, message).catch((error: unknown) => {
      throw refusalOf(error);
    });
  }

  /** The clicked message, replaced through the click's own interaction (deferred as an update), private ones too. */
  replace(target: ConversationRef, message: Message): Promise<void> {
    return this.swap(target, message).catch((error: unknown) => {
      throw refusalOf(error);
    });
  }

  private async swap(target: ConversationRef, message: Message): Promise<void> {
    const token = this.live(target);
    if (!token || target.data?.deferral !== "update") {
      throw new Error("only a click's own interaction can replace the message it clicked");
    }
    const rendered = renderMessage(message);
    const files = await filesOf(rendered, this.uploadLimit(target));
    const original = Routes.webhookMessage(this.options.applicationId(), token.token, "@original");
    await this.options.rest.patch(original, { body: rendered.body, files, auth: false });
  }

  private async send(target: ConversationRef, message: Message, options: PostOptions): Promise<MessageRef> {
    const secret = target.privateFrom !== undefined;
    const rendered = renderMessage(
      secret || target.gestureOnly ? withDmHint(message) : message,
      options.mentionUserId ? { mentionUserId: options.mentionUserId } : {},
    );
    const files = await filesOf(rendered, this.uploadLimit(target));
    const token = this.live(target);
    const ephemeral = options.ephemeral === true || secret;
    const { rest } = this.options;
    // A keyed post must survive a crash and a retry: only channel messages know nonces.
    if (options.idempotencyKey || !token) {
      if (secret || target.gestureOnly) return this.direct(target, message, options);
      if (ephemeral) throw new Error("a private answer needs a live interaction token");
      const nonce = options.idempotencyKey && nonceOf(options.idempotencyKey);
      const body = { ...rendered.body, ...(nonce && { nonce, enforce_nonce: true }) };
      const posted = await rest.post(Routes.channelMessages(target.channelId), { body, files });
      return this.ref(posted as APIMessage, target, undefined, false);
    }

    const original = Routes.webhookMessage(this.options.applicationId(), token.token, "@original");
    const interactionId = String(target.data?.interactionId);
    const createdAt = this.placeholders.get(interactionId);
    if (createdAt !== undefined) {
      // Claimed while the request runs, so that a concurrent post cannot take it too; given back
      // if the request fails, so that the next post (the core's notice) still replaces it.
      this.placeholders.delete(interactionId);
      try {
        if ((target.data?.deferral === "ephemeral") === ephemeral) {
          const edited = await rest.patch(original, { body: rendered.body, files, auth: false });
          return this.ref(edited as APIMessage, target, token, ephemeral);
        }
        // A deferral decides whether its reply is private; the other kind needs a message of its own.
        await rest.delete(original, { auth: false });
      } catch (error) {
        const gone = error instanceof DiscordAPIError && Number(error.code) === UNKNOWN_MESSAGE;
        if (!gone) this.placeholders.set(interactionId, createdAt);
        throw error;
      }
    }
    const sent = await rest.post(Routes.webhook(this.options.applicationId(), token.token), {
      body: { ...rendered.body, ...(ephemeral && { flags: MessageFlags.Ephemeral }) },
      files,
      auth: false,
      query: new URLSearchParams({ wait: "true" }),
    });
    return this.ref(sent as APIMessage, target, token, ephemeral);
  }

  /**
   * What a private job, or one where the bot is no member, posts without its interaction (the
   * token died, or a keyed post, which needs a nonce): a message in the person's DM with the bot,
   * saying where it comes from and why.
   */
  private async direct(target: ConversationRef, message: Message, options: PostOptions): Promise<MessageRef> {
    const user = target.data?.user;
    if (typeof user !== "string") throw new Error("a private answer needs the conversation's user");
    const { rest } = this.options;
    const dm = (await rest.post(Routes.userChannels(), { body: { recipient_id: user } })) as APIDMChannel;
    const why = whyInDm(target);
    const explained = isCard(message)
      ? { ...message, lines: [why, ...message.lines] }
      : { text: `${why}\n${message.text}` };
    const rendered = renderMessage(
      explained,
      options.mentionUserId ? { mentionUserId: options.mentionUserId } : {},
    );
    const files = await filesOf(rendered, this.uploadLimit(target));
    const nonce = options.idempotencyKey && nonceOf(options.idempotencyKey);
    const body = { ...rendered.body, ...(nonce && { nonce, enforce_nonce: true }) };
    const posted = await rest.post(Routes.channelMessages(dm.id), { body, files });
    return this.ref(posted as APIMessage, target, undefined, false);
  }

  private async change(ref: MessageRef, message: Message): Promise<void> {
    // Only its interaction's token reaches a private message, or one where the bot is no member.
    const tokenOnly = ref.data?.ephemeral === true || ref.data?.gestureOnly === true;
    const rendered = renderMessage(tokenOnly ? withDmHint(message) : message);
    const files = await filesOf(rendered, this.uploadLimit(ref));
    const { rest, applicationId, logger } = this.options;
    const token = this.live(ref);
    if (token) {
      try {
        await rest.patch(Routes.webhookMessage(applicationId(), token.token, ref.messageId), {
          body: rendered.body,
          files,
          auth: false,
        });
        return;
      } catch (error) {
        // The bot's clock ran behind Discord's and the token died early: the bot token still works.
        const expired = error instanceof DiscordAPIError && EXPIRED_TOKEN.has(Number(error.code));
        if (!expired) throw error;
        if (tokenOnly) throw new MessageGoneError({ cause: error });
        logger.debug({ messageId: ref.messageId }, "interaction token expired: editing with the bot token");
      }
    }
    // Past the token's 15 minutes such a message stays as it is, and what it was to show is
    // posted anew, in the person's DM.
    if (tokenOnly) throw new MessageGoneError();
    await rest.patch(Routes.channelMessage(ref.channelId, ref.messageId), { body: rendered.body, files });
  }

  /** The token, while it has a safe margin left. */
  private live(ref: ConversationRef | MessageRef): TokenData | undefined {
    const token = tokenOf(ref.live);
    return token && this.clock.now() - token.at < DISCORD_LIMITS.tokenSafeAgeMs ? token : undefined;
  }

  /** A placeholder the core never answered (it failed to post) is gone with its token. */
  private forgetDeadPlaceholders(): void {
    const now = this.clock.now();
    // No early exit: a placeholder given back after a failed post is out of creation order.
    for (const [id, at] of this.placeholders) {
      if (now - at >= DISCORD_LIMITS.tokenLifetimeMs) this.placeholders.delete(id);
    }
  }

  private ref(
    message: APIMessage,
    target: ConversationRef,
    token: TokenData | undefined,
    ephemeral: boolean,
  ): MessageRef {
    // A message away from the conversation's channel is one posted in the person's DM.
    const guild = message.channel_id === target.channelId ? target.data?.guild : DM_LINK;
    const data: { [key: string]: Json } = {
      ...(ephemeral && { ephemeral: true }),
      ...(token && target.gestureOnly && { gestureOnly: true }),
      ...(typeof target.data?.sizeLimit === "number" && { sizeLimit: target.data.sizeLimit }),
      ...(typeof guild === "string" && { guild }),
    };
    return {
      platform: "discord",
      channelId: message.channel_id,
      messageId: message.id,
      ...(Object.keys(data).length > 0 && { data }),
      ...(token && { live: { token: token.token, at: token.at } }),
    };
  }
}
