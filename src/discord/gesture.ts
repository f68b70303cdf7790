import type { Interaction } from "discord.js";
import type { Actor, ConversationRef, MessageRef } from "../core/base/ports.js";
import { laneOf } from "../core/intake/fair-queue.js";
import { actorOf } from "./actor.js";
import type { Deferral, DiscordAdapter } from "./adapter.js";

/**
 * A gesture: what one interaction says about itself, read here once whatever its kind (a slash
 * command, a message command, a search in an option, a form submitted, a click, a choice), so that
 * each listener starts from the same facts: who, where, which tenant, and the reply credential.
 * The gateway and POST /discord/interactions hand the listeners the same discord.js Interaction
 * (http/endpoint.ts builds it as the gateway does), so both are read here alike.
 *
 * Nothing to deduplicate: Discord sends each interaction once, over either path, and never
 * again (no retries; a second first response would be refused with 40060 anyway).
 */
export interface Gesture {
  /** Who acts, and the tenant they act in: the server that added the bot, else the person (actor.ts). */
  actor: Actor;
  /** Where: the channel ("" where Discord gives none). */
  channelId: string;
  /** The message the gesture was made on: a click, a choice, a form opened from a button. */
  message?: MessageRef;
  /** The person's lane in the queue of work behind the first responses (one per server and person). */
  lane: string;
  /**
   * The conversation the core answers in, once Discord has the first response: through the
   * interaction's token (15 minutes), which the adapter records with its age (adapter.ts).
   */
  reply(deferral: Deferral): ConversationRef;
}

export function gestureOf(interaction: Interaction, adapter: Pick<DiscordAdapter, "conversation">): Gesture {
  const on = "message" in interaction ? interaction.message : undefined;
  return {
    actor: actorOf(interaction),
    channelId: interaction.channelId ?? "",
    ...(on && { message: { platform: "discord", channelId: on.channelId, messageId: on.id } }),
    lane: laneOf("discord", interaction.guildId ?? "", interaction.user.id),
    reply: (deferral) => adapter.conversation(interaction, deferral),
  };
}
