import {
  type ChatInputCommandInteraction,
  type MessageContextMenuCommandInteraction,
  MessageFlags,
  type ModalSubmitInteraction,
} from "discord.js";
import type { ConversationRef } from "../../core/base/ports.js";
import type { Bot } from "../../core/bot.js";
import type { DiscordAdapter } from "../adapter.js";
import type { Gesture } from "../gesture.js";
import type { PendingForms } from "../pending-forms.js";

/** What every listener works with: the core, the adapter, the forms waiting, and the queue behind the acks. */
export interface Listening {
  bot: Pick<Bot, "handleCommand" | "handleAction" | "handleAutocomplete" | "actionForm" | "formLocale">;
  adapter: DiscordAdapter;
  forms: PendingForms;
  /** The core's work behind the first response, in the person's lane; a failure is logged as `what`'s. */
  later(gesture: Gesture, what: string, task: () => Promise<unknown>): void;
}

/** The first response of a command or a form: "thinking…", in public or privately. */
export async function defer(
  i: ChatInputCommandInteraction | MessageContextMenuCommandInteraction | ModalSubmitInteraction,
  gesture: Gesture,
  ephemeral: boolean,
): Promise<ConversationRef> {
  await i.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
  return gesture.reply(ephemeral ? "ephemeral" : "public");
}

/**
 * A command that asks for a private result itself is deferred privately, so nothing shows in
 * the channel; one made private by a default only (read after the ack) has its public
 * placeholder deleted when the job's private message comes.
 */
export const asksPrivate = (options: Record<string, unknown>) => options.delivery === "private";
