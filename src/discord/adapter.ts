import { createHash } from "node:crypto";
import {
  type APIDMChannel,
  type APIMessage,
  MessageFlags,
  PermissionFlagsBits,
  type REST,
  Routes,
} from "discord.js";
import { isCard } from "../core/base/cards.js";
import { DeleteRefusedError, MessageGoneError } from "../core/base/errors.js";
import type { Logger } from "../core/base/log.js";
import type {
  ChatAdapter,
  ConversationRef,
  Json,
  Message,
  MessageRef,
  PostOptions,
} from "../core/base/ports.js";
import { msg } from "../core/i18n/msg.js";
import { type Translator, translatorFor } from "../core/i18n/translator.js";
import { answerOf, chatErrorOf, deleteErrorOf, PRIVATE_REPLY } from "./answers.js";
import { filesOf, type Uploader } from "./files.js";
import { DISCORD_LIMITS } from "./limits.js";
import { type PlaceInfo, placeOf } from "./places.js";
import { renderMessage } from "./render/message.js";

/**
 * The core's chat port on Discord. While an interaction's token is young (under 14 of its 15
 * minutes) messages go through it: the deferred reply becomes the first message, later ones are
 * followups, edits use the interaction webhook. After that, and for the keyed posts that announce
 * a finished job, the bot token edits and posts channel messages. Every reference carries what it
 * needs (token and its age) as plain JSON, so a job resumed after a restart edits the same way.
 * The token and its age are the reference's `live` part: the core keeps them only while a job
 * may still edit its message. Where the bot is no member (a server that did not add it, a group
 * DM), or one its permissions there keep from posting (the interaction's `app_permissions`), the
 * token is all there is (`gestureOnly`): past it, what is left to show goes to the person's DM,
 * as for a private job.
 *
 * Uploads take the limit of the credential that sends them: the interaction's
 * `attachment_size_limit` (the larger of the requester's Nitro and the server's boost) through its
 * token; the bot's own (the server's boost, 10 MiB without one, and in DMs) with the bot token.
 * What Discord answers is sorted once, in answers.ts, into the core's errors (core/base/ports.ts).
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
  /** What the bot may do in the interaction's channel (`app_permissions`); absent: everything. */
  appPermissions?: { has(permission: bigint): boolean } | null;
  channel?: { isThread(): boolean } | null;
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
  /**
   * The boost level of a server the bot is in (discord.js's guild cache), which raises what anyone
   * there, the bot too, may upload; undefined where unknown (no gateway), and the default holds.
   */
  boostTier?(guildId: string): number | undefined;
  clock?: { now(): number };
  logger: Logger;
  /** Who people, roles and channels are, and a member's roles now (names.ts). */
  directory?: Required<Pick<ChatAdapter, "names" | "rolesOf">>;
}

/** Where a link to a message in a DM or group DM points instead of a guild. */
const DM_LINK = "@me";

/** The first line of what continues in the person's DM: where it comes from, and why it is here. */
function whyInDm(target: ConversationRef, t: Translator): string {
  if (target.privateFrom !== undefined) {
    return t.text("platform.discord.dm_private", { channel: `<#${target.privateFrom}>`, minutes: 15 });
  }
  return t.text("platform.discord.dm_moved", {
    from: target.data?.guild === DM_LINK ? "group" : "channel",
    channel: `<#${target.channelId}>`,
    why: target.data?.cannotPost === true ? "cannot_post" : "not_member",
    minutes: 15,
  });
}

/**
 * A job's progress on a message only its interaction's token reaches says beforehand where the
 * job goes past the token's 15 minutes, so that a bar that stops moving surprises nobody.
 */
function withDmHint(message: Message, where: ConversationRef | MessageRef): Message {
  if (!isCard(message) || message.progress === undefined) return message;
  const t = translatorFor(message.locale);
  const dm = t.text("platform.discord.dm_hint", { minutes: 15 });
  const hints = where.data?.cannotPost === true ? [t.text("platform.discord.cannot_post_hint"), dm] : [dm];
  return { ...message, lines: [...message.lines, ...hints] };
}

/**
 * Whether the bot may post its cards in the interaction's channel with its own token: see it,
 * send there (in a thread: send in threads), and embed (a card is an embed; without Embed Links
 * Discord would show it empty). Read from `app_permissions`, never by trying the channel.
 */
function mayPost(interaction: InteractionInfo): boolean {
  const granted = interaction.appPermissions;
  if (!granted) return true;
  const send = interaction.channel?.isThread()
    ? PermissionFlagsBits.SendMessagesInThreads
    : PermissionFlagsBits.SendMessages;
  return [PermissionFlagsBits.ViewChannel, send, PermissionFlagsBits.EmbedLinks].every((p) => granted.has(p));
}

const NO_ATTACHING = msg("platform.discord.no_attaching");

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
    const place = placeOf(interaction);
    const cannotPost = place === "server" && !mayPost(interaction);
    const noFiles = interaction.appPermissions?.has(PermissionFlagsBits.AttachFiles) === false;
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
        ...(cannotPost && { cannotPost: true }),
        ...(noFiles && place === "server" && { noFiles: true }),
      },
      live: { token: interaction.token, at: interaction.createdTimestamp },
      ...((place === "elsewhere" || cannotPost) && { gestureOnly: true as const }),
    };
  }

  /** What Discord takes per file from whoever posts to `target` now: the interaction while its token lives, else the bot. */
  uploadLimit(target: ConversationRef | MessageRef): number {
    return this.uploader(target, this.live(target) !== undefined).bytes;
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
      throw chatErrorOf(error);
    });
  }

  edit(ref: MessageRef, message: Message): Promise<void> {
    return this.change(ref, message).catch((error: unknown) => {
      throw chatErrorOf(error);
    });
  }

  /**
   * Deletes through the click's own interaction when the click is on that very message (`@original`
   * of a component's interaction is the message it is on): the only way to a private reply, or to
   * one where the bot is no member, once the job that posted it kept no token. Otherwise through
   * the message's own token while it lives, else with the bot token, which deletes the bot's own
   * messages in channels and DMs. Unknown Message (10008) is a message gone already: done.
   */
  async remove(ref: MessageRef, click?: ConversationRef): Promise<void> {
    try {
      await this.erase(ref, click);
    } catch (error) {
      const refused = deleteErrorOf(error);
      if (refused !== undefined) throw refused;
    }
  }

  private async erase(ref: MessageRef, click: ConversationRef | undefined): Promise<void> {
    const { rest, applicationId } = this.options;
    const clicked = click && click.data?.deferral === "update" ? this.live(click) : undefined;
    if (clicked) {
      await rest.delete(Routes.webhookMessage(applicationId(), clicked.token, "@original"), { auth: false });
      return;
    }
    const token = this.live(ref);
    if (token) {
      await rest.delete(Routes.webhookMessage(applicationId(), token.token, ref.messageId), { auth: false });
      return;
    }
    if (ref.data?.ephemeral === true || ref.data?.gestureOnly === true)
      throw new DeleteRefusedError(PRIVATE_REPLY);
    await rest.delete(Routes.channelMessage(ref.channelId, ref.messageId));
  }

  /** The clicked message, replaced through the click's own interaction (deferred as an update), private ones too. */
  replace(target: ConversationRef, message: Message): Promise<void> {
    return this.swap(target, message).catch((error: unknown) => {
      throw chatErrorOf(error);
    });
  }

  /**
   * Who uploads to `target`, and how much Discord takes from it per file: through the interaction's
   * token its `attachment_size_limit`; with the bot token the server's boost limit (the bot has no
   * Nitro), the default in a DM, where everything only the person may see goes past the token.
   */
  private uploader(target: ConversationRef | MessageRef, viaToken: boolean): Uploader {
    if (viaToken) {
      const limit = target.data?.sizeLimit;
      return {
        bytes: typeof limit === "number" && limit > 0 ? limit : DISCORD_LIMITS.defaultUploadBytes,
        where: "command",
      };
    }
    const guild = target.data?.guild;
    const toDm =
      "privateFrom" in target
        ? target.privateFrom !== undefined || target.gestureOnly === true
        : target.data?.ephemeral === true || target.data?.gestureOnly === true;
    if (toDm || typeof guild !== "string" || guild === DM_LINK) {
      return { bytes: DISCORD_LIMITS.defaultUploadBytes, where: "dm" };
    }
    const boosted = DISCORD_LIMITS.boostUploadBytes[this.options.boostTier?.(guild) ?? 0];
    return {
      bytes: Math.max(DISCORD_LIMITS.defaultUploadBytes, boosted ?? 0),
      where: "server",
      ...(target.data?.noFiles === true && { refused: NO_ATTACHING }),
    };
  }

  private async swap(target: ConversationRef, message: Message): Promise<void> {
    const token = this.live(target);
    if (!token || target.data?.deferral !== "update") {
      throw new Error("only a click's own interaction can replace the message it clicked");
    }
    const rendered = renderMessage(message);
    const files = await filesOf(rendered, this.uploader(target, true));
    const original = Routes.webhookMessage(this.options.applicationId(), token.token, "@original");
    await this.options.rest.patch(original, { body: rendered.body, files, auth: false });
  }

  private async send(target: ConversationRef, message: Message, options: PostOptions): Promise<MessageRef> {
    const token = this.live(target);
    // A keyed post must survive a crash and a retry: only channel messages know nonces.
    if (options.idempotencyKey || !token) return this.withBotToken(target, message, options);
    try {
      return await this.throughToken(target, message, options, token);
    } catch (error) {
      // The bot's clock ran behind Discord's and the token died early: the bot token still works.
      if (answerOf(error).verdict !== "credential") throw error;
      this.options.logger.debug(
        { channelId: target.channelId },
        "interaction token refused: posting with the bot token",
      );
      return this.withBotToken(target, message, options);
    }
  }

  private async throughToken(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
    token: TokenData,
  ): Promise<MessageRef> {
    const secret = target.privateFrom !== undefined;
    const ephemeral = options.ephemeral === true || secret;
    const rendered = renderMessage(
      secret || target.gestureOnly ? withDmHint(message, target) : message,
      options.mentionUserId ? { mentionUserId: options.mentionUserId } : {},
    );
    const files = await filesOf(rendered, this.uploader(target, true));
    const { rest } = this.options;
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
        // Someone deleted the placeholder, or its token died: no later post can take it.
        const { verdict } = answerOf(error);
        if (verdict !== "gone" && verdict !== "credential") this.placeholders.set(interactionId, createdAt);
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

  /** A post without the interaction: a channel message, or the person's DM for what only they may see. */
  private async withBotToken(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
  ): Promise<MessageRef> {
    if (target.privateFrom !== undefined || target.gestureOnly) return this.direct(target, message, options);
    if (options.ephemeral) throw new Error("a private answer needs a live interaction token");
    const rendered = renderMessage(
      message,
      options.mentionUserId ? { mentionUserId: options.mentionUserId } : {},
    );
    const files = await filesOf(rendered, this.uploader(target, false));
    const nonce = options.idempotencyKey && nonceOf(options.idempotencyKey);
    const body = { ...rendered.body, ...(nonce && { nonce, enforce_nonce: true }) };
    const posted = await this.options.rest.post(Routes.channelMessages(target.channelId), { body, files });
    return this.ref(posted as APIMessage, target, undefined, false);
  }

  /**
   * What a private job, or one where the bot cannot post, posts without its interaction (the
   * token died, or a keyed post, which needs a nonce): a message in the person's DM with the bot,
   * saying where it comes from and why.
   */
  private async direct(target: ConversationRef, message: Message, options: PostOptions): Promise<MessageRef> {
    const user = target.data?.user;
    if (typeof user !== "string") throw new Error("a private answer needs the conversation's user");
    const { rest } = this.options;
    // A message the core diverted here says why itself.
    const why = target.diverted
      ? undefined
      : whyInDm(target, translatorFor(isCard(message) ? message.locale : undefined));
    const explained =
      why === undefined
        ? message
        : isCard(message)
          ? { ...message, lines: [why, ...message.lines] }
          : { text: `${why}\n${message.text}` };
    const rendered = renderMessage(
      explained,
      options.mentionUserId ? { mentionUserId: options.mentionUserId } : {},
    );
    // Read before the DM is opened: a file the DM would refuse costs no request.
    const files = await filesOf(rendered, this.uploader(target, false));
    const dm = (await rest.post(Routes.userChannels(), { body: { recipient_id: user } })) as APIDMChannel;
    const nonce = options.idempotencyKey && nonceOf(options.idempotencyKey);
    const body = { ...rendered.body, ...(nonce && { nonce, enforce_nonce: true }) };
    const posted = await rest.post(Routes.channelMessages(dm.id), { body, files });
    return this.ref(posted as APIMessage, target, undefined, false);
  }

  private async change(ref: MessageRef, message: Message): Promise<void> {
    // Only its interaction's token reaches a private message, or one where the bot cannot post.
    const tokenOnly = ref.data?.ephemeral === true || ref.data?.gestureOnly === true;
    const { rest, applicationId, logger } = this.options;
    const token = this.live(ref);
    if (token) {
      const rendered = renderMessage(tokenOnly ? withDmHint(message, ref) : message);
      const files = await filesOf(rendered, this.uploader(ref, true));
      try {
        await rest.patch(Routes.webhookMessage(applicationId(), token.token, ref.messageId), {
          body: rendered.body,
          files,
          auth: false,
        });
        return;
      } catch (error) {
        // The bot's clock ran behind Discord's and the token died early: the bot token still works.
        if (answerOf(error).verdict !== "credential") throw error;
        if (tokenOnly) throw new MessageGoneError({ cause: error });
        logger.debug({ messageId: ref.messageId }, "interaction token expired: editing with the bot token");
      }
    }
    // Past the token's 15 minutes such a message stays as it is, and what it was to show is
    // posted anew, in the person's DM.
    if (tokenOnly) throw new MessageGoneError();
    const rendered = renderMessage(message);
    const files = await filesOf(rendered, this.uploader(ref, false));
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
      ...(token && target.data?.cannotPost === true && { cannotPost: true }),
      ...(target.data?.noFiles === true && guild !== DM_LINK && { noFiles: true }),
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
