import type { JobRecord } from "../../store/jobs.js";
import type { TenantSettings } from "../../store/tenants.js";
import type { Actor, ConversationRef, EntryKind } from "../base/ports.js";
import type { AnyCommand } from "../commands/define.js";
import { chosenLanguage } from "../i18n/languages.js";
import { personOf, tenantOf } from "../tenancy/tenancy.js";
import type { Core } from "./core.js";

/**
 * The one door of every gesture, whatever its kind: the tenant's allow-lists (channels, roles),
 * admin-only commands, then the person's and the tenant's command rates. A button on an old
 * message, a form submitted late or an autocomplete keystroke gets no further than a slash
 * command would.
 *
 * Autocomplete is checked like the rest but does not count against the rates (Discord sends one
 * per keystroke), and a refusal there means no choices: Discord and Slack show only the list, so
 * the person learns why when they submit, which is refused with its reason.
 */

export interface Entry {
  kind: EntryKind;
  actor: Actor;
  conversation: Pick<ConversationRef, "channelId">;
  /** The command the gesture runs or fills in, when it names one (buttons act on a job instead). */
  command?: AnyCommand;
}

/** The tenant's settings once `entry` may go on; throws AccessError or RateLimitError otherwise. */
export async function admit(core: Core, entry: Entry): Promise<TenantSettings> {
  const settings = await core.tenancy.settings(tenantOf(entry.actor));
  core.tenancy.checkAccess(entry.actor, entry.conversation, settings, entry.command);
  if (entry.kind !== "autocomplete") core.rates.take(entry.actor);
  await learnLanguages(core, entry.actor, settings);
  return settings;
}

/**
 * Puts the person's own language choice and their tenant's default on `actor`, so that whatever
 * answers this gesture (a reply, a refusal, the job it starts) speaks the language the order of
 * `readerLocale` picks.
 */
export async function learnLanguages(core: Core, actor: Actor, settings: TenantSettings): Promise<void> {
  const mine = chosenLanguage((await core.preferences.get(personOf(actor))).defaults);
  const tenants = chosenLanguage(settings.defaults);
  if (mine) actor.chosenLocale = mine;
  else delete actor.chosenLocale;
  if (tenants) actor.tenantLocale = tenants;
  else delete actor.tenantLocale;
}

/** The job `jobId` when it is the actor's tenant's; undefined for another tenant's or a forgotten one. */
export async function jobOf(core: Core, jobId: string, actor: Actor): Promise<JobRecord | undefined> {
  const job = await core.engine.get(jobId);
  return job && job.tenant.tenantId === actor.tenantId && job.tenant.platform === actor.platform
    ? job
    : undefined;
}
