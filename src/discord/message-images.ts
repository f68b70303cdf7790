import type { Message } from "discord.js";
import { request } from "undici";
import type { Attachment } from "../core/base/ports.js";
import { abandon } from "../core/base/streams.js";
import { effectiveType } from "../core/commands/files.js";
import { msg } from "../core/i18n/msg.js";
import { decodeControlId } from "./custom-id.js";
import { type DiscordFile, DiscordFileError, userAttachment } from "./files.js";

/**
 * The image of a message a message command (Apps > "Edit image") was used on: its first image
 * attachment, else the first image its embeds show. Embed images are taken from Discord's media
 * proxy only (`proxy_url`), never from the address the embed names, which anyone may choose.
 */
export interface MessageImage {
  /** `size` is unknown for an embed's image until it is asked for. */
  file: Omit<DiscordFile, "size"> & { size?: number };
  /** The job whose result the message shows, when the bot posted it (its controls name the job). */
  jobId?: string;
}

const isImage = (name: string, contentType: string | null | undefined) =>
  effectiveType(name, contentType ?? undefined).startsWith("image/");

function nameOf(url: string): string {
  const last = URL.canParse(url) ? new URL(url).pathname.split("/").pop() : undefined;
  return last ? decodeURIComponent(last) : "image";
}

/** The job named by the controls of one of the bot's own messages. */
function jobOf(message: Message, botUserId: string): string | undefined {
  if (message.author.id !== botUserId) return undefined;
  for (const row of message.components) {
    for (const component of "components" in row ? row.components : []) {
      const control = "customId" in component && component.customId && decodeControlId(component.customId);
      if (control) return control.jobId;
    }
  }
  return undefined;
}

export function imageOf(message: Message, botUserId: string): MessageImage | undefined {
  const jobId = jobOf(message, botUserId);
  const withJob = jobId === undefined ? {} : { jobId };
  const attached = message.attachments.find((a) => isImage(a.name, a.contentType));
  if (attached) {
    return {
      file: {
        name: attached.name,
        contentType: attached.contentType,
        size: attached.size,
        url: attached.url,
      },
      ...withJob,
    };
  }
  for (const embed of message.embeds) {
    const proxied = embed.image?.proxyURL ?? embed.thumbnail?.proxyURL;
    if (proxied) {
      const name = nameOf(embed.image?.url ?? proxied);
      return { file: { name, contentType: null, url: proxied }, ...withJob };
    }
  }
  return undefined;
}

/** Longest wait for Discord's media proxy to say what an embed's image is. */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * The image as an attachment for the core. An embed's image says neither its size nor its type,
 * which the service's upload declares first: one request reads them from the answer's headers.
 */
export async function imageAttachment(image: MessageImage): Promise<Attachment> {
  const { file } = image;
  if (file.size !== undefined) return userAttachment({ ...file, size: file.size });
  let size: number;
  let contentType: string;
  try {
    const answer = await request(file.url, { headersTimeout: PROBE_TIMEOUT_MS });
    abandon(answer.body);
    size = Number(answer.headers["content-length"]);
    contentType = String(answer.headers["content-type"] ?? "");
    if (answer.statusCode !== 200 || !Number.isInteger(size) || size <= 0)
      throw new Error(`HTTP ${answer.statusCode}`);
  } catch (error) {
    throw new DiscordFileError(msg("platform.discord.message_image"), {
      message: `Discord's media proxy: ${(error as Error).message}`,
      cause: error,
    });
  }
  return userAttachment({ ...file, size, contentType });
}
