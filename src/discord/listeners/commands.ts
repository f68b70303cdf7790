import type { ChatInputCommandInteraction, MessageContextMenuCommandInteraction } from "discord.js";
import { imageInputByLabel, noImageNotice } from "../../core/actions/image-inputs.js";
import { commandByName } from "../../core/commands/catalogue.js";
import { formWords } from "../../core/home/form-words.js";
import { commandTextsOf } from "../../core/i18n/command-texts.js";
import { translatorFor } from "../../core/i18n/translator.js";
import { catalogueName } from "../commands.js";
import { commandLineOptions, formCustomId, formFields, formOptions, humanize, optionsOf } from "../forms.js";
import type { Gesture } from "../gesture.js";
import { DISCORD_LIMITS as L } from "../limits.js";
import { imageOf } from "../message-images.js";
import { staleControlNotice } from "../notices.js";
import { readOptions } from "../options.js";
import { formModal } from "../render/modal.js";
import { asksPrivate, defer, type Listening } from "./context.js";

/**
 * A slash command: its form at once (the first response) when the command line leaves something
 * to ask, else deferred, and the command for the core.
 */
export async function slashCommand(
  ctx: Listening,
  i: ChatInputCommandInteraction,
  gesture: Gesture,
): Promise<void> {
  const name = catalogueName(i.commandName, i.options.getSubcommand(false));
  const def = commandByName(name);
  const input = readOptions(def, i.options.data);
  const asked = def ? formOptions(def, input.options) : [];
  if (def && asked.length > 0) {
    const key = await ctx.forms.put({
      command: def,
      options: commandLineOptions(def, input.options),
      files: input.files,
      userId: gesture.actor.userId,
    });
    const words = formWords(await ctx.bot.formLocale(gesture.actor));
    const title = words.title({ command: def.name }, humanize(def.name), L.modalTitle);
    await i.showModal(formModal(formCustomId(key), title, formFields(asked, {}, {}, { form: def, words })));
    return;
  }
  // A command the catalogue lacks (a stale registration) gets the core's private error.
  const conversation = await defer(
    i,
    gesture,
    def ? def.ephemeral === true || asksPrivate(input.options) : true,
  );
  ctx.later(gesture, name, () =>
    ctx.bot.handleCommand({
      command: name,
      options: def ? commandLineOptions(def, input.options) : input.options,
      attachments: input.attachments,
      actor: gesture.actor,
      conversation,
    }),
  );
}

/**
 * Apps > "Edit image" on a message: the follow-up's form at once (the first response), with the
 * message's image waiting for its submission; a message without an image is told so privately.
 */
export async function messageCommand(
  ctx: Listening,
  i: MessageContextMenuCommandInteraction,
  gesture: Gesture,
): Promise<void> {
  const input = imageInputByLabel(i.commandName);
  const command = input && commandByName(input.command);
  const source = imageOf(i.targetMessage, i.client.user.id);
  if (!input || !command || !source) {
    const conversation = await defer(i, gesture, true);
    const t = translatorFor(await ctx.bot.formLocale(gesture.actor));
    // The menu's entry as the person's client names it ("Bild bearbeiten").
    const name = input && (commandTextsOf(t.locale).commands[input.label]?.name ?? input.label);
    const notice = input ? noImageNotice(input, t, name) : staleControlNotice;
    ctx.later(gesture, "message command notice", () =>
      ctx.adapter.post(conversation, notice, { ephemeral: true }),
    );
    return;
  }
  const key = await ctx.forms.put({
    command,
    options: {},
    files: {},
    userId: gesture.actor.userId,
    image: { option: input.file, source },
  });
  const words = formWords(await ctx.bot.formLocale(gesture.actor));
  const fields = formFields(optionsOf(input.form), {}, {}, { form: input.form, words });
  await i.showModal(formModal(formCustomId(key), words.title({ input: input.name }, input.title), fields));
}
