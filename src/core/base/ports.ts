import type { Readable } from "node:stream";
import type { ConversationRef, MessageRef, Platform } from "../../common/types.js";
import type { Card, OutgoingFile } from "./cards.js";

export type { ConversationRef, Json, LiveCredentials, MessageRef, Platform } from "../../common/types.js";
export type { OutgoingFile };

/**
 * The boundary between the core and the chat platforms. Adapters turn platform payloads into these
 * events and implement `ChatAdapter`; everything the bot decides happens in the core.
 */

export interface Actor {
  platform: Platform;
  /** Discord guild id or Slack team id: API keys and settings belong to a tenant. */
  tenantId: string;
  userId: string;
  /** Discord: Manage Guild. Slack: workspace admin or owner. */
  isAdmin: boolean;
  /** Discord role ids, Slack user group ids: for the tenant's allow-list and group budgets. */
  roleIds: string[];
  /**
   * The platform could not say which roles or user groups the person has (Slack's usergroups.list
   * failed and no recent answer was at hand; a click in a Discord DM, outside the server):
   * `roleIds` is then empty, allow-lists of roles keep the person out, and a budget of a role or
   * group asks `ChatAdapter.rolesOf` before a start, refusing it when that cannot say either.
   */
  rolesUnknown?: true;
  /**
   * The language the person reads their platform in, as a BCP 47 tag (Discord's interaction
   * `locale`, Slack's users.info `locale`): what the bot answers them in, when it speaks it.
   */
  locale?: string;
  /** The server's own language (Discord's `guild_locale`), after the person's and the tenant's choice. */
  placeLocale?: string;
  /**
   * The language the person chose in the bot (`/settings language`), and their tenant's default
   * (`/setup language`): read from their records once the gesture is admitted (flows/admit.ts).
   */
  chosenLocale?: string;
  tenantLocale?: string;
}

/** A person, a role (a Slack user group) or a channel of a tenant, to be named for people. */
export interface NameRef {
  kind: "user" | "role" | "channel";
  id: string;
}

/**
 * What ends a workflow step: the finished job's result (its ids, its link, its file), or the
 * reason nothing was made, in words its person reads in the workflow's activity.
 */
export type StepOutcome =
  | { ok: true; jobId: string; mediaId?: string; url?: string; file?: OutgoingFile }
  | { ok: false; jobId?: string; reason: string };

/**
 * How a gesture reached the bot. Every kind passes the same access check (allow-lists, admin-only
 * commands) and all but autocomplete count against the command rates.
 */
export type EntryKind =
  | "command"
  | "form"
  | "button"
  | "autocomplete"
  | "message_shortcut"
  | "context_menu"
  | "workflow_step";

/** A file a user attached; the adapter does the authenticated download when it is opened. */
export interface Attachment {
  name: string;
  contentType: string;
  size: number;
  open(): Promise<Readable>;
}

export type Message = Card | { text: string };

export interface PostOptions {
  /** Only the actor sees it (errors, setup). */
  ephemeral?: boolean;
  /** Notify this user (the requester, when a long job finishes). */
  mentionUserId?: string;
  /**
   * Same key, same message: a post repeated after a crash must not appear twice
   * (Discord: nonce with enforce_nonce; Slack: the adapter checks what it already posted).
   */
  idempotencyKey?: string;
  /**
   * Where the platform can tell, a post repeated under this key after a crash finds the first one
   * rather than posting again (Slack: the adapter's record and the post's metadata); otherwise it
   * is sent as any post (Discord: a gesture's reply knows no nonce). For a message whose ref is
   * recorded after it is posted, which a crash in between would leave on the platform unrecorded.
   */
  findKey?: string;
}

/**
 * A chat platform. What it answers is sorted by the adapter, once, into what the core can act on:
 * - `UndeliverableError`: the conversation refuses the bot for good. Never sent again; a job's
 *   result goes to its person's DM instead (core/flows/hooks.ts).
 * - `FileRefusedError`: the message would be taken, but not its file (over what the place accepts
 *   from the bot, uploads turned off, a file type not allowed). The core sends the same message
 *   once more, without the file and with its link and the error's sentence (core/file-fallback.ts).
 * - `MessageGoneError`: the message to edit was deleted; what it was to show is posted anew.
 * - anything else is passing trouble (an outage, a rate limit past the client's own retries): a
 *   delivery tries again later, with backoff. An adapter moves to its next credential itself (a
 *   dead Discord interaction token: the bot token) before it throws.
 */
export interface ChatAdapter {
  readonly platform: Platform;
  post(target: ConversationRef, message: Message, options?: PostOptions): Promise<MessageRef>;
  edit(ref: MessageRef, message: Message): Promise<void>;
  /**
   * Replaces the message whose button `target`'s gesture clicked, private ones too (a list's
   * pages): Discord through the click's interaction, Slack through its response_url.
   */
  replace(target: ConversationRef, message: Message): Promise<void>;
  /**
   * Deletes a message the bot posted (with what it threaded under it: a result's files); resolves
   * once it is gone, also when it was gone already. `click`, a gesture on that very message, lends
   * its own credentials where the bot's do not reach (a private reply: Discord's interaction
   * token, Slack's response_url). Throws `DeleteRefusedError` when the platform refuses.
   */
  remove(ref: MessageRef, click?: ConversationRef): Promise<void>;
  /**
   * Largest file, in bytes, that can be uploaded to this conversation, or to this message by an
   * edit, with the credential the adapter would use now (Discord: the interaction's limit while
   * its token lives, the bot's own after). A file over it is shown as its link without being
   * fetched; one the platform refuses anyway comes back as `FileRefusedError`.
   */
  uploadLimit(target: ConversationRef | MessageRef): number;
  /** A channel of the tenant, to post in outside any gesture (spending alerts). */
  channel(tenantId: string, channelId: string): ConversationRef;
  /** A link that opens the message in the platform's app, for people of the tenant that owns it. */
  messageUrl(ref: MessageRef, tenantId: string): string;
  /**
   * Shows `cards` as the person's home, in place of what it showed (Slack's App Home tab).
   * Absent on platforms without one: the settings panel is then a message.
   */
  publishHome?(person: Pick<Actor, "tenantId" | "userId">, cards: readonly Card[]): Promise<void>;
  /**
   * Ends the workflow step a `step` conversation (or the job's message there) stands for. Throws
   * `StepEndedError` when the platform had ended the step already (its time ran out, someone
   * stopped the workflow); a step this adapter completed before resolves again without a call.
   * Absent on platforms without workflow steps.
   */
  completeStep?(target: ConversationRef | MessageRef, outcome: StepOutcome): Promise<void>;
  /**
   * What the platform calls these people, roles (Slack: user groups) and channels of `tenantId`,
   * as plain text without a sigil ("ann", "Designers", "marketing"), keyed `kind:id`. Those it
   * cannot name (gone, out of the bot's sight, a failed call) are left out, and shown by id.
   * Absent on a platform that cannot say: budgets, usage and the export show ids.
   */
  names?(tenantId: string, refs: readonly NameRef[]): Promise<ReadonlyMap<string, string>>;
  /**
   * The roles (Discord) or user groups (Slack) `userId` has in `tenantId`, read from the platform
   * now, for a gesture that came without them (`Actor.rolesUnknown`). Throws when the platform
   * cannot say. Absent: a start that a role's or group's budget might bind is refused ("try
   * again"), never let through unbudgeted.
   */
  rolesOf?(tenantId: string, userId: string): Promise<string[]>;
}

export interface CommandEvent {
  /** A catalogue name: "image.generate", "usage", ... */
  command: string;
  /** Raw option values; the core validates them with the command's schema. */
  options: Record<string, unknown>;
  /** Files by option name. */
  attachments: Record<string, Attachment[]>;
  /** Files by option name given as web addresses (a workflow step's Image URL), read by the core. */
  links?: Record<string, string[]>;
  actor: Actor;
  conversation: ConversationRef;
  /** Default "command"; "form" for a submitted modal. */
  entry?: Extract<EntryKind, "command" | "form" | "message_shortcut" | "context_menu" | "workflow_step">;
  /**
   * Job ids by file option: the option's attachment is that job's result (an image from the chat
   * that the bot made), which the service already holds: its media id is used, nothing uploaded.
   */
  results?: Record<string, string>;
}

/** A button click or a follow-up form submitted, on a message the bot posted. */
export interface ActionEvent {
  /** A name of the core's action catalogue: "confirm", "regenerate", "edit", "page", ... */
  action: string;
  /** What the control acts on: our job id, or for a list's controls the list's name. */
  jobId: string;
  /** The variant number, the chosen style, ... */
  value?: string;
  /** A follow-up form's raw values by option name; the core checks them against the form. */
  fields?: Record<string, unknown>;
  /** The files given in a follow-up's form, by option name (checked like a command's). */
  attachments?: Record<string, Attachment[]>;
  actor: Actor;
  /** The message the control is on (a form may come without it). */
  message?: MessageRef;
  conversation: ConversationRef;
  /** Default "button". */
  entry?: Extract<EntryKind, "button" | "form">;
  /** The control is on the person's home (ChatAdapter.publishHome), in no channel; default a message. */
  surface?: "home";
}

export interface AutocompleteEvent {
  command: string;
  option: string;
  query: string;
  actor: Actor;
  /** Where the command (or the form) is being filled in. */
  conversation: ConversationRef;
}

export interface Choice {
  label: string;
  value: string;
}
