import type { z } from "zod";
import type { JobRecord } from "../../store/jobs.js";
import type { PersonPreferences, PersonRef, PreferenceStore } from "../../store/preferences.js";
import type { TenantSettings, TenantStore } from "../../store/tenants.js";
import type { MediaApi } from "../api/client.js";
import type { ButtonStyle } from "../base/cards.js";
import type { Said } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import type { ActionEvent, Attachment, ChatAdapter } from "../base/ports.js";
import type { AnyCommand, CommandContext, FormDef, StartedJob } from "../commands/define.js";
import { ActionError } from "../commands/errors.js";
import { isMessageKey, type MessageKey } from "../i18n/catalogues.js";
import { type Msg, msg } from "../i18n/msg.js";
import type { JobEngine } from "../jobs/engine.js";
import type { CatalogCache, PickItem, PickSource } from "../media/catalog-cache.js";
import type { ListName } from "../render/lists.js";
import type { Filled } from "../render/recipe.js";
import type { PanelSection } from "../render/settings.js";
import type { TenantRef } from "../tenancy/tenancy.js";

/**
 * A control on a job's message, defined once like a command: what its value may be, who may use
 * it, which results show it and what it does. Adapters route clicks and form submissions by its
 * name; the catalogue places its button (actionButton, catalogue.ts), so no name is spelled twice.
 */

/** What of the bot an action's run uses; the flows' Core (flows/core.ts) gives it. */
export interface ActionServices {
  engine: JobEngine;
  cache: CatalogCache;
  logger: Logger;
  /** Each person's defaults and presets (Save as preset). */
  preferences: Pick<PreferenceStore, "update">;
  /** The service with the job's tenant's key. */
  media(tenant: TenantRef): Promise<MediaApi>;
}

export interface ActionContext<V, F = Record<string, never>> {
  core: ActionServices;
  job: JobRecord;
  event: ActionEvent;
  adapter: ChatAdapter;
  /** The checked value of the button or select. */
  value: V;
  /**
   * The form's fields, checked against its options and typed by them (empty for actions without
   * a form). The settings of the command it starts that the form does not ask ride along, filled
   * from the clicker's defaults (flows/preferences.ts withUnaskedSettings): building the request
   * through that command's declaration (requestOf) picks them up.
   */
  fields: F;
  /** The files given in the form, checked against its file options (type, size, how many). */
  attachments: Record<string, Attachment[]>;
  /**
   * Starts `command`'s job as the clicker, within their job limit, and posts its message: the
   * flows' start (flows/start.ts), handed in so that the catalogue stays a list of definitions.
   * The new job keeps what filled its options: the form's (`fields`), unless `filled` says otherwise
   * (Regenerate repeats the original's request, so it keeps the original's).
   */
  start(command: string, start: (media: MediaApi) => Promise<StartedJob>, filled?: Filled): Promise<void>;
  /**
   * Deletes the job's result for the clicker (flows/delete.ts), handed in like `start`: asked
   * first unless `confirmed` (or only the requester sees it), once however often it is clicked.
   */
  deleteResult(confirmed: boolean): Promise<void>;
}

/** What a form's initial values may depend on besides the job. */
export interface FormContext {
  /** The value of the control that opened the form (which avatar of a pair). */
  value?: string;
  lookup(source: PickSource, id: string): Promise<PickItem | undefined>;
}

// biome-ignore lint/complexity/noBannedTypes: a form without options has fields of no keys
type NoFields = z.ZodObject<{}>;

export interface ActionDef<N extends string = string, V = unknown, S extends z.ZodObject = NoFields> {
  /** Fits the adapters' control ids: lower case, digits and "_", at most 24 characters. */
  name: N;
  /** Acts on a job (the default), unlike the controls of a list. */
  on?: "job";
  /** The value a button or select carries (checked on every click: old messages carry old values). */
  value?: z.ZodType<V>;
  /**
   * A form asked before the action runs; its parsed fields are the value. Depends on the job (a
   * thumbnail's aspect ratios are not an image's) and is pre-filled from it.
   */
  form?: {
    /** The form's title: "Edit image". */
    title: string;
    of(job: JobRecord): FormDef<S>;
    /** Values shown when the form opens; `lookup` reads the tenant's lists (an avatar's own voice). */
    initial?(job: JobRecord, context: FormContext): Record<string, string> | Promise<Record<string, string>>;
  };
  /**
   * Who may use it: "requester" (the job's requester or an admin: choices about the job itself),
   * or "anyone" the tenant lets use the bot in the channel (follow-ups, which start jobs of their own).
   */
  who: "requester" | "anyone";
  /** What someone else is told ("Only {person}, who started this job, or an admin can use its buttons."). */
  othersTold?: MessageKey;
  /** One run at a time per key (a double click), refused with `refusal` meanwhile. */
  claim?: {
    key(job: JobRecord, event: ActionEvent): string;
    /** Held this long, unless released before. */
    ttlMs: number;
    refusal: Said;
    /**
     * Released once the run is over, however it ended: a click after it runs again (a Delete the
     * platform refused may be tried again; one that succeeded finds the job marked). Without it the
     * claim lasts `ttlMs` (a Regenerate's double click stays refused while its job starts).
     */
    releaseWhenDone?: boolean;
  };
  /**
   * Its button under every result it applies to, one per `values` entry when it acts on one of
   * several things (each avatar of a pair). Actions without one are placed by their renderer.
   */
  button?: {
    /** Said in the language of the job's requester, whom the result's message speaks to. */
    label: Msg;
    style?: ButtonStyle;
    values?(job: JobRecord): { label: Msg; value: string }[];
  };
  /** The job offers this action (checked again on every click: the message may be old). */
  appliesTo(job: JobRecord): boolean;
  run(ctx: ActionContext<V, z.output<S>>): Promise<void>;
}

/**
 * What a control this version cannot read (or no longer has) answers. A catalogue key, also as
 * the error of a control value's schema: `checkedValue` says it in the clicker's language.
 */
export const OLD_CONTROL = "refusal.action.old_control" satisfies MessageKey;

export interface ListActionContext<V> {
  event: ActionEvent;
  adapter: ChatAdapter;
  list: ListName;
  /** The list's command, which reads the list again for whoever clicks. */
  command: AnyCommand;
  /** The context the command would get from the clicker, with these options (the list's, then `options`). */
  context(options: Record<string, unknown>): Promise<CommandContext<Record<string, unknown>>>;
  value: V;
}

/**
 * A control on a list the bot posted (its pages, Show). No job is behind it: the list is read again
 * for whoever clicks, as their own command would read it, so a click shows nobody more than they
 * could list themselves.
 */
export interface ListActionDef<N extends string = string, V = unknown> {
  name: N;
  on: "list";
  value: z.ZodType<V>;
  /** Lists have no forms; declared so that every action of the catalogue answers `form`. */
  form?: undefined;
  run(ctx: ListActionContext<V>): Promise<void>;
}

export interface SettingsActionContext<V, F = Record<string, never>> {
  event: ActionEvent;
  /** Whose settings: the clicker's own. */
  person: PersonRef;
  /** The tenant's settings, as the gesture was admitted with. */
  settings: TenantSettings;
  /** The clicker is an admin of the tenant (may change the server's defaults). */
  admin: boolean;
  /** What the control acts on: a setting's name, or "mine" / "settings". */
  target: string;
  value: V;
  /** The form's fields, checked against its options and typed by them (empty for controls without a form). */
  fields: F;
  preferences: Pick<PreferenceStore, "update">;
  tenants: Pick<TenantStore, "update">;
}

/**
 * A control of the settings panel (in a message, or a platform's home). No job is behind it: it
 * changes the clicker's own settings (admins: the server's), and the panel is shown again at the
 * section `run` names, with what it says on top.
 */
export interface SettingsActionDef<N extends string = string, V = unknown, S extends z.ZodObject = NoFields> {
  name: N;
  on: "settings";
  value?: z.ZodType<V>;
  /** A form asked first (a negative prompt is typed), pre-filled from the person's settings. */
  form?: {
    title: string;
    of(): FormDef<S>;
    initial?(current: PersonPreferences): Record<string, string>;
  };
  run(ctx: SettingsActionContext<V, z.output<S>>): Promise<{ section: PanelSection; notice?: string }>;
}

// biome-ignore lint/suspicious/noExplicitAny: the catalogue holds actions of every value and form type
export type AnyJobAction = ActionDef<string, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the same
export type AnyListAction = ListActionDef<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: the same
export type AnySettingsAction = SettingsActionDef<string, any, any>;
export type AnyAction = AnyJobAction | AnyListAction | AnySettingsAction;

/** The value a control carried, checked against its action's (old messages carry old values). */
export function checkedValue(def: Pick<AnyAction, "value">, event: Pick<ActionEvent, "value">): unknown {
  if (!def.value) return undefined;
  const parsed = def.value.safeParse(event.value);
  if (!parsed.success) {
    const said = parsed.error.issues[0]?.message;
    throw new ActionError(
      "action.invalid",
      said === undefined ? msg("refusal.action.invalid_control") : isMessageKey(said) ? msg(said) : said,
    );
  }
  return parsed.data;
}

/** Keeps an action's value type tied to its `run`, and its name a literal the builder can check. */
export function defineAction<const N extends string, V = undefined, S extends z.ZodObject = NoFields>(
  def: ActionDef<N, V, S>,
): ActionDef<N, V, S>;
export function defineAction<const N extends string, V>(def: ListActionDef<N, V>): ListActionDef<N, V>;
export function defineAction<const N extends string, V, S extends z.ZodObject = NoFields>(
  def: SettingsActionDef<N, V, S>,
): SettingsActionDef<N, V, S>;
export function defineAction(def: AnyAction): AnyAction {
  return def;
}
