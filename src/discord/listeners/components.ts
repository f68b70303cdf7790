import type { ButtonInteraction, StringSelectMenuInteraction } from "discord.js";
import { actionByName } from "../../core/actions/catalogue.js";
import { formWords } from "../../core/home/form-words.js";
import { type ControlId, decodeControlId, encodeControlId } from "../custom-id.js";
import { formFields, optionsOf } from "../forms.js";
import type { Gesture } from "../gesture.js";
import { DISCORD_LIMITS as L } from "../limits.js";
import { staleControlNotice } from "../notices.js";
import { formModal } from "../render/modal.js";
import type { Listening } from "./context.js";

/** A click or a choice on a message the core acts on; the message is updated in place. */
async function actOn(
  ctx: Listening,
  i: ButtonInteraction | StringSelectMenuInteraction,
  gesture: Gesture,
  decoded: ControlId | undefined,
  value: string | undefined,
): Promise<void> {
  await i.deferUpdate();
  const conversation = gesture.reply("update");
  if (!decoded) {
    ctx.later(gesture, "stale control notice", () =>
      ctx.adapter.post(conversation, staleControlNotice, { ephemeral: true }),
    );
    return;
  }
  ctx.later(gesture, decoded.action, () =>
    ctx.bot.handleAction({
      action: decoded.action,
      jobId: decoded.jobId,
      ...(value !== undefined && { value }),
      actor: gesture.actor,
      ...(gesture.message && { message: gesture.message }),
      conversation,
    }),
  );
}

/** A button on one of the core's messages. */
export async function clicked(ctx: Listening, i: ButtonInteraction, gesture: Gesture): Promise<void> {
  const decoded = decodeControlId(i.customId);
  // A follow-up asks its form first: the modal must be the click's first response. In a DM
  // too: a private result that came by DM keeps its follow-ups (the core finds its server).
  if (decoded && actionByName(decoded.action)?.form) {
    const form = await ctx.bot.actionForm({
      action: decoded.action,
      jobId: decoded.jobId,
      actor: gesture.actor,
      ...(decoded.value !== undefined && { value: decoded.value }),
      conversation: { channelId: gesture.channelId },
    });
    if (form) {
      const words = formWords(await ctx.bot.formLocale(gesture.actor));
      const fields = formFields(optionsOf(form.form), form.initial, form.choices, {
        form: form.form,
        words,
      }).slice(0, L.modalComponents);
      const title = words.title({ action: decoded.action }, form.title);
      await i.showModal(formModal(encodeControlId(decoded), title, fields));
      return;
    }
  }
  await actOn(ctx, i, gesture, decoded, decoded?.value);
}

/** A select's choice is its control's value; a settings panel's selects are the only ones. */
export async function selected(
  ctx: Listening,
  i: StringSelectMenuInteraction,
  gesture: Gesture,
): Promise<void> {
  const value = i.values[0];
  await actOn(ctx, i, gesture, value === undefined ? undefined : decodeControlId(i.customId), value);
}
