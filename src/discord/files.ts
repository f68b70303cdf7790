import type { Readable } from "node:stream";
import type { RawFile } from "discord.js";
import { type Dispatcher, request } from "undici";
import { BotError } from "../core/errors.js";
import type { Attachment } from "../core/ports.js";
import { abandon } from "../core/streams.js";
import type { RenderedMessage } from "./render/message.js";

/** What discord.js resolves an attachment option (or a modal's file) to. */
export interface DiscordFile {
  name: string;
  contentType: string | null;
  size: number;
  url: string;
}

/** An attachment Discord would not hand over: the user can attach it again. */
export class DiscordFileError extends BotError {
  readonly code = "upload.discord_file";
}

/** Longest silence of Discord's CDN before the attachment counts as lost. */
const CDN_TIMEOUT_MS = 30_000;

async function download(file: DiscordFile): Promise<Readable> {
  let answer: Dispatcher.ResponseData;
  try {
    answer = await request(file.url, { headersTimeout: CDN_TIMEOUT_MS, bodyTimeout: CDN_TIMEOUT_MS });
  } catch (error) {
    throw new DiscordFileError(
      `Discord did not hand over the attachment "${file.name}" (its file server did not answer). Try again in a minute.`,
      { message: `Discord's CDN: ${(error as Error).message}`, cause: error },
    );
  }
  if (answer.statusCode !== 200) {
    // Read (a short error page) rather than destroyed: a body closed unread reports an abort.
    await answer.body.dump().catch(() => undefined);
    throw new DiscordFileError(
      `Discord did not hand over the attachment "${file.name}" (HTTP ${answer.statusCode}): its link may have expired. Attach it again and retry.`,
    );
  }
  return answer.body;
}

/**
 * A file a user attached, for the core: opened only when the core uploads it to the service,
 * streamed from Discord's CDN (its URLs are signed, no token needed).
 */
export function userAttachment(file: DiscordFile): Attachment {
  return {
    name: file.name,
    contentType: file.contentType ?? "",
    size: file.size,
    open: () => download(file),
  };
}

/**
 * The files of a rendered message, read for the upload (discord.js sends uploads from memory).
 * Reading stops past `limit`, so a result whose size was unknown cannot fill the memory.
 */
export async function filesOf(rendered: RenderedMessage, limit: number): Promise<RawFile[]> {
  const files: RawFile[] = [];
  for (const [index, { name, file }] of rendered.files.entries()) {
    const chunks: Buffer[] = [];
    let size = 0;
    const stream = await file.open();
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        abandon(stream);
        throw new Error(`"${name}" is larger than the ${limit} bytes Discord accepts here`);
      }
      chunks.push(chunk as Buffer);
    }
    files.push({ key: `files[${index}]`, name, data: Buffer.concat(chunks), contentType: file.contentType });
  }
  return files;
}
