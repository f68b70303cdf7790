import type { JobRecord } from "../../store/jobs.js";
import type { CardAction } from "../base/cards.js";
import { translatorFor } from "../i18n/translator.js";
import { type ButtonOptions, buttonOf } from "../render/controls.js";
import { viewOf } from "../render/job.js";
import { confirm, confirmBoth } from "./choose.js";
import type { AnyAction } from "./define.js";
import { deleteResult } from "./delete.js";
import {
  animateImage,
  animateMockup,
  avatarVideo,
  edit,
  regenerate,
  regenerateSpoken,
  remix,
  useInMockup,
} from "./follow-ups.js";
import { myLanguage } from "./language.js";
import { page, show } from "./lists.js";
import { savePreset } from "./save-preset.js";
import { deletePreset, myDefault, negativePrompt, panel, serverDefault } from "./settings.js";

/** Every control a job's message may carry; the adapters route clicks and forms by these names. */
export const ACTIONS = [
  confirm,
  confirmBoth,
  edit,
  animateImage,
  remix,
  regenerate,
  regenerateSpoken,
  avatarVideo,
  animateMockup,
  useInMockup,
  savePreset,
  deleteResult,
  page,
  show,
  panel,
  myDefault,
  myLanguage,
  serverDefault,
  negativePrompt,
  deletePreset,
] as const satisfies readonly AnyAction[];

export type ActionName = (typeof ACTIONS)[number]["name"];

const BY_NAME = new Map<string, AnyAction>(ACTIONS.map((a) => [a.name, a]));

export function actionByName(name: string): AnyAction | undefined {
  return BY_NAME.get(name);
}

/**
 * A button for action `name` on job `jobId` (or, for a list's controls, on the list so named); the
 * value, when the action takes one, is checked on click.
 */
export function actionButton(
  name: ActionName,
  jobId: string,
  label: string,
  options: ButtonOptions = {},
): CardAction {
  return buttonOf(name, jobId, label, options);
}

/**
 * The buttons under a finished job: every action with a button that applies to it, in catalogue
 * order, in the language of its requester; none once its result was deleted.
 */
export function controlsFor(job: JobRecord): CardAction[] {
  // A deleted result offers nothing more (its buttons would be refused).
  if (job.deleted) return [];
  const t = translatorFor(viewOf(job).locale);
  return ACTIONS.flatMap((def: AnyAction) => {
    if (def.on === "list" || def.on === "settings") return [];
    const button = def.button;
    if (!button || !def.appliesTo(job)) return [];
    const values = button.values?.(job) ?? [{ label: button.label, value: undefined }];
    return values.map((v) =>
      actionButton(def.name as ActionName, job.id, t.say(v.label), {
        style: button.style,
        ...(v.value !== undefined && { value: v.value }),
      }),
    );
  });
}
