import type { WebClient } from "@slack/web-api";
import { request } from "undici";
import { isCard } from "../core/cards.js";
import { BotError } from "../core/errors.js";
import type {
  ChatAdapter,
  ConversationRef,
  Message,
  MessageRef,
  OutgoingFile,
  PostOptions,
} from "../core/ports.js";
import type { Ledger } from "./ledger.js";
import { SLACK_LIMITS } from "./limits.js";
import { renderMessage } from "./render/card.js";
import { uploadFile } from "./upload.js";

/**
 * The core's chat port on the Slack Web API with the bot token: chat.postMessage and
 * chat.postEphemeral to post, chat.update to edit (response_urls expire after 30 minutes, jobs
 * do not), and the files of a card uploaded into the thread of the message that shows it.
 *
 * Ephemeral messages go to the person in `ConversationRef.data.user`, which the adapter sets on
 * every conversation it hands to the core, together with the gesture's `responseUrl` when it has one.
 */

/** Slack's answers when the bot is not a member of a (private) channel. */
const NOT_A_MEMBER = new Set(["not_in_channel", "channel_not_found"]);

function notAMember(error: unknown): boolean {
  return NOT_A_MEMBER.has(String((error as { data?: { error?: unknown } }).data?.error));
}

export class NotInChannelError extends BotError {
  readonly code = "access.slack_channel";
  constructor() {
    super(
      "The bot is not a member of this channel, so it cannot post here. Invite it: type /invite and pick the bot.",
    );
  }
}

function filesOf(message: Message): OutgoingFile[] {
  return isCard(message) ? message.media.flatMap((m) => (m.file ? [m.file] : [])) : [];
}

/** An ephemeral answer through a response_url (valid 30 minutes, five times). */
async function respond(url: string, rendered: { text: string; blocks: unknown[] }): Promise<void> {
  const answer = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ response_type: "ephemeral", ...rendered }),
  });
  const body = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`response_url refused the answer: HTTP ${answer.statusCode} ${body.slice(0, 200)}`);
}

export class SlackAdapter implements ChatAdapter {
  readonly platform = "slack" as const;

  constructor(
    private readonly client: WebClient,
    private readonly ledger: Ledger,
  ) {}

  uploadLimit(_target: ConversationRef): number {
    return SLACK_LIMITS.uploadBytes;
  }

  post(target: ConversationRef, message: Message, options: PostOptions = {}): Promise<MessageRef> {
    const send = () =>
      options.ephemeral
        ? this.postEphemeral(target, message, options)
        : this.postPublic(target, message, options);
    return options.idempotencyKey
      ? this.ledger.once(`post:${target.channelId}:${options.idempotencyKey}`, send)
      : send();
  }

  async edit(ref: MessageRef, message: Message): Promise<void> {
    if (ref.data?.ephemeral) throw new Error("Slack does not let a bot edit an ephemeral message");
    const files = filesOf(message);
    // Files first: when the message says "done", its result is already in the thread.
    await this.upload(ref, files);
    const { text, blocks } = renderMessage(message, { filesInThread: files.length > 0 });
    await this.client.chat.update({ channel: ref.channelId, ts: ref.messageId, text, blocks });
  }

  private async postPublic(
    target: ConversationRef,
    message: Message,
    options: PostOptions,
  ): Promise<MessageRef> {
    const files = filesOf(message);
    const { text, blocks } = renderMessage(message, {
      filesInThread: files.length > 0,
      ...(options.mentionUserId && { mentionUserId: options.mentionUserId }),
    });
    const answer = await this.client.chat
      .postMessage({
        channel: target.channelId,
        text,
        blocks,
        ...(target.threadId && { thread_ts: target.threadId }),
      })
      .catch((error: unknown) => {
        throw notAMember(error) ? new NotInChannelError() : error;
      });
    if (!answer.ts) throw new Error("chat.postMessage answered without a ts");
    const ref: MessageRef = {
      platform: "slack",
      channelId: answer.channel ?? target.channelId,
      messageId: answer.ts,
    };
    await this.upload(ref, files);
    return ref;
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
    const { user, responseUrl } = target.data ?? {};
    if (typeof user !== "string") throw new Error("an ephemeral Slack message needs the conversation's user");
    const rendered = renderMessage(message, {
      ...(options.mentionUserId && { mentionUserId: options.mentionUserId }),
    });
    const ref = (messageId: string): MessageRef => ({
      platform: "slack",
      channelId: target.channelId,
      messageId,
      data: { ephemeral: true },
    });
    try {
      const answer = await this.client.chat.postEphemeral({
        channel: target.channelId,
        user,
        ...rendered,
        ...(target.threadId && { thread_ts: target.threadId }),
      });
      return ref(answer.message_ts ?? "");
    } catch (error) {
      if (!notAMember(error) || typeof responseUrl !== "string") throw error;
      await respond(responseUrl, rendered);
      return ref("");
    }
  }

  /** Each file once per message, also when the same result is delivered again after a restart. */
  private async upload(ref: MessageRef, files: readonly OutgoingFile[]): Promise<void> {
    for (const file of files) {
      await this.ledger.once(`upload:${ref.channelId}:${ref.messageId}:${file.name}`, () =>
        uploadFile(this.client, file, { channelId: ref.channelId, threadTs: ref.messageId }),
      );
    }
  }
}
