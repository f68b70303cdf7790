import type { WebClient } from "@slack/web-api";
import { request } from "undici";
import { type Card, card, isCard } from "../core/cards.js";
import { MessageGoneError, StepEndedError, UndeliverableError } from "../core/errors.js";
import type {
  Actor,
  ChatAdapter,
  ConversationRef,
  Message,
  MessageRef,
  OutgoingFile,
  PostOptions,
  StepOutcome,
} from "../core/ports.js";
import { slackErrorCode } from "./error-code.js";
import { REMOVED_FROM_WORKSPACE } from "./installations.js";
import type { Ledger } from "./ledger.js";
import { SLACK_LIMITS } from "./limits.js";
import { lookBack, type Seen } from "./look-back.js";
import { type Rendered, type RenderOptions, renderMessage } from "./render/card.js";
import { homeView } from "./render/home.js";
import { executionOf, functionTokenOf, stepMessage } from "./step-refs.js";
import { uploadFile } from "./upload.js";
import type { Workspaces } from "./workspaces.js";

/**
 * The core's chat port on the Slack Web API, with the token of the conversation's workspace
 * (`data.team`, see workspaces.ts): chat.postMessage and
 * chat.postEphemeral to post, chat.update to edit (response_urls expire after 30 minutes, jobs
 * do not), and the files of a card uploaded into the thread of the message that shows it.
 *
 * Ephemeral messages go to the person in `ConversationRef.data.user`, which the adapter sets on
 * every conversation it hands to the core, together with the gesture's `responseUrl` (in `live`,
 * since it is a credential of 30 minutes) when it has one.
 */

const NOT_A_MEMBER =
  "The bot is not a member of this channel, so it cannot post here. Invite it: type /invite and pick the bot.";

// invalid_channel: files.completeUploadExternal's answer for a channel it cannot share into.
const NOT_A_MEMBER_CODES = new Set(["not_in_channel", "channel_not_found", "invalid_channel"]);

/**
 * Slack's answers that waiting will not fix, as the core's chat errors: the job engine stops
 * retrying a delivery the channel refuses, and posts anew what a deleted message was to show.
 */
const REFUSALS: Record<string, string> = {
  ...Object.fromEntries([...NOT_A_MEMBER_CODES].map((code) => [code, NOT_A_MEMBER])),
  is_archived: "This channel is archived. Unarchive it so that the bot can post in it.",
  account_inactive: REMOVED_FROM_WORKSPACE,
  token_revoked: REMOVED_FROM_WORKSPACE,
  invalid_auth: REMOVED_FROM_WORKSPACE,
};

/** Answers that mean the workspace's token is dead: the next call looks its installation up again. */
const DEAD_TOKEN = new Set(["account_inactive", "token_revoked", "invalid_auth"]);

/** The core's error for a refusal, or `error` itself (an outage, a rate limit: worth retrying). */
function refusalOf(error: unknown): unknown {
  const code = slackErrorCode(error) ?? "";
  if (code === "message_not_found") return new MessageGoneError({ cause: error });
  const reason = REFUSALS[code];
  return reason ? new UndeliverableError(reason, { message: `Slack ${code}`, cause: error }) : error;
}

/** The metadata event type of keyed posts: the key in its payload finds a post again after a crash. */
const POST_EVENT = "media_bot_post";
const keyOf = (message: Seen) =>
  message.metadata?.event_type === POST_EVENT
    ? (message.metadata.event_payload as { key?: unknown } | undefined)?.key
    : undefined;

const postKey = (target: ConversationRef, idempotencyKey: string) =>
  `post:${target.channelId}:${idempotencyKey}`;

/** The workspace a conversation or message is in, as the adapter recorded it. */
function teamOf(ref: ConversationRef | MessageRef): string | undefined {
  const team = ref.data?.team;
  return typeof team === "string" ? team : undefined;
}

/**
 * Slack's answers to functions.complete* that mean the execution is over for good: completed or
 * stopped (execution_not_in_running_state), or the function's token dead (it lives while the
 * execution runs, 15 minutes at most).
 */
const STEP_ENDED = new Set(["execution_not_in_running_state", "invalid_auth", "token_expired", "not_authed"]);
/**
 * Any other refusal (outputs Slack would not take) will not change with waiting: the engine gives
 * up after a few tries, as with a channel that refuses posts. No answer at all is worth a retry.
 */
const stepEnded = (error: unknown): unknown => {
  const code = slackErrorCode(error);
  if (code === undefined) return error;
  return STEP_ENDED.has(code)
    ? new StepEndedError({ message: `Slack ${code}`, cause: error })
    : new UndeliverableError("Slack refused to complete the workflow step.", {
        message: `Slack ${code}`,
        cause: error,
      });
};

const uploadKey = (ref: MessageRef, file: OutgoingFile) =>
  `upload:${ref.channelId}:${ref.messageId}:${file.name}`;

function filesOf(message: Message): OutgoingFile[] {
  return isCard(message) ? message.media.flatMap((m) => (m.file ? [m.file] : [])) : [];
}

/**
 * An answer through a response_url (valid 30 minutes, five times): a new ephemeral message, or the
 * clicked message replaced.
 */
async function respond(
  url: string,
  rendered: { text: string; blocks: unknown[] },
  how: "ephemeral" | "replace" = "ephemeral",
): Promise<void> {
  const answer = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      ...(how === "replace" ? { replace_original: true } : { response_type: "ephemeral" }),
      ...rendered,
    }),
  });
  const body = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`response_url refused the answer: HTTP ${answer.statusCode} ${body.slice(0, 200)}`);
}

export class SlackAdapter implements ChatAdapter {
  readonly platform = "slack" as const;
  private readonly joined = new Set<string>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly ledger: Ledger,
    /** Who people, groups and channels are (names.ts), and who is in which group (actors.ts). */
    directory?: Required<Pick<ChatAdapter, "names" | "rolesOf">>,
  ) {
    if (directory) {
      this.names = directory.names;
      this.rolesOf = directory.rolesOf;
    }
  }

  readonly names?: ChatAdapter["names"];
  readonly rolesOf?: ChatAdapter["rolesOf"];

  /** The workspace's client, and what to make of its errors: a refusal, and a dead token forgotten. */
  private async clientOf(ref: ConversationRef | MessageRef) {
    const team = teamOf(ref);
    const client = await this.workspaces.client(team);
    const refused = (error: unknown): unknown => {
      if (team && DEAD_TOKEN.has(slackErrorCode(error) ?? "")) this.workspaces.forget(team);
      return refusalOf(error);
    };
    return { client, refused };
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

  /** The person's App Home tab, replaced as a whole (views.publish). */
  async publishHome(person: Pick<Actor, "tenantId" | "userId">, cards: readonly Card[]): Promise<void> {
    const { client, refused } = await this.clientOf(this.channel(person.tenantId, person.userId));
    try {
      await client.views.publish({ user_id: person.userId, view: homeView(cards) });
    } catch (error) {
      throw refused(error);
    }
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
    const { client } = await this.clientOf(target);
    const complete = async () => {
      if (!outcome.ok) {
        await client.functions.completeError({
          token,
          function_execution_id: execution,
          error: outcome.reason,
        });
        return true;
      }
      const outputs = {
        job_id: outcome.jobId,
        ...(outcome.mediaId && { media_id: outcome.mediaId }),
        ...(outcome.url && { url: outcome.url }),
        ...(await this.stepFile(client, execution, outcome.file)),
      };
      await client.functions
        .completeSuccess({ token, function_execution_id: execution, outputs })
        .catch(async (error: unknown) => {
          const code = slackErrorCode(error);
          if (code === undefined || STEP_ENDED.has(code)) throw error;
          // Outputs Slack will not take: the workflow hears that the step ended, and why, instead
          // of waiting on it until Slack gives up.
          await client.functions.completeError({
            token,
            function_execution_id: execution,
            error: `Slack did not take this step's outputs (${code}). The job ${outcome.jobId} finished: /media jobs shows its result.`,
          });
        });
      return true;
    };
    await this.ledger.once(
      `step:${execution}`,
      () => complete().catch((error: unknown) => Promise.reject(stepEnded(error))),
      () =>
        complete().catch((error: unknown) => {
          if (slackErrorCode(error) === "execution_not_in_running_state") return true;
          throw stepEnded(error);
        }),
    );
  }

  /**
   * A step's result as a Slack file shared nowhere (the workflow's next steps share it), uploaded
   * once per execution. A file Slack refuses leaves the output out; the link stays.
   */
  private async stepFile(
    client: WebClient,
    execution: string,
    file: OutgoingFile | undefined,
  ): Promise<{ file?: string }> {
    if (!file) return {};
    try {
      return {
        file: await this.ledger.once(`upload:step:${execution}:${file.name}`, () =>
          uploadFile(client, file, undefined),
        ),
      };
    } catch (error) {
      if (slackErrorCode(error) === undefined) throw error;
      return {};
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
      const pointer = card("Working on it privately", "info", {
        lines: ["Only you see this job: its message, and then its result, are in your DM with the bot."],
        links: [{ label: "Open the DM", url: this.messageUrl(ref, teamOf(target) ?? "") }],
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
    const { client, refused } = await this.clientOf(target);
    const opened = await client.conversations.open({ users: user }).catch((error: unknown) => {
      throw refused(error);
    });
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
    const files = filesOf(message);
    if (files.length === 0) return this.update(ref, renderMessage(message));
    if ((await this.notUploaded(ref, files)).length > 0) {
      // Before the files, the card says they are on their way. That update also finds a message
      // deleted before the upload, whose result the core then posts anew.
      await this.update(ref, renderMessage(message, { filesInThread: "uploading" }));
    }
    await this.showWithFiles(ref, message, files);
  }

  /**
   * Uploads the files not yet in the message's thread, then shows the card that points there. A
   * channel that refuses files (the bot could not join it) gets the card with their links instead.
   */
  private async showWithFiles(
    ref: MessageRef,
    message: Message,
    files: readonly OutgoingFile[],
    options: RenderOptions = {},
  ): Promise<void> {
    const fileIds = await this.upload(ref, files).catch((error: unknown) => {
      if (error instanceof UndeliverableError) return undefined;
      throw error;
    });
    await this.update(
      ref,
      renderMessage(message, { ...options, ...(fileIds && { filesInThread: "uploaded", fileIds }) }),
    );
  }

  private async update(ref: MessageRef, { text, blocks }: Rendered): Promise<void> {
    const { client, refused } = await this.clientOf(ref);
    await client.chat
      .update({ channel: ref.channelId, ts: ref.messageId, text, blocks })
      .catch((error: unknown) => {
        throw refused(error);
      });
  }

  private async postPublic(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
  ): Promise<MessageRef> {
    const files = filesOf(message);
    const mention = options.mentionUserId && { mentionUserId: options.mentionUserId };
    const { text, blocks } = renderMessage(message, {
      ...(files.length > 0 && { filesInThread: "uploading" }),
      ...mention,
    });
    const key = options.idempotencyKey && postKey(target, options.idempotencyKey);
    const team = teamOf(target);
    const post = async (): Promise<MessageRef> => {
      const { client, refused } = await this.clientOf(target);
      const answer = await client.chat
        .postMessage({
          channel: target.channelId,
          text,
          blocks,
          ...(target.threadId && { thread_ts: target.threadId }),
          ...(key && { metadata: { event_type: POST_EVENT, event_payload: { key } } }),
        })
        .catch((error: unknown) => {
          throw refused(error);
        });
      if (!answer.ts) throw new Error("chat.postMessage answered without a ts");
      return {
        platform: "slack",
        channelId: answer.channel ?? target.channelId,
        messageId: answer.ts,
        ...(team && { data: { team } }),
      };
    };
    // Only the message is keyed: a repeat after a failed upload completes the same message.
    const ref = key
      ? await this.ledger.once(key, post, (since) => this.findPost(target, key, since))
      : await post();
    if (files.length > 0) {
      await this.showWithFiles(ref, message, files, { ...mention }).catch((error: unknown) => {
        // Deleted while its file travelled: that was the result's message, and whoever deleted
        // it does not want another one.
        if (!(error instanceof MessageGoneError)) throw error;
      });
    }
    return ref;
  }

  /** The keyed post Slack took before a crash kept the ledger from recording it. */
  private async findPost(
    target: ConversationRef,
    key: string,
    since: number,
  ): Promise<MessageRef | undefined> {
    const { client } = await this.clientOf(target);
    const team = teamOf(target);
    const where = { channelId: target.channelId, ...(target.threadId && { threadTs: target.threadId }) };
    return lookBack(client, where, since, (m) =>
      m.ts && keyOf(m) === key
        ? { platform: "slack", channelId: target.channelId, messageId: m.ts, ...(team && { data: { team } }) }
        : undefined,
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
    const { client, refused } = await this.clientOf(target);
    try {
      const answer = await client.chat.postEphemeral({
        channel: target.channelId,
        user,
        ...rendered,
        ...(target.threadId && { thread_ts: target.threadId }),
      });
      return ref(answer.message_ts ?? "");
    } catch (error) {
      if (!NOT_A_MEMBER_CODES.has(slackErrorCode(error) ?? "") || typeof responseUrl !== "string")
        throw refused(error);
      await respond(responseUrl, rendered);
      return ref("");
    }
  }

  /** The files that have not reached this message's thread yet (a delivery repeated after a restart). */
  private async notUploaded(ref: MessageRef, files: readonly OutgoingFile[]): Promise<OutgoingFile[]> {
    const done = await Promise.all(files.map((file) => this.ledger.has(uploadKey(ref, file))));
    return files.filter((_, i) => !done[i]);
  }

  /**
   * Each file once per message, also when the same result is delivered again after a restart;
   * resolves with Slack's file ids by name.
   */
  private async upload(ref: MessageRef, files: readonly OutgoingFile[]): Promise<Record<string, string>> {
    const ids: Record<string, string> = {};
    for (const file of files) {
      ids[file.name] = await this.ledger.once(
        uploadKey(ref, file),
        async () => {
          const { client, refused } = await this.clientOf(ref);
          await this.join(client, ref.channelId);
          return uploadFile(client, file, { channelId: ref.channelId, threadTs: ref.messageId }).catch(
            (error: unknown) => {
              throw refused(error);
            },
          );
        },
        // Shared before a crash kept the ledger from recording it: the thread shows it.
        async (since) =>
          lookBack(
            (await this.clientOf(ref)).client,
            { channelId: ref.channelId, threadTs: ref.messageId },
            since,
            (m) => m.files?.find((f) => f.name === file.name)?.id,
          ),
      );
    }
    return ids;
  }

  /**
   * chat:write.public posts in any public channel, but Slack shares a file only where the bot is a
   * member. The command was given there, so the bot joins before its first upload. Private
   * channels and DMs refuse the join (the bot is in them already, or needs an invite), and so
   * does an app installed before it asked for channels:join: each is tried once per process.
   */
  private async join(client: WebClient, channelId: string): Promise<void> {
    if (this.joined.has(channelId)) return;
    try {
      await client.conversations.join({ channel: channelId });
    } catch (error) {
      // Slack could not be reached: try again with the next upload.
      if (slackErrorCode(error) === undefined) throw error;
    }
    this.joined.add(channelId);
  }
}
