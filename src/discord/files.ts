import type { Readable } from "node:stream";
import type { RawFile } from "discord.js";
import { type Dispatcher, request } from "undici";
import { BotError, FileRefusedError } from "../core/base/errors.js";
import type { Attachment } from "../core/base/ports.js";
import { abandon } from "../core/base/streams.js";
import { type Msg, msg } from "../core/i18n/msg.js";
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
    throw new DiscordFileError(msg("platform.discord.file_silent", { file: file.name }), {
      message: `Discord's CDN: ${(error as Error).message}`,
      cause: error,
    });
  }
  if (answer.statusCode !== 200) {
    // Read (a short error page) rather than destroyed: a body closed unread reports an abort.
    await answer.body.dump().catch(() => undefined);
    throw new DiscordFileError(
      msg("platform.discord.file_expired", { file: file.name, status: answer.statusCode }),
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

/** Who uploads where, and what Discord takes from it per file there. */
export interface Uploader {
  bytes: number;
  /** Where: through the person's command (its token), in a direct message, or in a server. */
  where: "command" | "dm" | "server";
  /** Set where the bot may attach nothing at all (its permissions there): why. */
  refused?: Msg;
}

function tooBig(name: string, bytes: number | undefined, uploader: Uploader): FileRefusedError {
  return new FileRefusedError(
    msg("platform.discord.upload_limit", {
      limit: { bytes: uploader.bytes },
      where: uploader.where,
      file: name,
      known: bytes === undefined ? "no" : "yes",
      size: bytes === undefined ? "" : { bytes },
    }),
    {
      message: `"${name}" (${bytes ?? "unknown"} bytes) over the ${uploader.bytes} bytes Discord takes (${uploader.where})`,
    },
  );
}

/**
 * The files of a rendered message, read for the upload (discord.js sends uploads from memory). A
 * file over what Discord takes from this uploader is refused before a request is made (by its
 * declared size, or as soon as reading passes the limit, so it cannot fill the memory either).
 */
export async function filesOf(rendered: RenderedMessage, uploader: Uploader): Promise<RawFile[]> {
  if (uploader.refused && rendered.files.length > 0) throw new FileRefusedError(uploader.refused);
  const files: RawFile[] = [];
  for (const [index, { name, file }] of rendered.files.entries()) {
    if (file.size !== undefined && file.size > uploader.bytes) throw tooBig(name, file.size, uploader);
    const chunks: Buffer[] = [];
    let size = 0;
    const stream = await file.open();
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > uploader.bytes) {
        abandon(stream);
        throw tooBig(name, file.size, uploader);
      }
      chunks.push(chunk as Buffer);
    }
    files.push({ key: `files[${index}]`, name, data: Buffer.concat(chunks), contentType: file.contentType });
  }
  return files;
}
