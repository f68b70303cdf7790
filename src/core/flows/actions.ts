import { randomUUID } from "node:crypto";
import type { JobRecord } from "../../store/jobs.js";
import { actionByName } from "../actions/catalogue.js";
import type { AnyAction } from "../actions/define.js";
import type { FormDef } from "../commands/define.js";
import { AccessError, ActionError } from "../commands/errors.js";
import { checkFiles, parseOptions } from "../commands/validate.js";
import type { ActionEvent, Actor } from "../ports.js";
import { isAdmin } from "../tenancy.js";
import { admit } from "./admit.js";
import type { Core } from "./core.js";
import { failureCard } from "./failures.js";

/**
 * Button clicks, select choices and follow-up forms on a job's message. Every one gets an answer:
 * the job changes or a new one starts, or the clicker is told (only them) why nothing happened.
 */

/** The job `jobId` when it is the actor's tenant's; undefined for another tenant's or a forgotten one. */
export async function jobOf(core: Core, jobId: string, actor: Actor): Promise<JobRecord | undefined> {
  const job = await core.engine.get(jobId);
  return job && job.tenant.tenantId === actor.tenantId && job.tenant.platform === actor.platform
    ? job
    : undefined;
}

export interface ActionForm {
  title: string;
  form: FormDef;
  /** Values shown in the form when it opens, by option name. */
  initial: Record<string, string>;
}

/**
 * The form a follow-up asks before it runs, pre-filled from its job; undefined when the action has
 * none (or the job is not known here: the click is then refused like any other). Opening a form
 * changes nothing, so it is not checked: its submission is, like a command's form.
 */
export async function actionForm(
  core: Core,
  request: Pick<ActionEvent, "action" | "jobId" | "actor">,
): Promise<ActionForm | undefined> {
  const form = actionByName(request.action)?.form;
  const job = form && (await jobOf(core, request.jobId, request.actor));
  if (!form || !job) return undefined;
  return { title: form.title, form: form.of(job), initial: form.initial?.(job) ?? {} };
}

async function claimOrRefuse(core: Core, key: string, ttlMs: number, refusal: string): Promise<void> {
  if (!(await core.claims.acquire(key, randomUUID(), ttlMs))) {
    throw new ActionError("action.repeated", refusal);
  }
}

function checkedValue(def: AnyAction, event: ActionEvent): unknown {
  if (!def.value) return undefined;
  const parsed = def.value.safeParse(event.value);
  if (!parsed.success) {
    throw new ActionError("action.invalid", parsed.error.issues[0]?.message ?? "That control is not valid.");
  }
  return parsed.data;
}

export async function handleAction(core: Core, event: ActionEvent): Promise<void> {
  const adapter = core.adapter(event.actor.platform);
  try {
    const settings = await admit(core, {
      kind: event.entry ?? "button",
      actor: event.actor,
      conversation: event.conversation,
    });
    const job = await jobOf(core, event.jobId, event.actor);
    if (!job) {
      throw new ActionError(
        "action.unknown_job",
        "The bot no longer knows this job (finished jobs are kept for 30 days). Run the command again.",
      );
    }
    const def = actionByName(event.action);
    if (!def) {
      throw new ActionError(
        "action.invalid",
        "This button is from an older version of the bot: run the command again.",
      );
    }
    if (
      def.who === "requester" &&
      job.requester.userId !== event.actor.userId &&
      !isAdmin(event.actor, settings)
    ) {
      throw new AccessError("access.not_requester", [
        "Only ",
        { userId: job.requester.userId },
        ", who started this job, or an admin can use its buttons.",
      ]);
    }
    if (!def.appliesTo(job)) {
      throw new ActionError(
        "action.not_ready",
        job.state === "done"
          ? "This result does not offer that any more."
          : "This works once the job is finished.",
      );
    }
    const value = checkedValue(def, event);
    const form = def.form?.of(job);
    const fields = form ? parseOptions(form, event.fields ?? {}, settings.defaults) : {};
    const attachments = form ? checkFiles(form, event.attachments ?? {}) : {};
    if (def.claim) await claimOrRefuse(core, def.claim.key(job, event), def.claim.ttlMs, def.claim.refusal);
    await def.run({ core, job, event, adapter, value, fields, attachments });
  } catch (error) {
    const card = await failureCard(error, {
      media: await core
        .media({ platform: event.actor.platform, tenantId: event.actor.tenantId })
        .catch(() => undefined),
      logger: core.logger,
      context: { action: event.action, jobId: event.jobId },
    });
    await adapter
      .post(event.conversation, card, { ephemeral: true })
      .catch((cause: unknown) => core.logger.error({ err: cause, action: event.action }, "could not answer"));
  }
}
