import { effectiveType } from "../core/commands/files.js";
import { decodeActionId } from "./render/action-id.js";

/**
 * The image of a message a message shortcut ("Edit image") was used on: its first image file, else
 * the first uploaded file an image block shows (a result of the bot shows its image that way,
 * `slack_file`). Images by public URL are not taken: the bot token never goes outside Slack.
 */
export interface SlackMessageImage {
  fileId: string;
  /** The job whose result the message shows, when the bot posted it (its controls name the job). */
  jobId?: string;
}

/** What a message_action payload says of the message. */
export interface ShortcutMessage {
  [field: string]: unknown;
  bot_id?: string;
  files?: { id?: string; name?: string; mimetype?: string }[];
  blocks?: unknown[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;

function blockImage(blocks: unknown[]): string | undefined {
  for (const block of blocks) {
    if (!isObject(block) || block.type !== "image" || !isObject(block.slack_file)) continue;
    if (typeof block.slack_file.id === "string") return block.slack_file.id;
  }
  return undefined;
}

/** The job named by the controls of one of the bot's own messages. */
function jobOf(blocks: unknown[]): string | undefined {
  const ids = JSON.stringify(blocks).matchAll(/"action_id":"([^"]+)"/g);
  for (const [, id] of ids) {
    const key = decodeActionId(id!);
    if (key) return key.jobId;
  }
  return undefined;
}

export function imageOf(message: ShortcutMessage, botId: string | undefined): SlackMessageImage | undefined {
  const blocks = message.blocks ?? [];
  const file = (message.files ?? []).find(
    (f) => f.id && effectiveType(f.name ?? "", f.mimetype).startsWith("image/"),
  );
  const fileId = file?.id ?? blockImage(blocks);
  if (!fileId) return undefined;
  const jobId = botId !== undefined && message.bot_id === botId ? jobOf(blocks) : undefined;
  return { fileId, ...(jobId && { jobId }) };
}
