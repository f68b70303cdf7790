import { z } from "zod";

/**
 * The types every layer shares, from the store up to the adapters: the chat platforms, plain
 * JSON, and the references to a tenant, a conversation and a message that jobs keep. Each value
 * that is stored has its zod schema here, beside its type, so that what comes back from the store
 * is parsed, never cast. This leaf imports nothing of src: the store (the bottom) and the core
 * both import it.
 */

export const platform = z.enum(["discord", "slack"]);
export type Platform = z.infer<typeof platform>;

/** Any JSON value; what the stores keep for data they carry but do not interpret. */
export const json = z.json();
export type Json = z.infer<typeof json>;

const jsonObject = z.record(z.string(), json);

/** Whose API key and settings a job runs under: a Discord guild or a Slack team (or a person, below). */
export interface TenantRef {
  platform: Platform;
  tenantId: string;
  /**
   * A person who is their own tenant (a Discord user install, the DM with the bot): the
   * operator's key serves them only when MEDIA_API_KEY_TENANTS names them, never through `*`.
   */
  personal?: true;
}

/**
 * A tenant as one string ("discord:123", "slack:T1"): its record's key in the tenant store, its
 * entries in the caches, its metrics label.
 */
export const tenantKey = (tenant: TenantRef): string => `${tenant.platform}:${tenant.tenantId}`;

/**
 * Credentials of one gesture that die within minutes (a Discord interaction token and its age, a
 * Slack response_url): the adapter's own, like `data`, but kept apart so that they stay out of
 * what is stored for long. A job record never holds its conversation's, and drops its message's
 * when the job is finished (the job store's `withoutLive`).
 */
export const liveCredentials = jsonObject;
export type LiveCredentials = z.infer<typeof liveCredentials>;

/**
 * Where a command was issued. Plain JSON, because a job answers there after a restart too;
 * `data` is the adapter's own, `live` the gesture's short-lived credentials.
 */
export const conversationRef = z.object({
  platform,
  channelId: z.string(),
  threadId: z.string().optional(),
  data: jsonObject.optional(),
  live: liveCredentials.optional(),
  /**
   * Set when only the person of the gesture may see what is posted here (`delivery: private`):
   * the channel their job was asked for in. The adapter finds the private place (Discord: an
   * ephemeral answer while the interaction's token lives, then their DM; Slack: their DM).
   */
  privateFrom: z.string().optional(),
  /**
   * Set where the bot cannot post (a Discord server that did not add it, a group DM, a channel
   * where it lacks the permission to see or post): only the gesture's own short-lived credentials
   * answer here. Once they are dead the adapter continues in the person's DM with the bot, saying
   * why; the core posts nothing more here (no ready notice), since the platform would refuse it.
   */
  gestureOnly: z.literal(true).optional(),
  /**
   * Set with `privateFrom` by the core when the conversation refused the bot for good while the
   * job ran (access lost): what is left to show goes to the person's DM, and the core's message
   * says why itself, so the adapter adds no reason of its own.
   */
  diverted: z.literal(true).optional(),
  /**
   * Set where an automation started the job (a Slack workflow step): nobody reads a channel here,
   * and `ChatAdapter.completeStep` ends the step, once, also with the refusal of a command that
   * never started a job.
   * - "outcome": the step waits for the job and ends with its outcome. The adapter posts nothing:
   *   the job's message stands for the step (its post answers a reference that keeps the step's
   *   short-lived credentials in `live`, its edits show nothing).
   * - "start": the step ends as soon as the service accepted the job, with its id; the job then
   *   runs in the person's DM with the bot, as a private job (for jobs that may outlive the
   *   step's time).
   */
  step: z.enum(["outcome", "start"]).optional(),
});
export type ConversationRef = z.infer<typeof conversationRef>;

/** A message the bot posted and may edit later, persisted in the job record. */
export const messageRef = z.object({
  platform,
  channelId: z.string(),
  messageId: z.string(),
  data: jsonObject.optional(),
  live: liveCredentials.optional(),
});
export type MessageRef = z.infer<typeof messageRef>;
