import type { App } from "@slack/bolt";
import type { Logger } from "../core/base/log.js";
import type { Attachment, ConversationRef } from "../core/base/ports.js";
import type { Bot } from "../core/bot.js";
import { stepText } from "../core/flows/steps.js";
import { errorCard } from "../core/render/errors.js";
import type { Actors } from "./actors.js";
import type { SlackAdapter } from "./adapter.js";
import { userFilesByOption } from "./files.js";
import type { Recent } from "./recent.js";
import { stepConversation } from "./step-refs.js";
import { missingImage, personOf, readInputs, STEPS, USER_INPUT } from "./steps.js";
import type { Workspaces } from "./workspaces.js";

/**
 * The listeners of the workflow steps (steps.ts): a function_executed event becomes the step's
 * command, run as the person in its user_context input, exactly as their slash command would be.
 * Bolt acknowledges the event first; the step then stays running until its job ends, when the
 * core completes it (ChatAdapter.completeStep), or until a refusal ends it with the reason.
 */

export interface StepDeps {
  bot: Pick<Bot, "handleCommand">;
  adapter: SlackAdapter;
  workspaces: Workspaces;
  actors: Actors;
  recent: Recent;
  /** The adapter's fair queue of work behind the acks, one lane per person. */
  later(teamId: string, userId: string, task: () => Promise<void>): Promise<void>;
  logger: Logger;
}

const NO_PERSON = `This step runs as the person who starts the workflow: set its Person input ("${USER_INPUT}") to the person who used the workflow.`;

export function registerSteps(app: App, deps: StepDeps): void {
  const { adapter, logger } = deps;

  async function fail(where: ConversationRef, reason: string): Promise<void> {
    await adapter.completeStep(where, { ok: false, reason }).catch((error: unknown) => {
      logger.warn({ err: error, execution: where.data?.execution }, "workflow step not ended with its error");
    });
  }

  /** The files of the step's inputs, read with the workspace's bot token; undefined once the step failed. */
  async function stepFiles(
    teamId: string,
    ids: Record<string, string[]>,
    where: ConversationRef,
  ): Promise<Record<string, Attachment[]> | undefined> {
    try {
      return await userFilesByOption(await deps.workspaces.client(teamId), ids);
    } catch (error) {
      logger.warn({ err: error }, "a workflow step's file could not be read");
      await fail(where, stepText(errorCard(error)));
      return undefined;
    }
  }

  for (const step of STEPS) {
    app.function(step.callbackId, async ({ event, body, context }) => {
      if (!(await deps.recent.first(`event:${body.event_id}`))) return;
      const teamId = context.teamId ?? body.team_id;
      const user = personOf(event.inputs);
      const { options, files, links, ends } = readInputs(step, event.inputs);
      const where = stepConversation(
        teamId,
        user ?? "",
        event.function_execution_id,
        event.bot_access_token,
        ends,
      );
      if (!user) {
        await fail(where, NO_PERSON);
        return;
      }
      const lacking = missingImage(step, { files, links });
      if (lacking) {
        await fail(where, lacking);
        return;
      }
      await deps.later(teamId, user, async () => {
        const attachments = await stepFiles(teamId, files, where);
        if (!attachments) return;
        await deps.bot.handleCommand({
          command: step.command,
          options,
          attachments,
          links,
          actor: await deps.actors.of(teamId, user),
          conversation: where,
          entry: "workflow_step",
        });
      });
    });
  }
}
