import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { WebClient } from "@slack/web-api";
import { Agent, request } from "undici";
import { CodedError } from "../common/coded-error.js";
import { bounded } from "../core/base/bounded.js";
import { FileRefusedError } from "../core/base/errors.js";
import type { OutgoingFile } from "../core/base/ports.js";
import { msg } from "../core/i18n/msg.js";
import { SLACK_LIMITS } from "./limits.js";

/**
 * Slack's external upload, streamed end to end: files.getUploadURLExternal (which wants the
 * length first, and answers a workspace's upload restrictions) -> POST the bytes to upload_url ->
 * files.completeUploadExternal into a thread. The WebClient's filesUploadV2 does the same steps
 * but reads the whole file into memory first.
 */

/** A Web API call of the workspace, as the adapter makes them (paced and judged: calls.ts). */
export type SlackCall = <T>(method: string, call: (client: WebClient) => Promise<T>) => Promise<T>;

/** Slack's upload_url did not take the bytes: nothing was shared, and a new upload may work. */
export class UploadTransferError extends CodedError {
  readonly code = "slack.upload_transfer";
}

export interface UploadTarget {
  channelId: string;
  /** The message whose thread gets the file. */
  threadTs: string;
}

/** A big video takes a while to send before Slack answers at all. */
const uploads = new Agent({ headersTimeout: 10 * 60_000, bodyTimeout: 10 * 60_000 });

interface Measured {
  size: number;
  open(): Promise<Readable>;
  discard(): Promise<void>;
}

/**
 * Slack needs the length up front: a file of unknown size is spooled to disk, never to memory,
 * and no more of it than Slack would take (SLACK_LIMITS.uploadBytes).
 */
async function measured(file: OutgoingFile, limit: number): Promise<Measured> {
  if (file.size !== undefined) return { size: file.size, open: () => file.open(), discard: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), "slack-upload-"));
  const discard = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, "file");
    const tooBig = () =>
      new FileRefusedError(msg("platform.slack.upload_too_big", { size: { bytes: limit } }), {
        message: `${file.name} is over Slack's upload limit of ${limit} bytes`,
      });
    await pipeline(bounded(await file.open(), limit, tooBig), createWriteStream(path));
    const { size } = await stat(path);
    return { size, open: async () => createReadStream(path), discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

/**
 * A file Slack agreed to take (files.getUploadURLExternal answered with an upload URL), ready to
 * send. Asked for before anything shows the file: a workspace whose admins restrict uploads
 * refuses it here (FileRefusedError), before a message says it is on its way.
 */
export interface Ticket {
  file: OutgoingFile;
  fileId: string;
  uploadUrl: string;
  size: number;
  open(): Promise<Readable>;
  /** Drops what was spooled to measure the file; a ticket never sent is dropped by Slack. */
  discard(): Promise<void>;
}

export async function ticketFor(
  slack: SlackCall,
  file: OutgoingFile,
  limit: number = SLACK_LIMITS.uploadBytes,
): Promise<Ticket> {
  const source = await measured(file, limit);
  try {
    const answer = await slack("files.getUploadURLExternal", (client) =>
      client.files.getUploadURLExternal({ filename: file.name, length: source.size }),
    );
    if (!answer.upload_url || !answer.file_id)
      throw new UploadTransferError("files.getUploadURLExternal gave no upload_url");
    return { file, fileId: answer.file_id, uploadUrl: answer.upload_url, ...source };
  } catch (error) {
    await source.discard();
    throw error;
  }
}

/**
 * Sends a ticket's bytes and shares the file into the thread of a message, or without a target
 * nowhere (a workflow step's output, which the workflow's next steps share); resolves with
 * Slack's file id. The ticket is used up either way.
 */
export async function sendFile(
  slack: SlackCall,
  ticket: Ticket,
  target: UploadTarget | undefined,
): Promise<string> {
  const { file } = ticket;
  try {
    const sent = await request(ticket.uploadUrl, {
      method: "POST",
      dispatcher: uploads,
      headers: { "content-type": file.contentType, "content-length": String(ticket.size) },
      body: await ticket.open(),
    }).catch((error: unknown) => {
      throw new UploadTransferError(`the upload of ${file.name} did not reach Slack`, { cause: error });
    });
    const answer = await sent.body.text();
    if (sent.statusCode !== 200) {
      throw new UploadTransferError(
        `Slack refused the upload of ${file.name}: HTTP ${sent.statusCode} ${answer.slice(0, 200)}`,
      );
    }
    const files: [{ id: string; title: string }] = [{ id: ticket.fileId, title: file.name }];
    await slack("files.completeUploadExternal", (client) =>
      client.files.completeUploadExternal(
        target ? { files, channel_id: target.channelId, thread_ts: target.threadTs } : { files },
      ),
    );
    return ticket.fileId;
  } finally {
    await ticket.discard();
  }
}

/** Both steps at once: `file` uploaded into a thread, or shared nowhere; resolves with Slack's file id. */
export async function uploadFile(
  slack: SlackCall,
  file: OutgoingFile,
  target: UploadTarget | undefined,
  limit: number = SLACK_LIMITS.uploadBytes,
): Promise<string> {
  return sendFile(slack, await ticketFor(slack, file, limit), target);
}
