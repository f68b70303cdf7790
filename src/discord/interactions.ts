import {
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  ComponentType,
  type Interaction,
  type MessageContextMenuCommandInteraction,
  MessageFlags,
  type ModalSubmitInteraction,
  type StringSelectMenuInteraction,
} from "discord.js";
import { actionByName } from "../core/actions/catalogue.js";
import { imageInputByLabel, noImageNotice } from "../core/actions/image-inputs.js";
import type { Logger } from "../core/base/log.js";
import type { Attachment } from "../core/base/ports.js";
import type { Bot } from "../core/bot.js";
import { commandByName } from "../core/commands/catalogue.js";
import { FairQueue, laneOf } from "../core/intake/fair-queue.js";
import type { Intake } from "../core/intake/intake.js";
import { errorCard } from "../core/render/errors.js";
import { actorOf } from "./actor.js";
import type { DiscordAdapter } from "./adapter.js";
import { catalogueName } from "./commands.js";
import { type ControlId, decodeControlId, encodeControlId } from "./custom-id.js";
import { userAttachment } from "./files.js";
import {
  commandLineOptions,
  formCustomId,
  formFields,
  formKeyOf,
  formOptions,
  humanize,
  optionsOf,
} from "./forms.js";
import { DISCORD_LIMITS as L } from "./limits.js";
import { imageAttachment, imageOf } from "./message-images.js";
import { expiredFormNotice, staleControlNotice } from "./notices.js";
import { readOptions } from "./options.js";
import type { PendingForms, SubmittedForm } from "./pending-forms.js";
import { formModal } from "./render/modal.js";
import { cut } from "./render/text.js";

/**
 * Interactions in, core events out. Each handler gives Discord its first response before
 * anything else (a defer, or a modal), since an interaction not answered within 3 s is dead; the
 * core's work then waits in a queue, so a burst of commands cannot delay the acknowledgements of
 * the ones still arriving.
 */

export interface InteractionHandlerOptions {
  bot: Pick<Bot, "handleCommand" | "handleAction" | "handleAutocomplete" | "actionForm">;
  adapter: DiscordAdapter;
  forms: PendingForms;
  logger: Logger;
  /** The bot's HTTP requests: the work behind the acks waits while a burst of them arrives. */
  intake?: Intake;
}

export interface InteractionHandler {
  handle(interaction: Interaction): Promise<void>;
  /** Resolves once the queued work is done. */
  idle(): Promise<void>;
}

/** Commands and clicks the core works on at once (as many as Slack's side), one per person at most. */
const CONCURRENT_WORK = 16;

export function createInteractionHandler(options: InteractionHandlerOptions): InteractionHandler {
  const { bot, adapter, forms, logger } = options;
  const work = new FairQueue(CONCURRENT_WORK, options.intake);
  const later = (i: Interaction, what: string, task: () => Promise<unknown>) => {
    work
      .add(laneOf("discord", i.guildId ?? "", i.user.id), task)
      .catch((error: unknown) => logger.error({ err: error }, `${what} failed`));
  };

  /** The first response of a command or a form: "thinking…", in public or privately. */
  async function defer(
    i: ChatInputCommandInteraction | MessageContextMenuCommandInteraction | ModalSubmitInteraction,
    ephemeral: boolean,
  ) {
    await i.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    return adapter.conversation(i, ephemeral ? "ephemeral" : "public");
  }

  /**
   * A command that asks for a private result itself is deferred privately, so nothing shows in
   * the channel; one made private by a default only (read after the ack) has its public
   * placeholder deleted when the job's private message comes.
   */
  const asksPrivate = (options: Record<string, unknown>) => options.delivery === "private";

  async function command(i: ChatInputCommandInteraction): Promise<void> {
    const name = catalogueName(i.commandName, i.options.getSubcommand(false));
    const def = commandByName(name);
    const input = readOptions(def, i.options.data);
    const asked = def ? formOptions(def, input.options) : [];
    if (def && asked.length > 0) {
      const key = await forms.put({
        command: def,
        options: commandLineOptions(def, input.options),
        files: input.files,
        userId: i.user.id,
      });
      await i.showModal(formModal(formCustomId(key), humanize(def.name), formFields(asked)));
      return;
    }
    // A command the catalogue lacks (a stale registration) gets the core's private error.
    const conversation = await defer(i, def ? def.ephemeral === true || asksPrivate(input.options) : true);
    later(i, name, () =>
      bot.handleCommand({
        command: name,
        options: def ? commandLineOptions(def, input.options) : input.options,
        attachments: input.attachments,
        actor: actorOf(i),
        conversation,
      }),
    );
  }

  /**
   * Apps > "Edit image" on a message: the follow-up's form at once (the first response), with the
   * message's image waiting for its submission; a message without an image is told so privately.
   */
  async function messageCommand(i: MessageContextMenuCommandInteraction): Promise<void> {
    const input = imageInputByLabel(i.commandName);
    const command = input && commandByName(input.command);
    const source = imageOf(i.targetMessage, i.client.user.id);
    if (!input || !command || !source) {
      const conversation = await defer(i, true);
      const notice = input ? noImageNotice(input) : staleControlNotice;
      later(i, "message command notice", () => adapter.post(conversation, notice, { ephemeral: true }));
      return;
    }
    const key = await forms.put({
      command,
      options: {},
      files: {},
      userId: i.user.id,
      image: { option: input.file, source },
    });
    await i.showModal(formModal(formCustomId(key), input.title, formFields(optionsOf(input.form))));
  }

  /** The files of a submitted form: those the command line gave, and a message command's image. */
  async function attachmentsOf(pending: SubmittedForm): Promise<Record<string, Attachment[]>> {
    if (!pending.image) return pending.attachments;
    const { option, source } = pending.image;
    return { ...pending.attachments, [option]: [await imageAttachment(source)] };
  }

  /** What a modal's inputs hold, by custom_id: the text typed, or the option chosen in a select. */
  function typedIn(i: ModalSubmitInteraction): Record<string, string> {
    return Object.fromEntries(
      [...i.fields.fields.values()].flatMap((f) => {
        if (f.type === ComponentType.FileUpload) return [];
        if ("value" in f && typeof f.value === "string") return [[f.customId, f.value]];
        if ("values" in f && Array.isArray(f.values) && typeof f.values[0] === "string") {
          return [[f.customId, f.values[0]]];
        }
        return [];
      }),
    );
  }

  /** The files given in a modal's file uploads, by custom_id. */
  function uploadedIn(i: ModalSubmitInteraction): Record<string, Attachment[]> {
    return Object.fromEntries(
      [...i.fields.fields.values()].flatMap((f) => {
        if (f.type !== ComponentType.FileUpload) return [];
        const files = [...(i.fields.getUploadedFiles(f.customId)?.values() ?? [])];
        return [[f.customId, files.map(userAttachment)]];
      }),
    );
  }

  /**
   * A follow-up's form: the new job's message answers it, privately when the result it follows
   * was private. A settings form (on the private panel) changes the panel it was opened from instead.
   */
  async function followUpForm(i: ModalSubmitInteraction, control: ControlId): Promise<void> {
    const onPanel = actionByName(control.action)?.on === "settings" && i.isFromMessage();
    if (onPanel) await i.deferUpdate();
    const conversation = onPanel
      ? adapter.conversation(i, "update")
      : await defer(i, i.message?.flags.has(MessageFlags.Ephemeral) ?? false);
    const fields = typedIn(i);
    const attachments = uploadedIn(i);
    later(i, control.action, () =>
      bot.handleAction({
        action: control.action,
        jobId: control.jobId,
        ...(control.value !== undefined && { value: control.value }),
        fields,
        attachments,
        actor: actorOf(i),
        ...(i.message && {
          message: { platform: "discord", channelId: i.message.channelId, messageId: i.message.id },
        }),
        conversation,
        entry: "form",
      }),
    );
  }

  async function modal(i: ModalSubmitInteraction): Promise<void> {
    const control = decodeControlId(i.customId);
    if (control) return followUpForm(i, control);
    const key = formKeyOf(i.customId);
    const pending = key === undefined ? undefined : await forms.take(key, i.user.id);
    const typed = typedIn(i);
    const privately = pending !== undefined && asksPrivate({ ...pending.options, ...typed });
    const conversation = await defer(i, pending ? pending.command.ephemeral === true || privately : true);
    if (!pending) {
      later(i, "expired form notice", () =>
        adapter.post(conversation, expiredFormNotice, { ephemeral: true }),
      );
      return;
    }
    const image = pending.image;
    later(i, pending.command.name, async () => {
      let attachments: Record<string, Attachment[]>;
      try {
        attachments = await attachmentsOf(pending);
      } catch (error) {
        await adapter.post(conversation, errorCard(error), { ephemeral: true });
        return;
      }
      await bot.handleCommand({
        command: pending.command.name,
        options: { ...pending.options, ...typed },
        attachments,
        actor: actorOf(i),
        conversation,
        entry: image ? "context_menu" : "form",
        ...(image?.source.jobId && { results: { [image.option]: image.source.jobId } }),
      });
    });
  }

  /** A select's choice is its control's value; a settings panel's selects are the only ones. */
  async function selected(i: StringSelectMenuInteraction): Promise<void> {
    const value = i.values[0];
    await actOn(i, value === undefined ? undefined : decodeControlId(i.customId), value);
  }

  async function control(i: ButtonInteraction): Promise<void> {
    const decoded = decodeControlId(i.customId);
    // A follow-up asks its form first: the modal must be the click's first response. In a DM
    // too: a private result that came by DM keeps its follow-ups (the core finds its server).
    if (decoded && actionByName(decoded.action)?.form) {
      const form = await bot.actionForm({
        action: decoded.action,
        jobId: decoded.jobId,
        actor: actorOf(i),
        ...(decoded.value !== undefined && { value: decoded.value }),
        conversation: { channelId: i.channelId },
      });
      if (form) {
        const fields = formFields(optionsOf(form.form), form.initial, form.choices).slice(
          0,
          L.modalComponents,
        );
        await i.showModal(formModal(encodeControlId(decoded), form.title, fields));
        return;
      }
    }
    await actOn(i, decoded, decoded?.value);
  }

  /** A click or a choice on a message the core acts on; the message is updated in place. */
  async function actOn(
    i: ButtonInteraction | StringSelectMenuInteraction,
    decoded: ControlId | undefined,
    value: string | undefined,
  ): Promise<void> {
    await i.deferUpdate();
    const conversation = adapter.conversation(i, "update");
    if (!decoded) {
      later(i, "stale control notice", () =>
        adapter.post(conversation, staleControlNotice, { ephemeral: true }),
      );
      return;
    }
    later(i, decoded.action, () =>
      bot.handleAction({
        action: decoded.action,
        jobId: decoded.jobId,
        ...(value !== undefined && { value }),
        actor: actorOf(i),
        message: { platform: "discord", channelId: i.message.channelId, messageId: i.message.id },
        conversation,
      }),
    );
  }

  /** Answered at once from the core's cached lists; Discord allows no defer here. */
  async function autocomplete(i: AutocompleteInteraction): Promise<void> {
    const focused = i.options.getFocused(true);
    const choices = await bot.handleAutocomplete({
      command: catalogueName(i.commandName, i.options.getSubcommand(false)),
      option: focused.name,
      query: String(focused.value),
      actor: actorOf(i),
      conversation: { platform: "discord", channelId: i.channelId ?? "" },
    });
    await i.respond(
      choices
        .filter((c) => c.value.length <= L.choiceValue)
        .slice(0, L.autocompleteChoices)
        .map((c) => ({ name: cut(c.label, L.choiceName) || c.value, value: c.value })),
    );
  }

  return {
    async handle(interaction) {
      try {
        if (interaction.isChatInputCommand()) await command(interaction);
        else if (interaction.isMessageContextMenuCommand()) await messageCommand(interaction);
        else if (interaction.isAutocomplete()) await autocomplete(interaction);
        else if (interaction.isModalSubmit()) await modal(interaction);
        else if (interaction.isButton()) await control(interaction);
        else if (interaction.isStringSelectMenu()) await selected(interaction);
      } catch (error) {
        // Mostly a first response that came too late (10062): nothing can reach the user any more.
        logger.warn({ err: error, interactionId: interaction.id }, "interaction not answered");
      }
    },
    idle: () => work.onIdle(),
  };
}
