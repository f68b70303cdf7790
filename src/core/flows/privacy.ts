import type { JobRecord } from "../../store/jobs.js";
import type { TenantSettings } from "../../store/tenants.js";
import type { Actor, ConversationRef } from "../base/ports.js";
import { AccessError } from "../base/refusals.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import { isPersonal } from "../tenancy/tenancy.js";
import type { Core } from "./core.js";

/**
 * Who sees a job: its channel, or only the person who asked (`delivery: private`). Admins may turn
 * private results off (a shared account may want every spend seen). A command that asks for a
 * private result itself is then refused before anything is spent: the person said what they
 * wanted and should not be surprised in public. One whose private choice only came from a default
 * runs in the channel, and its message says why, since the person did not ask for anything now.
 */

export interface Privacy {
  private: boolean;
  /** Why a job meant to be private shows in the channel, for its message's footer. */
  note?: string;
}

/** Whether `given` (the options as typed, before defaults, by option) names a delivery itself. */
function asked(given: Record<string, unknown>): boolean {
  const delivery = Object.hasOwn(given, "delivery") ? given.delivery : undefined;
  return typeof delivery === "string" && delivery.trim() !== "";
}

export function privacyOf(
  actor: Pick<Actor, "platform" | "locale" | "placeLocale">,
  given: Record<string, unknown>,
  delivery: unknown,
  settings: Pick<TenantSettings, "privateResults">,
): Privacy {
  if (delivery !== "private") return { private: false };
  if (settings.privateResults !== "forbidden") return { private: true };
  if (asked(given)) throw privateRefused(actor, "refusal.access.private_asked");
  return { private: false, note: translatorFor(readerLocale(actor)).text("job.private_off") };
}

/**
 * A follow-up of a private result is private too; once an admin turned private results off, it is
 * refused like a command that asks for one (it would be a private spend).
 */
export function checkFollowUp(
  actor: Pick<Actor, "platform">,
  job: Pick<JobRecord, "conversation">,
  settings: Pick<TenantSettings, "privateResults">,
): void {
  if (privateOrigin(job) !== undefined && settings.privateResults === "forbidden") {
    throw privateRefused(actor, "refusal.access.private_follow_up");
  }
}

function privateRefused(
  actor: Pick<Actor, "platform">,
  key: "refusal.access.private_asked" | "refusal.access.private_follow_up",
): AccessError {
  // "delivery private" as typed, in every language.
  return new AccessError(
    "access.private_results",
    msg(key, { place: actor.platform, delivery: "delivery private" }),
  );
}

/** `conversation`, for the person of its gesture only, asked for in `from` (a channel id). */
export function privately(conversation: ConversationRef, from: string): ConversationRef {
  return { ...conversation, privateFrom: from };
}

/** The channel a private job was asked for in; undefined for a job the channel sees. */
export function privateOrigin(job: Pick<JobRecord, "conversation">): string | undefined {
  const from = (job.conversation as { privateFrom?: unknown } | null)?.privateFrom;
  return typeof from === "string" ? from : undefined;
}

/**
 * A gesture from the DM with the bot is the person's own tenant's (a Discord DM belongs to no
 * server), yet a click there on a private result that came by DM acts in that job's tenant, for
 * the job's requester only, as no admin of it and with roles not known (an allow-list of roles
 * still keeps them out there; a role's budget reads them from the platform, or refuses).
 */
export async function actorOnJob(core: Core, actor: Actor, jobId: string): Promise<Actor> {
  if (!isPersonal(actor)) return actor;
  const job = await core.engine.get(jobId);
  const theirs =
    job !== undefined &&
    privateOrigin(job) !== undefined &&
    job.tenant.platform === actor.platform &&
    job.tenant.tenantId !== actor.tenantId &&
    job.requester.userId === actor.userId;
  // The DM's gesture says nothing of their roles there: unknown, which a role's budget asks the
  // platform about before a start (spend/spending.ts).
  return theirs
    ? { ...actor, tenantId: job.tenant.tenantId, isAdmin: false, roleIds: [], rolesUnknown: true }
    : actor;
}
