import type { Actor, ConversationRef } from "../base/ports.js";
import { type TenantRef, tenantOf } from "../tenancy/tenancy.js";

/**
 * Where a paid start was asked: its spending is recorded there and the budgets of that tenant and
 * channel bind it, whichever way it came. One rule for every path:
 * - a command: its channel (a private one's too: `privateFrom` names the channel it was asked in);
 * - a follow-up clicked in a channel, or on the DM copy of a private result (Slack's DM, Discord's
 *   DM once the interaction's 15 minutes are over): the channel of the job it follows, which the
 *   flows carry as `privateFrom`, never the DM;
 * - a follow-up clicked on the Slack Home: the job's own conversation, the same way;
 * - a workflow step: no channel, so its person stands for it (the step's conversation), and a
 *   channel's budget does not bind it (a person's, a group's and everyone's do);
 * - a Discord user install: the person is their own tenant (tenancy/tenancy.ts), in the channel used.
 * The tenant is the actor's, which a click on a DM copy already took from the job (privacy.ts
 * `actorOnJob`).
 */
export interface Origin {
  tenant: TenantRef;
  channelId: string;
}

export function originOf(
  actor: Actor,
  conversation: Pick<ConversationRef, "channelId" | "privateFrom">,
): Origin {
  return { tenant: tenantOf(actor), channelId: conversation.privateFrom ?? conversation.channelId };
}
