import type { Middleware, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { Attachment, ConversationRef } from "../../core/base/ports.js";
import { stepText } from "../../core/flows/steps.js";
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

const NO_PERSON = `This step runs as the person who starts the workflow: set its Person input ("${USER_INPUT}") to the person who used the workflow.`;

async function fail(ctx: Listening, where: ConversationRef, reason: string): Promise<void> {
  await ctx.adapter.completeStep(where, { ok: false, reason }).catch((error: unknown) => {
    ctx.logger.warn(
      { err: error, execution: where.data?.execution },
      "workflow step not ended with its error",
    );
  });
}

/** The files of the step's inputs, read with the workspace's bot token; undefined once the step failed. */
async function stepFiles(
  ctx: Listening,
  teamId: string,
  ids: Record<string, string[]>,
  where: ConversationRef,
): Promise<Record<string, Attachment[]> | undefined> {
  try {
    return await userFilesByOption(await ctx.workspaces.client(teamId), ids);
  } catch (error) {
    ctx.logger.warn({ err: error }, "a workflow step's file could not be read");
    await fail(ctx, where, stepText(errorCard(error)));
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
      await fail(ctx, where, NO_PERSON);
      return;
    }
    const lacking = missingImage(step, { files, links });
    if (lacking) {
      await fail(ctx, where, lacking);
      return;
    }
    await ctx.later(gesture, async () => {
      const attachments = await stepFiles(ctx, teamId, files, where);
      if (!attachments) return;
      await ctx.bot.handleCommand({
        command: step.command,
        options,
        attachments,
        links,
        actor: await ctx.actors.of(teamId, gesture.userId),
        conversation: where,
        entry: "workflow_step",
      });
    });
  };
}
