import { randomUUID } from "node:crypto";
import type { JobRecord } from "../../store/jobs.js";
import type { TenantSettings } from "../../store/tenants.js";
import { type ActionContext, type AnyJobAction, checkedValue, OLD_CONTROL } from "../actions/define.js";
import type { MediaApi } from "../api/client.js";
import type { ActionEvent, Attachment, ChatAdapter } from "../base/ports.js";
import type { FormDef, StartedJob } from "../commands/define.js";
import { AccessError, ActionError } from "../commands/errors.js";
import { checkFiles, parseFilled } from "../commands/validate.js";
import { msg } from "../i18n/msg.js";
import { conversationOf } from "../jobs/records.js";
import type { Filled } from "../render/recipe.js";
import { isAdmin, isPersonal } from "../tenancy/tenancy.js";
import { admit, jobOf } from "./admit.js";
import type { Core } from "./core.js";
import { deletedResult, removeResult } from "./delete.js";
import { type Step, step } from "./pipeline.js";
import { keepingFilled, layersFor, withUnaskedSettings } from "./preferences.js";
import { actorOnJob, checkFollowUp, privately, privateOrigin } from "./privacy.js";
import { launch, limitsOf, startInPlace, takePlace } from "./start.js";
import { outsideStep } from "./steps.js";

/**
 * The steps of a click on a job's control (a button, a select, a follow-up's form), each one a
 * check that may refuse it or a part of it done; flows/actions.ts lists them in their order. A
 * step reads only what the steps before it found, so a test gives it just that.
 */

/** What admit found: the job, its action, and the tenant's settings the click was let in with. */
export interface Admitted {
  def: AnyJobAction;
  job: JobRecord;
  settings: TenantSettings;
}

export interface JobClick {
  core: Core;
  /** The gesture; moved to the result's channel for a click on a home, and to the job's tenant. */
  event: ActionEvent;
  /** The action the control names: none for one this version no longer has. */
  def: AnyJobAction | undefined;
  admitted?: Admitted;
  value?: unknown;
  /** The follow-up's form, when the action asks one. */
  form?: FormDef;
  fields: Record<string, unknown>;
  /** What filled the fields the clicker left out (a default), kept by the job it starts. */
  filled: Filled;
  attachments: Record<string, Attachment[]>;
}

function admittedOf(click: Pick<JobClick, "admitted">): Admitted {
  if (!click.admitted) throw new Error("a step of a job's control ran before admit");
  return click.admitted;
}

/**
 * A result's control clicked on the person's home, which is in no channel: it acts where the
 * result is, admitted there like a click on the result's own message, and its new job is posted
 * there. A workflow step's result is in no channel either (and its step has ended): its new job
 * goes to the person's DM with the bot.
 */
export const where = step<Pick<JobClick, "core" | "event">>("where", async (click) => {
  const { core, event } = click;
  if (event.surface !== "home") return;
  const job = await jobOf(core, event.jobId, event.actor);
  if (!job) throw unknownJob(core);
  const { surface: _home, message: _none, ...rest } = event;
  click.event = { ...rest, conversation: outsideStep(conversationOf(job)) };
});

/**
 * Let in like any gesture, where the job was asked for: a private job's controls are in its
 * person's private place (a DM), where they may do what they may do in the channel they asked in.
 * Only then is a job that is not the clicker's tenant's (or not known) refused, and a control this
 * version no longer has.
 */
export const admitClick = step<Pick<JobClick, "core" | "event" | "def" | "admitted">>(
  "admit",
  async (click) => {
    const { core, def } = click;
    const event = { ...click.event, actor: await actorOnJob(core, click.event.actor, click.event.jobId) };
    click.event = event;
    const job = await jobOf(core, event.jobId, event.actor);
    const from = job && privateOrigin(job);
    const settings = await admit(core, {
      kind: event.entry ?? "button",
      actor: event.actor,
      conversation: from ? { channelId: from } : event.conversation,
    });
    if (!job) throw await notHere(core, event);
    if (!def) throw new ActionError("action.invalid", msg(OLD_CONTROL));
    click.admitted = { def, job, settings };
  },
);

/** Choices about the job itself are its requester's, or an admin's; follow-ups are anyone's. */
export const who = step<Pick<JobClick, "event" | "admitted">>("who", (click) => {
  const { def, job, settings } = admittedOf(click);
  const { actor } = click.event;
  if (def.who === "requester" && job.requester.userId !== actor.userId && !isAdmin(actor, settings)) {
    throw new AccessError(
      "access.not_requester",
      msg(def.othersTold ?? "refusal.access.not_requester", { person: { userId: job.requester.userId } }),
    );
  }
});

/** The job offers the action now (the message may be old); a deleted result offers none. */
export const appliesTo = step<Pick<JobClick, "admitted">>("applies-to", (click) => {
  const { def, job } = admittedOf(click);
  if (job.deleted) throw deletedResult();
  if (!def.appliesTo(job)) {
    throw new ActionError(
      "action.not_ready",
      msg(job.state === "done" ? "refusal.action.no_longer_offered" : "refusal.action.once_finished"),
    );
  }
});

/** The value the control carried, checked (old messages carry old values). */
export const value = step<Pick<JobClick, "event" | "admitted" | "value">>("value", (click) => {
  click.value = checkedValue(admittedOf(click).def, click.event);
});

/**
 * The follow-up's fields, checked against its form; the settings of the command it starts that
 * the form does not ask are filled from the clicker's defaults, as that command's own would be.
 */
export const form = step<
  Pick<JobClick, "event" | "admitted" | "form" | "fields" | "filled"> & { core: Pick<Core, "preferences"> }
>("form", async (click) => {
  const { def, job, settings } = admittedOf(click);
  const asked = def.form?.of(job);
  if (!asked) return;
  click.form = asked;
  const layers = await layersFor(click.core, click.event.actor, settings);
  const { options, filled } = parseFilled(withUnaskedSettings(asked), click.event.fields ?? {}, layers);
  click.fields = options;
  click.filled = filled;
});

/** The files given in the form, checked against its file options. */
export const files = step<Pick<JobClick, "event" | "form" | "attachments">>("files", (click) => {
  if (click.form) click.attachments = checkFiles(click.form, click.event.attachments ?? {});
});

/**
 * One run at a time per claim key (a double click): refused with the action's words meanwhile.
 * The claim wraps the run, so an action that says so gives it back once its run is over.
 */
export const claim: Step<Pick<JobClick, "event" | "admitted"> & { core: Pick<Core, "claims"> }> = {
  name: "claim",
  async run(click, next) {
    const { def, job } = admittedOf(click);
    if (!def.claim) return next();
    const key = def.claim.key(job, click.event);
    const owner = randomUUID();
    if (!(await click.core.claims.acquire(key, owner, def.claim.ttlMs))) {
      throw new ActionError("action.repeated", def.claim.refusal);
    }
    if (!def.claim.releaseWhenDone) return next();
    try {
      await next();
    } finally {
      // A release that fails leaves the claim to lapse after its ttl.
      await click.core.claims.release(key, owner).catch(() => false);
    }
  },
};

/** The action itself, with a `start` that starts new jobs as the clicker. */
export const run = step<JobClick>("run", async (click) => {
  const { def, job, settings } = admittedOf(click);
  const { core, event, fields, attachments, filled } = click;
  const adapter = core.adapter(event.actor.platform);
  const start: ActionContext<unknown>["start"] = (command, starter, kept = filled) => {
    checkFollowUp(event.actor, job, settings);
    return startAs(core, adapter, job, event, command, async (media) =>
      keepingFilled(await starter(media), kept),
    );
  };
  const deleteResult = (confirmed: boolean) => removeResult(core, adapter, job, event, confirmed);
  await def.run({ core, job, event, adapter, value: click.value, fields, attachments, start, deleteResult });
});

const unknownJob = (core: Pick<Core, "jobs">) => {
  const days = core.jobs.retentionMs / 86_400_000;
  const kept =
    days >= 1
      ? { unit: "day", count: Math.round(days) }
      : { unit: "hour", count: Math.max(1, Math.round(days * 24)) };
  return new ActionError("action.unknown_job", msg("refusal.action.job_unknown", kept));
};

/**
 * Why a click finds no job of the clicker's tenant: one of a person's own tenant (a group DM, a
 * server without the bot, where others see it too) is theirs alone, since their key pays.
 */
async function notHere(core: Core, event: ActionEvent): Promise<Error> {
  const job = await core.engine.get(event.jobId);
  const own =
    job &&
    job.tenant.platform === event.actor.platform &&
    isPersonal({ tenantId: job.tenant.tenantId, userId: job.requester.userId });
  if (!own) return unknownJob(core);
  return new AccessError(
    "access.not_requester",
    msg("refusal.access.own_key", { person: { userId: job.requester.userId } }),
  );
}

/** Starts `command`'s job as the clicker, within their job limit, and posts its message. */
async function startAs(
  core: Core,
  adapter: ChatAdapter,
  job: JobRecord,
  event: ActionEvent,
  command: string,
  start: (media: MediaApi) => Promise<StartedJob>,
): Promise<void> {
  const { actor } = event;
  // A follow-up of a private result is private too, where it was clicked (the ephemeral message, the DM).
  const from = privateOrigin(job);
  const conversation = from ? privately(event.conversation, from) : event.conversation;
  // A click is answered while it lasts: it takes a free place or is refused, it does not wait.
  const place = await takePlace(core, actor, await limitsOf(core, job.tenant));
  await startInPlace(core, { command, actor, conversation }, place.id, async (recorded) => {
    const started = await start(await core.media(job.tenant));
    await launch(core, adapter, { command, started, actor, conversation, id: place.id, recorded });
  });
}
