import type { Middleware, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { Attachment, ConversationRef } from "../../core/base/ports.js";
import { stepText } from "../../core/flows/steps.js";
import { readerLocale } from "../../core/i18n/locale.js";
import { type Translator, translatorFor } from "../../core/i18n/translator.js";
import { errorCard } from "../../core/render/errors.js";
import { userFilesByOption } from "../files.js";
import { gestureOf, isPerson } from "../gesture.js";
import { stepConversation } from "../step-refs.js";
import { missingImage, readInputs, type StepDef, USER_INPUT } from "../steps.js";
import type { Listening } from "./context.js";

/**
 * The listeners of the workflow steps (steps.ts): a function_executed event becomes the step's
 * command, run as the person in its user_context input, exactly as their slash command would be.
 * Bolt acknowledges the event first; the step then stays running until its job ends, when the
 * core completes it (ChatAdapter.completeStep), or until a refusal ends it with the reason.
 */

async function fail(ctx: Listening, where: ConversationRef, reason: string): Promise<void> {
  await ctx.adapter.completeStep(where, { ok: false, reason }).catch((error: unknown) => {
    ctx.logger.warn(
      { err: error, execution: where.data?.execution },
      "workflow step not ended with its error",
    );
  });
}

/**
 * The files of the step's inputs, read with the workspace's bot token; undefined once the step
 * failed (said in its person's language, `t`).
 */
async function stepFiles(
  ctx: Listening,
  teamId: string,
  ids: Record<string, string[]>,
  where: ConversationRef,
  t: Translator,
): Promise<Record<string, Attachment[]> | undefined> {
  try {
    return await userFilesByOption(await ctx.workspaces.client(teamId), ids);
  } catch (error) {
    ctx.logger.warn({ err: error }, "a workflow step's file could not be read");
    await fail(ctx, where, stepText(errorCard(error, {}, t)));
    return undefined;
  }
}

/** One of the app's steps started by a workflow. */
export function stepStarted(
  ctx: Listening,
  step: StepDef,
): Middleware<SlackEventMiddlewareArgs<"function_executed">> {
  return async ({ event, body, context }) => {
    const gesture = gestureOf(body, context);
    if (!(await ctx.first(gesture))) return;
    const { teamId, step: run } = gesture;
    const { options, files, links, ends } = readInputs(step, event.inputs);
    const where = stepConversation(teamId, gesture.userId ?? "", run.executionId, run.token, ends);
    if (!isPerson(gesture)) {
      // Nobody to read it but the workflow's builder: in English, the language of its manifest.
      await fail(ctx, where, translatorFor("en").text("step.no_person", { input: USER_INPUT }));
      return;
    }
    const lacking = missingImage(step, { files, links });
    if (lacking) {
      const locale = await ctx.actors.locale(teamId, gesture.userId);
      await fail(ctx, where, translatorFor(locale).say(lacking));
      return;
    }
    await ctx.later(gesture, async () => {
      const actor = await ctx.actors.of(teamId, gesture.userId);
      const attachments = await stepFiles(ctx, teamId, files, where, translatorFor(readerLocale(actor)));
      if (!attachments) return;
      await ctx.bot.handleCommand({
        command: step.command,
        options,
        attachments,
        links,
        actor,
        conversation: where,
        entry: "workflow_step",
      });
    });
  };
}
