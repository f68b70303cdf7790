import { ComponentType, MessageFlags, type ModalSubmitInteraction } from "discord.js";
import { actionByName } from "../../core/actions/catalogue.js";
import type { Attachment } from "../../core/base/ports.js";
import { errorCard } from "../../core/render/errors.js";
import { type ControlId, decodeControlId } from "../custom-id.js";
import { userAttachment } from "../files.js";
import { formKeyOf } from "../forms.js";
import type { Gesture } from "../gesture.js";
import { imageAttachment } from "../message-images.js";
import { expiredFormNotice } from "../notices.js";
import type { SubmittedForm } from "../pending-forms.js";
import { asksPrivate, defer, type Listening } from "./context.js";

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
async function followUpSubmitted(
  ctx: Listening,
  i: ModalSubmitInteraction,
  gesture: Gesture,
  control: ControlId,
): Promise<void> {
  const onPanel = actionByName(control.action)?.on === "settings" && i.isFromMessage();
  if (onPanel) await i.deferUpdate();
  const conversation = onPanel
    ? gesture.reply("update")
    : await defer(i, gesture, i.message?.flags.has(MessageFlags.Ephemeral) ?? false);
  const fields = typedIn(i);
  const attachments = uploadedIn(i);
  ctx.later(gesture, control.action, () =>
    ctx.bot.handleAction({
      action: control.action,
      jobId: control.jobId,
      ...(control.value !== undefined && { value: control.value }),
      fields,
      attachments,
      actor: gesture.actor,
      ...(gesture.message && { message: gesture.message }),
      conversation,
      entry: "form",
    }),
  );
}

/** A form submitted: a follow-up's, or a command's (with the command line and files it waited with). */
export async function formSubmitted(
  ctx: Listening,
  i: ModalSubmitInteraction,
  gesture: Gesture,
): Promise<void> {
  const control = decodeControlId(i.customId);
  if (control) return followUpSubmitted(ctx, i, gesture, control);
  const key = formKeyOf(i.customId);
  const pending = key === undefined ? undefined : await ctx.forms.take(key, gesture.actor.userId);
  const typed = typedIn(i);
  const privately = pending !== undefined && asksPrivate({ ...pending.options, ...typed });
  const conversation = await defer(
    i,
    gesture,
    pending ? pending.command.ephemeral === true || privately : true,
  );
  if (!pending) {
    ctx.later(gesture, "expired form notice", () =>
      ctx.adapter.post(conversation, expiredFormNotice, { ephemeral: true }),
    );
    return;
  }
  const image = pending.image;
  ctx.later(gesture, pending.command.name, async () => {
    let attachments: Record<string, Attachment[]>;
    try {
      attachments = await attachmentsOf(pending);
    } catch (error) {
      await ctx.adapter.post(conversation, errorCard(error), { ephemeral: true });
      return;
    }
    await ctx.bot.handleCommand({
      command: pending.command.name,
      options: { ...pending.options, ...typed },
      attachments,
      actor: gesture.actor,
      conversation,
      entry: image ? "context_menu" : "form",
      ...(image?.source.jobId && { results: { [image.option]: image.source.jobId } }),
    });
  });
}
