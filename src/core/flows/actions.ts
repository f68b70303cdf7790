import { randomUUID } from "node:crypto";
import type { JobRecord } from "../../store/jobs.js";
import { actionByName } from "../actions/catalogue.js";
import { type ActionContext, checkedValue, type ListActionDef, OLD_CONTROL } from "../actions/define.js";
import type { MediaApi } from "../api/client.js";
import type { ActionEvent, ChatAdapter, Choice, ConversationRef } from "../base/ports.js";
import { commandByName } from "../commands/catalogue.js";
import type { FormDef, StartedJob } from "../commands/define.js";
import { AccessError, ActionError } from "../commands/errors.js";
import { LISTS } from "../commands/lists.js";
import { checkFiles, parseFilled } from "../commands/validate.js";
import { conversationOf } from "../jobs/records.js";
import { MAX_CHOICES, type PickItem, type PickSource } from "../media/catalog-cache.js";
import { isListName } from "../render/lists.js";
import { clip, plural } from "../render/text.js";
import { isAdmin, isPersonal, personOf, tenantKey, tenantOf } from "../tenancy/tenancy.js";
import { admit, jobOf } from "./admit.js";
import { botServices, commandContext } from "./command.js";
import type { Core } from "./core.js";
import { failureCard } from "./failures.js";
import { keepingFilled, layersFor, withUnaskedSettings } from "./preferences.js";
import { actorOnJob, checkFollowUp, privately, privateOrigin } from "./privacy.js";
import { settingsAction } from "./settings.js";
import { launch, startWithinLimit } from "./start.js";
import { outsideStep } from "./steps.js";

/**
 * Button clicks, select choices and follow-up forms on a job's message. Every one gets an answer:
 * the job changes or a new one starts, or the clicker is told (only them) why nothing happened.
 */

export interface ActionForm {
  title: string;
  form: FormDef;
  /** Values shown in the form when it opens, by option name. */
  initial: Record<string, string>;
  /**
   * The entries of the form's pick lists (voices), the initial one first, for platforms whose
   * forms cannot search a list (Discord's modals): at most 25. Left out when the list is not at
   * hand in time; the option is then typed.
   */
  choices: Record<string, Choice[]>;
}

/** A click asking for a follow-up's form, where it was made. */
export type FormRequest = Pick<ActionEvent, "action" | "jobId" | "actor" | "value"> & {
  conversation: Pick<ConversationRef, "channelId">;
};

/** A form must be the click's first response, within Discord's 3 s: the lists get this much. */
const LISTS_WITHIN_MS = 1_500;

/** `items` as choices, `first` leading, as many as a select holds. */
function choicesOf(items: readonly PickItem[], first: string | undefined): Choice[] {
  const ordered = [...items.filter((i) => i.id === first), ...items.filter((i) => i.id !== first)];
  return ordered.slice(0, MAX_CHOICES).map((item) => ({
    label: clip([item.name, item.detail].filter(Boolean).join(" · "), 100),
    value: item.id,
  }));
}

/**
 * The form a follow-up asks before it runs, pre-filled from its job; undefined when the action has
 * none (or the job is not known here: the click is then refused like any other). Opening a form
 * changes nothing, so it is not checked: its submission is, like a command's form.
 */
export async function actionForm(core: Core, asked: FormRequest): Promise<ActionForm | undefined> {
  const action = actionByName(asked.action);
  if (action?.on === "settings") {
    if (!action.form) return undefined;
    const current = await core.preferences.get(personOf(asked.actor));
    const initial = action.form.initial?.(current) ?? {};
    return { title: action.form.title, form: action.form.of(), initial, choices: {} };
  }
  const form = action?.form;
  const request = form ? { ...asked, actor: await actorOnJob(core, asked.actor, asked.jobId) } : asked;
  const job = form && (await jobOf(core, request.jobId, request.actor));
  if (!form || !job) return undefined;
  const def = form.of(job);
  const tenant = tenantOf(request.actor);
  const deadline = Date.now() + LISTS_WITHIN_MS;
  // The account's lists are read as autocomplete reads them: for those let in, without counting.
  let admitted: Promise<MediaApi> | undefined;
  const media = () => {
    admitted ??= admit(core, {
      kind: "autocomplete",
      actor: request.actor,
      conversation: request.conversation,
    }).then(() => core.media(tenant));
    return admitted;
  };
  const lookup = async (source: PickSource, id: string) =>
    core.cache.find(tenantKey(tenant), source, await media(), id);
  const context = { ...(request.value !== undefined && { value: request.value }), lookup };
  const initial = (await inTime(core, deadline, async () => form.initial?.(job, context))) ?? {};
  const choices: Record<string, Choice[]> = {};
  for (const [option, source] of Object.entries(def.picks ?? {})) {
    if (!source || source === "presets") continue;
    const items = await inTime(core, deadline, async () =>
      core.cache.list(tenantKey(tenant), source, await media()),
    );
    if (items) choices[option] = choicesOf(items, initial[option]);
  }
  return { title: form.title, form: def, initial, choices };
}

/** What `work` gives by `deadline`; undefined when it is late or fails (the form opens without it). */
async function inTime<T>(core: Core, deadline: number, work: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work(), late]);
  } catch (error) {
    core.logger.debug({ err: error }, "form opened without what it could not read in time");
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

async function claimOrRefuse(core: Core, key: string, ttlMs: number, refusal: string): Promise<void> {
  if (!(await core.claims.acquire(key, randomUUID(), ttlMs))) {
    throw new ActionError("action.repeated", refusal);
  }
}

/**
 * A control of a list (a page, Show): admitted like the list's own command, then run with that
 * command's context for the clicker. `event.jobId` holds the list's name.
 */
async function listAction(core: Core, def: ListActionDef, event: ActionEvent): Promise<void> {
  const list = event.jobId;
  const command = isListName(list) ? commandByName(LISTS[list].command) : undefined;
  if (!isListName(list) || !command) throw new ActionError("action.invalid", OLD_CONTROL);
  const { actor, conversation } = event;
  const settings = await admit(core, { kind: event.entry ?? "button", actor, conversation, command });
  const value = checkedValue(def, event);
  await def.run({
    event,
    adapter: core.adapter(actor.platform),
    list,
    command,
    value,
    context: (options) =>
      commandContext(core, command, { options, attachments: {}, actor, conversation }, settings),
  });
}

export async function handleAction(core: Core, gesture: ActionEvent): Promise<void> {
  const adapter = core.adapter(gesture.actor.platform);
  let event = gesture;
  try {
    const def = actionByName(event.action);
    if (def?.on === "list") return await listAction(core, def, event);
    if (def?.on === "settings") {
      return await settingsAction(core, botServices(core, tenantOf(event.actor)), def, event);
    }
    if (event.surface === "home") return await handleAction(core, await inResultChannel(core, event));
    event = { ...event, actor: await actorOnJob(core, event.actor, event.jobId) };
    const job = await jobOf(core, event.jobId, event.actor);
    // A private job's controls are in its person's private place (a DM): what they may do there
    // is what they may do in the channel they asked in.
    const from = job && privateOrigin(job);
    const settings = await admit(core, {
      kind: event.entry ?? "button",
      actor: event.actor,
      conversation: from ? { channelId: from } : event.conversation,
    });
    if (!job) throw await notHere(core, event);
    if (!def) throw new ActionError("action.invalid", OLD_CONTROL);
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
    const { options: fields, filled } = form
      ? parseFilled(
          withUnaskedSettings(form),
          event.fields ?? {},
          await layersFor(core, event.actor, settings),
        )
      : { options: {}, filled: {} };
    const attachments = form ? checkFiles(form, event.attachments ?? {}) : {};
    if (def.claim) await claimOrRefuse(core, def.claim.key(job, event), def.claim.ttlMs, def.claim.refusal);
    const start: ActionContext<unknown>["start"] = (command, starter, kept = filled) => {
      checkFollowUp(event.actor, job, settings);
      return startAs(core, adapter, job, event, command, async (media) =>
        keepingFilled(await starter(media), kept),
      );
    };
    await def.run({ core, job, event, adapter, value, fields, attachments, start });
  } catch (error) {
    const card = await failureCard(error, {
      media: await core.media(tenantOf(event.actor)).catch(() => undefined),
      logger: core.logger,
      context: { action: event.action, jobId: event.jobId },
    });
    await adapter
      .post(event.conversation, card, { ephemeral: true })
      .catch((cause: unknown) => core.logger.error({ err: cause, action: event.action }, "could not answer"));
  }
}

const unknownJob = (core: Core) => {
  const days = core.jobs.retentionMs / 86_400_000;
  const kept =
    days >= 1 ? plural(Math.round(days), "day") : plural(Math.max(1, Math.round(days * 24)), "hour");
  return new ActionError(
    "action.unknown_job",
    `The bot no longer knows this job (finished jobs are kept for ${kept}). Run the command again.`,
  );
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
  return new AccessError("access.not_requester", [
    "Only ",
    { userId: job.requester.userId },
    " can use this result's buttons: their own API key pays for what they start. Run the command yourself.",
  ]);
}

/**
 * A result's control clicked on the person's home, which is in no channel: it acts where the
 * result is, admitted there like a click on the result's own message, and its new job is posted
 * there. A workflow step's result is in no channel either (and its step has ended): its new job
 * goes to the person's DM with the bot.
 */
async function inResultChannel(core: Core, event: ActionEvent): Promise<ActionEvent> {
  const job = await jobOf(core, event.jobId, event.actor);
  if (!job) throw unknownJob(core);
  const { surface: _home, message: _none, ...rest } = event;
  return { ...rest, conversation: outsideStep(conversationOf(job)) };
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
  await startWithinLimit(core, { command, actor, conversation }, async () => {
    const started = await start(await core.media(job.tenant));
    await launch(core, adapter, { command, started, actor, conversation });
  });
}
