import type { Readable } from "node:stream";
import type { WebClient } from "@slack/web-api";
import { Agent, interceptors, request } from "undici";
import { BotError } from "../core/base/errors.js";
import type { Attachment } from "../core/base/ports.js";
import { msg } from "../core/i18n/msg.js";
import { mayCarryToken } from "./file-hosts.js";

/**
 * Files people attach in a form. Slack serves `url_private_download` only with the bot token;
 * without it (or without the files:read scope) it answers 200 with its sign-in page, which must
 * never reach the media service as if it were the image.
 */

export class SlackFileError extends BotError {
  readonly code = "upload.slack_file";
}

/** Slack may redirect a download to its file servers. */
const downloads = new Agent().compose(interceptors.redirect({ maxRedirections: 3 }));

async function download(url: string, token: string, name: string): Promise<Readable> {
  const response = await request(url, {
    dispatcher: downloads,
    headers: { authorization: `Bearer ${token}` },
  });
  const type = String(response.headers["content-type"] ?? "");
  if (response.statusCode !== 200 || type.startsWith("text/html")) {
    await response.body.dump();
    throw new SlackFileError(
      type.startsWith("text/html")
        ? `Slack sent a sign-in page instead of "${name}": the bot may not read files in this workspace. An admin must reinstall the app with the files:read scope, then try again.`
        : `Slack did not hand over "${name}" (HTTP ${response.statusCode}). Attach it again.`,
    );
  }
  return response.body;
}

/** The files given by id (a form's file inputs, a workflow step's), by option. */
export async function userFilesByOption(
  client: WebClient,
  ids: Record<string, string[]>,
): Promise<Record<string, Attachment[]>> {
  const entries = Object.entries(ids).map(
    async ([option, files]) => [option, await Promise.all(files.map((id) => userFile(client, id)))] as const,
  );
  return Object.fromEntries(await Promise.all(entries));
}

/** A file given in a form: its details from files.info, its bytes streamed when the core opens it. */
export async function userFile(client: WebClient, fileId: string): Promise<Attachment> {
  const { file } = await client.files.info({ file: fileId });
  const url = file?.url_private_download ?? file?.url_private;
  if (!file || !url || !client.token) {
    throw new SlackFileError(msg("platform.slack.file_unplaced"));
  }
  if (!mayCarryToken(url, client.slackApiUrl)) {
    throw new SlackFileError(msg("platform.slack.file_untrusted"));
  }
  const name = file.name ?? file.title ?? fileId;
  const token = client.token;
  return {
    name,
    contentType: file.mimetype ?? "",
    size: file.size ?? 0,
    open: () => download(url, token, name),
  };
}
