import type { Readable } from "node:stream";
import type { RawFile } from "discord.js";
import { request } from "undici";
import type { Attachment } from "../core/ports.js";
import type { RenderedMessage } from "./render/message.js";

/** What discord.js resolves an attachment option (or a modal's file) to. */
export interface DiscordFile {
  name: string;
  contentType: string | null;
  size: number;
  url: string;
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
    async open(): Promise<Readable> {
      const answer = await request(file.url);
      if (answer.statusCode !== 200) {
        answer.body.destroy();
        throw new Error(`Discord's CDN answered HTTP ${answer.statusCode} for the attachment "${file.name}"`);
      }
      return answer.body;
    },
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
        stream.destroy();
        throw new Error(`"${name}" is larger than the ${limit} bytes Discord accepts here`);
      }
      chunks.push(chunk as Buffer);
    }
    files.push({ key: `files[${index}]`, name, data: Buffer.concat(chunks), contentType: file.contentType });
  }
  return files;
}
