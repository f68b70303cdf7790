import type { AnyBlock } from "@slack/types";
import { watched } from "../../watch.js";
import { messageBlockErrors } from "../blocks.js";
import type { Message } from "../state.js";
import {
  type Args,
  type Failure,
  fail,
  INVALID_JSON,
  isFailure,
  jsonArg,
  knownChannel,
  type Method,
  memberChannel,
  str,
} from "./args.js";

/** chat.postMessage answers msg_too_long past 40,000 characters of text. */
const MAX_TEXT = 40_000;

export interface Content {
  text?: string;
  blocks?: AnyBlock[];
}

/**
 * The text and blocks of a message as Slack validates them; shared with response_url posts. With
 * `fileShowable`, image blocks may name only Slack files that exist and finished processing.
 */
export function readContent(args: Args, fileShowable?: (id: string) => boolean): Content | Failure {
  const text = str(args, "text");
  const blocks = jsonArg(args, "blocks");
  watched.shown("slack", "message", { text, blocks });
  if (text !== undefined && text.length > MAX_TEXT) {
    watched.refused("slack", "message", ["msg_too_long"]);
    return fail("msg_too_long");
  }
  if (blocks === undefined) return { text };
  if (blocks === INVALID_JSON || !Array.isArray(blocks)) return fail("invalid_blocks_format");
  const errors = messageBlockErrors(blocks, fileShowable);
  watched.refused("slack", "message", errors);
  if (errors.length > 0) {
    return fail("invalid_blocks", {
      errors,
      response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
    });
  }
  return { text, blocks };
}

/** A new message needs something to show: text, blocks or attachments. */
function newContent(args: Args, fileShowable: (id: string) => boolean): Required<Content> | Failure {
  const content = readContent(args, fileShowable);
  if (isFailure(content)) return content;
  const empty = !content.text && !content.blocks?.length && args.attachments === undefined;
  return empty ? fail("no_text") : { text: content.text ?? "", blocks: content.blocks ?? [] };
}

/** A message as the Web API shows it: metadata only to those who ask for it (include_all_metadata). */
export function shown(message: Message, withMetadata = false) {
  const { channel: _channel, metadata, ...rest } = message;
  return withMetadata && metadata ? { ...rest, metadata } : rest;
}

/** chat.postMessage's `metadata`: an event_type and an event_payload object, or invalid_metadata_format. */
function readMetadata(args: Args): Message["metadata"] | Failure | undefined {
  const metadata = jsonArg(args, "metadata");
  if (metadata === undefined) return undefined;
  const { event_type, event_payload } = (metadata ?? {}) as Record<string, unknown>;
  if (typeof event_type !== "string" || typeof event_payload !== "object" || event_payload === null)
    return fail("invalid_metadata_format");
  return { event_type, event_payload: event_payload as Record<string, unknown> };
}

export const chatMethods: Record<string, Method> = {
  "chat.postMessage": {
    token: "bot",
    run(ctx) {
      const { state, args } = ctx;
      const channel = knownChannel(ctx);
      if (isFailure(channel)) return channel;
      const content = newContent(args, (id) => state.fileShowable(id));
      if (isFailure(content)) return content;
      const metadata = readMetadata(args);
      if (isFailure(metadata)) return metadata;
      const message = state.postMessage(channel, {
        ...content,
        thread_ts: str(args, "thread_ts"),
        ...(metadata && { metadata }),
      });
      return { ok: true, channel, ts: message.ts, message: shown(message) };
    },
  },
  "chat.update": {
    token: "bot",
    run(ctx) {
      const { state, args, team } = ctx;
      const channel = knownChannel(ctx);
      if (isFailure(channel)) return channel;
      const message = state.findMessage(channel, str(args, "ts") ?? "");
      if (!message) return fail("message_not_found");
      if (message.user !== team.botUserId) return fail("cant_update_message");
      const content = readContent(args, (id) => state.fileShowable(id));
      if (isFailure(content)) return content;
      // Slack keeps what the update leaves out: blocks stay unless `blocks` is given (an empty array clears them).
      message.text = content.text ?? message.text;
      message.blocks = content.blocks ?? message.blocks;
      message.edited = { user: team.botUserId, ts: state.nextTs() };
      return { ok: true, channel, ts: message.ts, text: message.text, message: shown(message) };
    },
  },
  /**
   * The bot deletes its own messages (a bot token cannot delete anyone else's: cant_delete_message);
   * ephemeral ones are not messages of the channel (message_not_found). A thread parent whose
   * replies stay becomes a tombstone, as Slack shows it.
   */
  "chat.delete": {
    token: "bot",
    run(ctx) {
      const { state, args, team } = ctx;
      const channel = knownChannel(ctx);
      if (isFailure(channel)) return channel;
      const ts = str(args, "ts") ?? "";
      const message = state.findMessage(channel, ts);
      if (!message || message.subtype === "tombstone") return fail("message_not_found");
      if (message.user !== team.botUserId) return fail("cant_delete_message");
      state.deleteMessage(message);
      return { ok: true, channel, ts };
    },
  },
  "chat.postEphemeral": {
    token: "bot",
    run(ctx) {
      const { state, args, team } = ctx;
      const channel = memberChannel(ctx);
      if (isFailure(channel)) return channel;
      const user = state.users.get(str(args, "user") ?? "");
      if (!user || user.is_bot || user.team_id !== team.id) return fail("user_not_in_channel");
      const content = newContent(args, (id) => state.fileShowable(id));
      if (isFailure(content)) return content;
      const thread_ts = str(args, "thread_ts");
      const message = state.postEphemeral({
        channel,
        user: user.id,
        ...content,
        ...(thread_ts ? { thread_ts } : {}),
      });
      return { ok: true, message_ts: message.message_ts };
    },
  },
};
