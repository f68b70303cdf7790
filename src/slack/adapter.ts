import { setTimeout as sleep } from "node:timers/promises";
import type { WebClient } from "@slack/web-api";
import { request } from "undici";
import { type Card, card, isCard, plainText } from "../core/base/cards.js";
import {
  BotError,
  DeleteRefusedError,
  FileRefusedError,
  MessageGoneError,
  type Said,
  StepEndedError,
  UndeliverableError,
} from "../core/base/errors.js";
import type { Logger } from "../core/base/log.js";
import type {
  Actor,
  ChatAdapter,
  ConversationRef,
  Message,
  MessageRef,
  OutgoingFile,
  PostOptions,
  StepOutcome,
} from "../core/base/ports.js";
import { readerLocale } from "../core/i18n/locale.js";
import { msg } from "../core/i18n/msg.js";
import { translatorFor } from "../core/i18n/translator.js";
import { saidLine } from "../core/render/errors.js";
import { type CallOptions, DEFAULT_PACING, leftNothing, type PacingPolicy, SlackCalls } from "./calls.js";
import { slackErrorCode } from "./error-code.js";
import type { Ledger } from "./ledger.js";
import { SLACK_LIMITS } from "./limits.js";
import { lookBack, type Seen, type Where } from "./look-back.js";
import { Latest } from "./pacing.js";
import { type Rendered, type RenderOptions, renderMessage } from "./render/card.js";
import { homeView } from "./render/home.js";
import { executionOf, functionTokenOf, stepMessage } from "./step-refs.js";
import { type SlackCall, sendFile, type Ticket, ticketFor, uploadFile } from "./upload.js";
import type { Workspaces } from "./workspaces.js";

/**
 * The core's chat port on the Slack Web API, with the token of the conversation's workspace
 * (`data.team`, see workspaces.ts): chat.postMessage and
 * chat.postEphemeral to post, chat.update to edit (response_urls expire after 30 minutes, jobs
 * do not), and the files of a card uploaded into the thread of the message that shows it.
 * Every call goes through calls.ts: paced per workspace and method, judged by one table.
 *
 * Ephemeral messages go to the person in `ConversationRef.data.user`, which the adapter sets on
 * every conversation it hands to the core, together with the gesture's `responseUrl` (in `live`,
 * since it is a credential of 30 minutes) when it has one.
 *
 * A card with a progress bar is a passing state: its edit returns at once, and only the newest
 * one of a message is sent when its turn comes, within a share of chat.update's tier (pacing.ts).
 * Anything else edited or posted (a result, a choice) waits for its slot ahead of them.
 */

/** Slack's not-a-member answers, where an ephemeral answer still has the gesture's response_url. */
const NOT_A_MEMBER_CODES = new Set(["not_in_channel", "channel_not_found", "invalid_channel"]);

/** The metadata event type of keyed posts: the key in its payload finds a post again after a crash. */
const POST_EVENT = "media_bot_post";
const keyOf = (message: Seen) =>
  message.metadata?.event_type === POST_EVENT
    ? (message.metadata.event_payload as { key?: unknown } | undefined)?.key
    : undefined;

const postKey = (target: ConversationRef, idempotencyKey: string) =>
  `post:${target.channelId}:${idempotencyKey}`;
/** Noted while a keyed post's files are on their way: a repeat of the post shows its new content. */
const pendingKey = (key: string) => `files-pending:${key}`;

/** The workspace a conversation or message is in, as the adapter recorded it. */
function teamOf(ref: ConversationRef | MessageRef): string | undefined {
  const team = ref.data?.team;
  return typeof team === "string" ? team : undefined;
}

/** Slack's error code of a failure, also when the core's error for it wraps Slack's. */
function codeOf(error: unknown): string | undefined {
  return slackErrorCode(error) ?? slackErrorCode((error as { cause?: unknown } | undefined)?.cause);
}

/**
 * Slack's answers to functions.complete* that mean the execution is over for good: completed or
 * stopped (execution_not_in_running_state), or the function's token dead (it lives while the
 * execution runs, 15 minutes at most).
 */
const STEP_ENDED = new Set([
  "execution_not_in_running_state",
  "function_execution_not_found",
  "invalid_auth",
  "token_expired",
  "token_revoked",
  "not_authed",
]);
/**
 * Any other refusal (outputs Slack would not take) will not change with waiting: the engine gives
 * up after a few tries, as with a channel that refuses posts. Passing trouble is worth a retry.
 */
const stepEnded = (error: unknown): unknown => {
  const code = codeOf(error);
  // Passing trouble, retried by the core's delivery.
  if (code === undefined || !(error instanceof BotError)) return error;
  return STEP_ENDED.has(code)
    ? new StepEndedError({ message: `Slack ${code}`, cause: error })
    : new UndeliverableError(msg("platform.slack.step_refused"), {
        message: `Slack ${code}`,
        cause: error,
      });
};

const uploadKey = (ref: MessageRef, file: OutgoingFile) =>
  `upload:${ref.channelId}:${ref.messageId}:${file.name}`;
const messageKey = (ref: MessageRef) => `${teamOf(ref) ?? ""}:${ref.channelId}:${ref.messageId}`;

function filesOf(message: Message): OutgoingFile[] {
  return isCard(message) ? message.media.flatMap((m) => (m.file ? [m.file] : [])) : [];
}

/** Uploaded files Slack shows in the message itself (image blocks), which must be processed first. */
function shownInline(message: Message): Set<string> {
  if (!isCard(message)) return new Set();
  return new Set(message.media.flatMap((m) => (m.kind === "image" && m.file ? [m.file.name] : [])));
}

/** How long a refused edit is answered from memory; and how many such notes are kept at most. */
const REFUSAL_KEPT_MS = 15 * 60_000;
const NOTES_KEPT = 10_000;

/** Drops the tickets' spooled bytes (a ticket sent already dropped its own). */
async function discard(tickets: ReadonlyMap<string, Ticket>): Promise<void> {
  await Promise.all([...tickets.values()].map((ticket) => ticket.discard()));
}

/** A progress bar on its way to a result: worth showing only until the next one. */
const isPassing = (message: Message) => isCard(message) && message.progress !== undefined;

/** The card as shown when its files cannot be: their links, and why (in its reader's language). */
function withoutFiles(message: Message, why: Said): Message {
  const line = saidLine(why, translatorFor(isCard(message) ? message.locale : undefined));
  if (!isCard(message)) return { text: `${message.text}\n${plainText(line)}` };
  return { ...message, lines: [...message.lines, line] };
}

/**
 * An answer through a response_url (valid 30 minutes, five times): a new ephemeral message, the
 * clicked message replaced, or deleted (`rendered` undefined).
 */
async function respond(
  url: string,
  rendered: { text: string; blocks: unknown[] } | undefined,
  how: "ephemeral" | "replace" = "ephemeral",
): Promise<void> {
  const body = rendered
    ? { ...(how === "replace" ? { replace_original: true } : { response_type: "ephemeral" }), ...rendered }
    : { delete_original: true };
  const answer = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`response_url refused the answer: HTTP ${answer.statusCode} ${text.slice(0, 200)}`);
}

/** Where the files the bot shared into a message's thread are noted, for its deletion. */
const threadFilesKey = (ref: MessageRef) => `thread-files:${ref.channelId}:${ref.messageId}`;

/** What is said where neither the bot nor the click can reach an ephemeral message. */
const EPHEMERAL_KEPT = msg("platform.slack.ephemeral_kept");

export interface SlackAdapterOptions {
  /** Pacing and waits (tests compress them with the fake Slack's minute). */
  pacing?: Partial<PacingPolicy>;
  /** Where passing states that Slack refused are reported. */
  logger?: Logger;
  /** Who people, groups and channels are (names.ts), and who is in which group (actors.ts). */
  names?: NonNullable<ChatAdapter["names"]>;
  rolesOf?: NonNullable<ChatAdapter["rolesOf"]>;
}

export class SlackAdapter implements ChatAdapter {
  readonly platform = "slack" as const;
  private readonly joined = new Set<string>();
  private readonly calls: SlackCalls;
  private readonly policy: PacingPolicy;
  /** The newest progress of each message, and the newest Home tab of each person, waiting their turn. */
  private readonly passing: Latest<Rendered>;
  private readonly homes: Latest<Card[]>;
  /** Messages this process already showed as "uploading": a repeat of the delivery skips that edit. */
  private readonly uploading = new Set<string>();
  /**
   * Messages whose edit Slack refused for good (the channel gone, the message deleted): every
   * later edit of them gets the same answer without asking Slack again, for a while.
   */
  private readonly refused = new Map<string, { error: Error; at: number }>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly ledger: Ledger,
    options: SlackAdapterOptions = {},
  ) {
    this.policy = { ...DEFAULT_PACING, ...options.pacing };
    this.calls = new SlackCalls(workspaces, this.policy);
    const failed = (what: string) => (error: unknown, key: string) =>
      options.logger?.warn({ err: error, key }, `Slack: ${what} not shown`);
    this.passing = new Latest(failed("a progress update was"));
    this.homes = new Latest(failed("a Home tab was"));
    if (options.names) this.names = options.names;
    if (options.rolesOf) this.rolesOf = options.rolesOf;
  }

  readonly names?: ChatAdapter["names"];
  readonly rolesOf?: ChatAdapter["rolesOf"];

  /** A Web API call of the workspace of `ref`, paced and judged (calls.ts). */
  private call<T>(
    ref: ConversationRef | MessageRef,
    method: string,
    call: (client: WebClient) => Promise<T>,
    options: CallOptions = {},
  ): Promise<T> {
    return this.calls.call(teamOf(ref), method, call, options);
  }

  private slackOf(ref: ConversationRef | MessageRef): SlackCall {
    return (method, call) => this.call(ref, method, call);
  }

  uploadLimit(_target: ConversationRef): number {
    return SLACK_LIMITS.uploadBytes;
  }

  /** The workspace names the token to post with (many workspaces over OAuth). */
  channel(teamId: string, channelId: string): ConversationRef {
    return { platform: "slack", channelId, data: { team: teamId } };
  }

  /** Slack's archive link (the message ts without its dot), which opens in the signed-in workspace. */
  messageUrl(ref: MessageRef, _teamId: string): string {
    return `https://slack.com/archives/${ref.channelId}/p${ref.messageId.replace(".", "")}`;
  }

  post(target: ConversationRef, message: Message, options: PostOptions = {}): Promise<MessageRef> {
    const execution = target.step && executionOf(target);
    // A workflow step reads no channel: its job's message is the execution (core ports: `step`).
    if (execution) return Promise.resolve(stepMessage(target, execution));
    if (target.privateFrom !== undefined && !options.ephemeral)
      return this.postPrivately(target, message, options);
    if (!options.ephemeral) return this.postPublic(target, message, options);
    // An ephemeral message cannot carry files: private files go to the person's DM with the bot.
    if (filesOf(message).length > 0) return this.postDirect(target, message);
    return this.once(target, options, () => this.postEphemeral(target, message, options));
  }

  /**
   * The person's App Home tab, replaced as a whole (views.publish). A Home tab is a passing state:
   * the newest one is published when views.publish's turn comes, and this returns at once.
   */
  async publishHome(
    // The core passes the whole actor: its language fields say what the Home's own words are in.
    person: Pick<Actor, "tenantId" | "userId" | "locale" | "chosenLocale" | "tenantLocale" | "placeLocale">,
    cards: readonly Card[],
  ): Promise<void> {
    const t = translatorFor(readerLocale(person));
    const where = this.channel(person.tenantId, person.userId);
    this.homes.offer(`${person.tenantId}:${person.userId}`, [...cards], async (shown, signal) => {
      await this.call(
        where,
        "views.publish",
        (c) => c.views.publish({ user_id: person.userId, view: homeView(shown, t) }),
        {
          priority: "passing",
          signal,
        },
      );
    });
  }

  /**
   * Ends a workflow step with functions.completeSuccess / completeError, with the function's own
   * token, once: a repeat (a delivery again after a crash) finds the ledger's record, and one
   * that began before a crash kept the record from being written takes Slack's
   * execution_not_in_running_state as its own completion having landed.
   */
  async completeStep(target: ConversationRef | MessageRef, outcome: StepOutcome): Promise<void> {
    const execution = executionOf(target);
    if (!execution) throw new Error("only a workflow step's conversation or message can complete it");
    const token = functionTokenOf(target);
    if (!token) throw new StepEndedError({ message: `no function token kept for ${execution}` });
    // The function's own token, not the workspace's: Slack's refusal of it ends the step.
    const completeError = (error: string) =>
      this.call(
        target,
        "functions.completeError",
        (c) => c.functions.completeError({ token, function_execution_id: execution, error }),
        { ownToken: true },
      );
    const complete = async () => {
      if (!outcome.ok) {
        await completeError(outcome.reason);
        return true;
      }
      const outputs = {
        job_id: outcome.jobId,
        ...(outcome.mediaId && { media_id: outcome.mediaId }),
        ...(outcome.url && { url: outcome.url }),
        ...(await this.stepFile(target, execution, outcome.file)),
      };
      await this.call(
        target,
        "functions.completeSuccess",
        (c) => c.functions.completeSuccess({ token, function_execution_id: execution, outputs }),
        { ownToken: true },
      ).catch(async (error: unknown) => {
        const code = codeOf(error);
        if (!(error instanceof UndeliverableError) || code === undefined || STEP_ENDED.has(code)) throw error;
        // Outputs Slack will not take: the workflow hears that the step ended, and why, instead
        // of waiting on it until Slack gives up.
        await completeError(
          `Slack did not take this step's outputs (${code}). The job ${outcome.jobId} finished: /media jobs shows its result.`,
        );
      });
      return true;
    };
    await this.ledger.once(
      `step:${execution}`,
      () => complete().catch((error: unknown) => Promise.reject(stepEnded(error))),
      () =>
        complete().catch((error: unknown) => {
          if (codeOf(error) === "execution_not_in_running_state") return true;
          throw stepEnded(error);
        }),
    );
  }

  /**
   * A step's result as a Slack file shared nowhere (the workflow's next steps share it), uploaded
   * once per execution. A file Slack refuses leaves the output out; the link stays.
   */
  private async stepFile(
    target: ConversationRef | MessageRef,
    execution: string,
    file: OutgoingFile | undefined,
  ): Promise<{ file?: string }> {
    if (!file) return {};
    try {
      return {
        file: await this.ledger.once(`upload:step:${execution}:${file.name}`, () =>
          uploadFile(this.slackOf(target), file, undefined),
        ),
      };
    } catch (error) {
      if (error instanceof FileRefusedError || error instanceof UndeliverableError) return {};
      throw error;
    }
  }

  /**
   * chat.delete with the workspace's token, after the files the bot shared into the message's
   * thread (files.delete: Slack keeps a thread's replies, and a result's files are replies). A
   * message Slack no longer has is done. An ephemeral message, or one the bot may not delete, goes
   * through the click's response_url (delete_original) when the click is on it.
   */
  async remove(ref: MessageRef, click?: ConversationRef): Promise<void> {
    const responseUrl = typeof click?.live?.responseUrl === "string" ? click.live.responseUrl : undefined;
    if (executionOf(ref)) {
      throw new DeleteRefusedError(msg("platform.slack.step_no_message"));
    }
    if (ref.data?.ephemeral) {
      if (!responseUrl) throw new DeleteRefusedError(EPHEMERAL_KEPT);
      return respond(responseUrl, undefined);
    }
    // No progress may land on it afterwards.
    await this.passing.settle(messageKey(ref));
    await this.removeThreadFiles(ref);
    try {
      await this.call(ref, "chat.delete", (c) =>
        c.chat.delete({ channel: ref.channelId, ts: ref.messageId }),
      );
    } catch (error) {
      if (error instanceof MessageGoneError) return;
      if (!(error instanceof UndeliverableError)) throw error;
      if (responseUrl) {
        const through = await respond(responseUrl, undefined).then(
          () => true,
          () => false,
        );
        if (through) return;
      }
      throw new DeleteRefusedError(error.said, { message: error.message, cause: error });
    }
  }

  /** The files noted as shared into the message's thread; those gone already, or not the bot's to delete, are left. */
  private async removeThreadFiles(ref: MessageRef): Promise<void> {
    const noted = await this.ledger.read(threadFilesKey(ref));
    const ids = Array.isArray(noted) ? noted.filter((id): id is string => typeof id === "string") : [];
    for (const id of ids) {
      await this.call(ref, "files.delete", (c) => c.files.delete({ file: id })).catch((error: unknown) => {
        if (!(error instanceof BotError)) throw error;
      });
    }
  }

  /** The clicked message, ephemeral ones too, replaced through the click's response_url. */
  async replace(target: ConversationRef, message: Message): Promise<void> {
    const responseUrl = target.live?.responseUrl;
    if (typeof responseUrl !== "string")
      throw new Error("only a click's response_url can replace its message");
    await respond(responseUrl, renderMessage(message), "replace");
  }

  /**
   * A card with files, for one person's eyes: posted in their DM with the bot (the files uploaded
   * under it as for any result), and said so where they asked.
   */
  private async postDirect(target: ConversationRef, message: Message): Promise<MessageRef> {
    const dm = await this.dmOf(target);
    const ref = await this.postPublic(dm, message, {});
    // Asked in the DM itself: the card is there already, and once is enough.
    if (dm.channelId === target.channelId) return ref;
    // Where they asked, the person sees the answer itself; only its files are elsewhere.
    const note = isCard(message)
      ? {
          ...message,
          media: message.media.filter((medium) => !medium.file),
          lines: [
            ...message.lines,
            `${filesOf(message)
              .map((f) => f.name)
              .join(", ")}: sent to you in a direct message from the bot.`,
          ],
        }
      : { text: "The file was sent to you in a direct message from the bot." };
    await this.postEphemeral(target, note, {});
    return ref;
  }

  /**
   * A private job's messages live in its person's DM with the bot, where they are updated like any
   * message (Slack lets nobody update an ephemeral message later). Where they asked, they alone
   * are told where to look.
   */
  private async postPrivately(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
  ): Promise<MessageRef> {
    const dm = await this.dmOf(target);
    const ref = await this.postPublic(dm, message, options);
    if (dm.channelId !== target.channelId && !options.idempotencyKey) {
      const t = translatorFor(isCard(message) ? message.locale : undefined);
      const pointer = card(t.text("platform.slack.private_title"), "info", {
        lines: [t.text("platform.slack.private_line")],
        links: [{ label: t.text("platform.slack.open_dm"), url: this.messageUrl(ref, teamOf(target) ?? "") }],
      });
      // The job's message is posted and must be recorded: a pointer that fails costs only the pointer.
      await this.postEphemeral(target, pointer, {}).catch(() => undefined);
    }
    return ref;
  }

  /** The person's DM with the bot (conversations.open gives the same one every time). */
  private async dmOf(target: ConversationRef): Promise<ConversationRef> {
    const user = target.data?.user;
    if (typeof user !== "string") throw new Error("a private Slack message needs the conversation's user");
    const opened = await this.call(target, "conversations.open", (c) =>
      c.conversations.open({ users: user }),
    );
    const dm = opened.channel?.id;
    if (!dm) throw new Error("conversations.open answered without a channel");
    const team = teamOf(target);
    return { platform: "slack", channelId: dm, ...(team && { data: { team } }) };
  }

  /** A keyed ephemeral post is sent once; one that cannot be read back stays unsent after a crash. */
  private once(target: ConversationRef, options: PostOptions, post: () => Promise<MessageRef>) {
    return options.idempotencyKey ? this.ledger.once(postKey(target, options.idempotencyKey), post) : post();
  }

  async edit(ref: MessageRef, message: Message): Promise<void> {
    // A workflow step shows no progress: Workflow Builder shows the step running until it ends.
    if (executionOf(ref)) return;
    if (ref.data?.ephemeral) throw new Error("Slack does not let a bot edit an ephemeral message");
    const key = messageKey(ref);
    const refused = this.refusedEdit(key);
    if (refused) throw refused;
    const files = filesOf(message);
    if (files.length === 0 && isPassing(message)) {
      this.passing.offer(key, renderMessage(message), (rendered, signal) =>
        this.update(ref, rendered, { priority: "passing", signal }),
      );
      return;
    }
    // What the message shows now is final for a while: no progress may land after it.
    await this.passing.settle(key);
    if (files.length === 0) return this.update(ref, renderMessage(message));
    const pending = await this.notUploaded(ref, files);
    // Slack's answer on the files first: a workspace that refuses them refuses before the
    // message says they are on their way.
    const tickets = await this.tickets(ref, pending);
    try {
      // The card says the files are on their way (unless Slack holds chat.update: the files go
      // first then). That update also finds a message deleted before the upload, whose result
      // the core then posts anew.
      if (pending.length > 0 && !this.uploading.has(key) && !this.calls.held(teamOf(ref), "chat.update")) {
        await this.update(ref, renderMessage(message, { filesInThread: "uploading" }));
        if (this.uploading.size >= NOTES_KEPT) this.uploading.clear();
        this.uploading.add(key);
      }
      await this.showWithFiles(ref, message, files, {}, tickets);
      this.uploading.delete(key);
    } finally {
      await discard(tickets);
    }
  }

  /** Upload tickets for `files`, in order; none is kept when one is refused. */
  private async tickets(
    where: ConversationRef | MessageRef,
    files: readonly OutgoingFile[],
  ): Promise<Map<string, Ticket>> {
    const tickets = new Map<string, Ticket>();
    try {
      for (const file of files) tickets.set(file.name, await ticketFor(this.slackOf(where), file));
    } catch (error) {
      await discard(tickets);
      throw error;
    }
    return tickets;
  }

  private refusedEdit(key: string): Error | undefined {
    const known = this.refused.get(key);
    if (known && Date.now() - known.at < REFUSAL_KEPT_MS) return known.error;
    if (known) this.refused.delete(key);
    return undefined;
  }

  /**
   * Uploads the files not yet in the message's thread (with their tickets, when asked for first),
   * waits until Slack has processed the images it shows, then shows the card that points there. A
   * channel that refuses files (the bot could not join it) gets the card with their links
   * instead; a file the workspace refuses for good is the caller's to show otherwise
   * (FileRefusedError).
   */
  private async showWithFiles(
    ref: MessageRef,
    message: Message,
    files: readonly OutgoingFile[],
    options: RenderOptions = {},
    tickets: ReadonlyMap<string, Ticket> = new Map(),
  ): Promise<void> {
    let fileIds: Record<string, string> | undefined;
    try {
      fileIds = await this.upload(ref, files, tickets);
    } catch (error) {
      if (!(error instanceof UndeliverableError)) throw error;
    }
    if (!fileIds) return this.update(ref, renderMessage(message, options));
    const shown = await this.processed(ref, fileIds, shownInline(message));
    const rendered = renderMessage(message, { ...options, filesInThread: "uploaded", fileIds: shown });
    await this.update(ref, rendered).catch(async (error: unknown) => {
      // An image Slack would not show after all: the thread has it; the message says so.
      if (codeOf(error) !== "invalid_blocks" || Object.keys(shown).length === 0) throw error;
      await this.update(ref, renderMessage(message, { ...options, filesInThread: "uploaded", fileIds: {} }));
    });
  }

  /**
   * The uploaded files that Slack has finished processing (files.info gives them a mimetype), of
   * those the message shows inline, waited for within `fileReadyMs`; the others are left out, so
   * that the message names none Slack would refuse (invalid_blocks). Files only in the thread
   * need no wait.
   */
  private async processed(
    ref: MessageRef,
    fileIds: Record<string, string>,
    inline: ReadonlySet<string>,
  ): Promise<Record<string, string>> {
    const shown: Record<string, string> = {};
    let waiting = Object.entries(fileIds).filter(([name, id]) => {
      if (!inline.has(name)) shown[name] = id;
      return inline.has(name);
    });
    const deadline = Date.now() + this.policy.fileReadyMs;
    for (let pause = this.policy.fileReadyPollMs; waiting.length > 0; pause *= 2) {
      const ready = await Promise.all(
        waiting.map(([, id]) =>
          this.call(ref, "files.info", (c) => c.files.info({ file: id })).then(
            (answer) => Boolean(answer.file?.mimetype),
            (error: unknown) => {
              // Slack's trouble: asked again. A refusal: the file is not shown inline.
              if (error instanceof UndeliverableError || error instanceof MessageGoneError) return undefined;
              return false;
            },
          ),
        ),
      );
      waiting = waiting.filter(([name, id], i) => {
        if (ready[i] === true) shown[name] = id;
        return ready[i] === false;
      });
      if (waiting.length === 0 || Date.now() + pause > deadline) break;
      await sleep(pause);
    }
    return shown;
  }

  private async update(
    ref: MessageRef,
    { text, blocks }: Rendered,
    options: CallOptions = {},
  ): Promise<void> {
    const key = messageKey(ref);
    const refused = this.refusedEdit(key);
    if (refused) throw refused;
    await this.call(
      ref,
      "chat.update",
      (c) => c.chat.update({ channel: ref.channelId, ts: ref.messageId, text, blocks }),
      options,
    ).catch((error: unknown) => {
      if (error instanceof UndeliverableError || error instanceof MessageGoneError) {
        if (this.refused.size >= NOTES_KEPT) this.refused.clear();
        this.refused.set(key, { error, at: Date.now() });
      }
      throw error;
    });
  }

  private async postPublic(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
  ): Promise<MessageRef> {
    const files = filesOf(message);
    // Slack's answer on the files before anything is posted: refused, the message is sent
    // without them (the core's FileRefusedError rule), and no message says they are coming.
    const tickets = await this.tickets(target, files);
    try {
      return await this.postWithTickets(target, message, options, tickets);
    } finally {
      await discard(tickets);
    }
  }

  private async postWithTickets(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
    tickets: ReadonlyMap<string, Ticket>,
  ): Promise<MessageRef> {
    const files = filesOf(message);
    const mention = options.mentionUserId && { mentionUserId: options.mentionUserId };
    const { text, blocks } = renderMessage(message, {
      ...(files.length > 0 && { filesInThread: "uploading" }),
      ...mention,
    });
    const keyed = options.idempotencyKey ?? options.findKey;
    const key = keyed && postKey(target, keyed);
    const team = teamOf(target);
    let postedNow = false;
    const post = async (): Promise<MessageRef> => {
      const answer = await this.call(
        target,
        "chat.postMessage",
        (c) =>
          c.chat.postMessage({
            channel: target.channelId,
            text,
            blocks,
            ...(target.threadId && { thread_ts: target.threadId }),
            ...(key && { metadata: { event_type: POST_EVENT, event_payload: { key } } }),
          }),
        { channel: target.channelId },
      );
      if (!answer.ts) throw new Error("chat.postMessage answered without a ts");
      postedNow = true;
      return {
        platform: "slack",
        channelId: answer.channel ?? target.channelId,
        messageId: answer.ts,
        ...(team && { data: { team } }),
      };
    };
    // Only the message is keyed: a repeat after a failed upload completes the same message.
    const ref = key
      ? await this.ledger.once(key, post, (since) => this.findPost(target, key, since), leftNothing)
      : await post();
    // A repeat of a post whose files never arrived (refused, or cut by a crash) shows what it says now.
    const repeatOfPending = key && !postedNow && (await this.ledger.has(pendingKey(key)));
    if (files.length === 0) {
      if (repeatOfPending) {
        await this.update(ref, renderMessage(message, { ...mention }));
        await this.ledger.forget(pendingKey(key));
      }
      return ref;
    }
    if (key && !repeatOfPending) await this.ledger.note(pendingKey(key));
    try {
      await this.showWithFiles(ref, message, files, { ...mention }, tickets);
    } catch (error) {
      // Deleted while its file travelled: that was the result's message, and whoever deleted
      // it does not want another one.
      if (error instanceof MessageGoneError) return ref;
      // Refused once the message was up (a restriction set meanwhile): a one-off answer (a
      // chart, a Show) is completed here, since sending it again would post it twice; a keyed
      // post is sent again by the core without its files, and lands on this same message.
      if (!(error instanceof FileRefusedError) || key) throw error;
      await this.update(ref, renderMessage(withoutFiles(message, error.said), { ...mention }));
      return ref;
    }
    if (key) await this.ledger.forget(pendingKey(key));
    return ref;
  }

  /** The keyed post Slack took before a crash kept the ledger from recording it. */
  private async findPost(
    target: ConversationRef,
    key: string,
    since: number,
  ): Promise<MessageRef | undefined> {
    const team = teamOf(target);
    const where = { channelId: target.channelId, ...(target.threadId && { threadTs: target.threadId }) };
    return this.lookBack(target, where, since, (m) =>
      m.ts && keyOf(m) === key
        ? { platform: "slack", channelId: target.channelId, messageId: m.ts, ...(team && { data: { team } }) }
        : undefined,
    );
  }

  private lookBack<T>(
    ref: ConversationRef | MessageRef,
    where: Where,
    since: number,
    pick: (message: Seen) => T | undefined,
  ): Promise<T | undefined> {
    return lookBack(
      (method, call) => this.call(ref, method, call),
      this.workspaces.distributed,
      where,
      since,
      pick,
    );
  }

  /**
   * Files cannot be threaded under an ephemeral message: such cards show their links only. In a
   * channel the bot is not a member of, only the gesture's response_url can still answer.
   */
  private async postEphemeral(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
  ): Promise<MessageRef> {
    const user = target.data?.user;
    const responseUrl = target.live?.responseUrl;
    if (typeof user !== "string") throw new Error("an ephemeral Slack message needs the conversation's user");
    const rendered = renderMessage(message, {
      ...(options.mentionUserId && { mentionUserId: options.mentionUserId }),
    });
    const team = teamOf(target);
    const ref = (messageId: string): MessageRef => ({
      platform: "slack",
      channelId: target.channelId,
      messageId,
      data: { ephemeral: true, ...(team && { team }) },
    });
    try {
      const answer = await this.call(target, "chat.postEphemeral", (c) =>
        c.chat.postEphemeral({
          channel: target.channelId,
          user,
          ...rendered,
          ...(target.threadId && { thread_ts: target.threadId }),
        }),
      );
      return ref(answer.message_ts ?? "");
    } catch (error) {
      if (!NOT_A_MEMBER_CODES.has(codeOf(error) ?? "") || typeof responseUrl !== "string") throw error;
      await respond(responseUrl, rendered);
      return ref("");
    }
  }

  /** Adds `ids` to the files noted as in the message's thread. */
  private async noteThreadFiles(ref: MessageRef, ids: readonly string[]): Promise<void> {
    const noted = await this.ledger.read(threadFilesKey(ref));
    const known = Array.isArray(noted) ? noted.filter((id): id is string => typeof id === "string") : [];
    const all = [...new Set([...known, ...ids])];
    if (all.length > known.length) await this.ledger.keep(threadFilesKey(ref), all);
  }

  /** The files that have not reached this message's thread yet (a delivery repeated after a restart). */
  private async notUploaded(ref: MessageRef, files: readonly OutgoingFile[]): Promise<OutgoingFile[]> {
    const done = await Promise.all(files.map((file) => this.ledger.has(uploadKey(ref, file))));
    return files.filter((_, i) => !done[i]);
  }

  /**
   * Each file once per message, also when the same result is delivered again after a restart;
   * resolves with Slack's file ids by name. The thread is read back only when an earlier try may
   * have landed unrecorded (a crash, an answer lost), never after Slack refused the upload.
   */
  private async upload(
    ref: MessageRef,
    files: readonly OutgoingFile[],
    tickets: ReadonlyMap<string, Ticket>,
  ): Promise<Record<string, string>> {
    const ids: Record<string, string> = {};
    for (const file of files) {
      ids[file.name] = await this.ledger.once(
        uploadKey(ref, file),
        async () => {
          await this.join(ref);
          const ticket = tickets.get(file.name) ?? (await ticketFor(this.slackOf(ref), file));
          return sendFile(this.slackOf(ref), ticket, { channelId: ref.channelId, threadTs: ref.messageId });
        },
        // Shared before a crash kept the ledger from recording it: the thread shows it.
        (since) =>
          this.lookBack(
            ref,
            { channelId: ref.channelId, threadTs: ref.messageId },
            since,
            (m) => m.files?.find((f) => f.name === file.name)?.id,
          ),
        leftNothing,
      );
    }
    await this.noteThreadFiles(ref, Object.values(ids));
    return ids;
  }

  /**
   * chat:write.public posts in any public channel, but Slack shares a file only where the bot is a
   * member. The command was given there, so the bot joins before its first upload. Private
   * channels and DMs refuse the join (the bot is in them already, or needs an invite), and so
   * does an app installed before it asked for channels:join: each is tried once per process.
   */
  private async join(ref: MessageRef): Promise<void> {
    const channelId = ref.channelId;
    if (this.joined.has(channelId)) return;
    try {
      await this.call(ref, "conversations.join", (c) => c.conversations.join({ channel: channelId }));
    } catch (error) {
      // Slack could not be reached: try again with the next upload.
      if (codeOf(error) === undefined) throw error;
    }
    this.joined.add(channelId);
  }
}
