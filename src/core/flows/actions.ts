import { actionByName } from "../actions/catalogue.js";
import type { MediaApi } from "../api/client.js";
import type { ActionEvent, Choice, ConversationRef } from "../base/ports.js";
import type { FormDef } from "../commands/define.js";
import { MAX_CHOICES, type PickItem, type PickSource } from "../media/catalog-cache.js";
import { CANCEL_QUEUED } from "../render/queue.js";
import { clip } from "../render/text.js";
import { personOf, tenantKey, tenantOf } from "../tenancy/tenancy.js";
import { admit, jobOf } from "./admit.js";
import { botServices } from "./command.js";
import type { Core } from "./core.js";
import { failureCard } from "./failures.js";
import {
  admitClick,
  appliesTo,
  claim,
  files,
  form,
  type JobClick,
  run,
  value,
  where,
  who,
} from "./job-actions.js";
import { admitList, type ListClick, listValue, runList } from "./list-actions.js";
import { runSteps, type Step } from "./pipeline.js";
import { actorOnJob } from "./privacy.js";
import { cancelQueued } from "./queue.js";
import {
  admitSettings,
  panel,
  runSettings,
  type SettingsClick,
  settingsForm,
  settingsValue,
} from "./settings-actions.js";

/**
 * Button clicks, select choices and forms: on a job's message, a list or the settings panel. Every
 * one gets an answer: the job changes or a new one starts, or the clicker is told (only them) why
 * nothing happened.
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

/**
 * Every click gets an answer: a refusal (or a fault) at any later step is told to the clicker
 * alone, where they clicked (or where the click was moved to: the result's channel).
 */
const answer: Step<{ core: Core; event: ActionEvent }> = {
  name: "answer",
  async run(click, next) {
    try {
      await next();
    } catch (error) {
      const { core, event } = click;
      const card = await failureCard(error, {
        media: await core.media(tenantOf(event.actor)).catch(() => undefined),
        logger: core.logger,
        context: { action: event.action, jobId: event.jobId },
        reader: event.actor,
      });
      await core
        .adapter(event.actor.platform)
        .post(event.conversation, card, { ephemeral: true })
        .catch((cause: unknown) =>
          core.logger.error({ err: cause, action: event.action }, "could not answer"),
        );
    }
  },
};

/** A queued job's Cancel: no job record is behind it yet (flows/queue.ts). */
const cancelStep: Step<{ core: Core; event: ActionEvent }> = {
  name: "cancel",
  run: ({ core, event }) => cancelQueued(core, event),
};

/**
 * One handler per kind of action: the steps a click goes through, in order. A kind is its
 * definitions' `on` (actions/define.ts), the context its steps share, and this list.
 */
export const HANDLERS: {
  job: readonly Step<JobClick>[];
  list: readonly Step<ListClick>[];
  settings: readonly Step<SettingsClick>[];
} = {
  /** A job's buttons, selects and follow-up forms (and a control this version no longer has). */
  job: [answer, where, admitClick, who, appliesTo, value, form, files, claim, run],
  /** A list's pages and Show. */
  list: [answer, admitList, listValue, runList],
  /** The settings panel's tabs, selects and forms, in a message or on a home. */
  settings: [answer, panel, admitSettings, settingsValue, settingsForm, runSettings],
};

export async function handleAction(core: Core, event: ActionEvent): Promise<void> {
  if (event.action === CANCEL_QUEUED) return runSteps([answer, cancelStep], { core, event });
  const def = actionByName(event.action);
  switch (def?.on) {
    case "list":
      return runSteps(HANDLERS.list, { core, event, def });
    case "settings": {
      const services = botServices(core, tenantOf(event.actor));
      return runSteps(HANDLERS.settings, { core, services, event, def, fields: {} });
    }
    default:
      return runSteps(HANDLERS.job, { core, event, def, fields: {}, filled: {}, attachments: {} });
  }
}
