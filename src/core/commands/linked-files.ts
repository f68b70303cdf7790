import { Readable } from "node:stream";
import type { MediaApi } from "../api/client.js";
import { RefusedFetchError } from "../api/fetch-policy.js";
import { boundedBytes } from "../base/bounded.js";
import { ServiceError, TimeoutError } from "../base/errors.js";
import type { Attachment } from "../base/ports.js";
import { InputError } from "../base/refusals.js";
import { abandon } from "../base/streams.js";
import { msg } from "../i18n/msg.js";
import { clip } from "../render/text.js";
import { AUDIO_MAX_BYTES } from "./files.js";

/**
 * Files given as web addresses instead of attached (a workflow step's Image URL: another step's
 * URL output, or any public link). They are read through the media client's guarded fetch, so a
 * link can reach the service's own host and public addresses, never the bot's own network.
 */

/** No file option takes more; a link's body without a length is read at most this far. */
const LARGEST_FILE = AUDIO_MAX_BYTES;

/**
 * The longest one reading of a link may take, body included: a host that trickles bytes must not
 * hold the person's work (and a share of everyone's) for hours.
 */
export const LINK_READ_MS = 60_000;

/** The link's last part, decoded ("red%20fox.png" -> "red fox.png"; an encoded "/" splits it too). */
function nameOf(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).at(-1);
  if (!last) return url.hostname;
  try {
    return decodeURIComponent(last).split("/").filter(Boolean).at(-1) ?? url.hostname;
  } catch {
    return last;
  }
}

/** Why the address gave no file, for a person who can fix the link (the catalogue's words). */
type Unread =
  | { why: "timeout" | "address" | "silent" }
  | { why: "status"; status: number }
  | { why: "partial"; seconds: number };

function unreadable(link: string, unread: Unread, cause: unknown): InputError {
  const said = msg("refusal.input.link_unreadable", {
    status: 0,
    seconds: 0,
    ...unread,
    link: clip(link, 120),
  });
  return new InputError("input.link_unreadable", said, {
    message: `link not read: ${JSON.stringify(unread)}`,
    cause,
  });
}

function whyUnread(error: unknown): Unread {
  if (error instanceof TimeoutError) return { why: "timeout" };
  if (error instanceof ServiceError && error.status !== undefined)
    return { why: "status", status: error.status };
  return { why: "silent" };
}

/**
 * The file behind `link`, read once and held (at most the largest file any option takes), so
 * its size is known before anything reaches the service and the service gets what was checked.
 */
async function linkedFile(media: MediaApi, link: string, readMs: number): Promise<Attachment> {
  let url: URL;
  try {
    url = new URL(link);
  } catch (error) {
    throw unreadable(link, { why: "address" }, error);
  }
  let answer: Awaited<ReturnType<MediaApi["media"]["fetchGiven"]>>;
  try {
    answer = await media.media.fetchGiven(url.href, { signal: AbortSignal.timeout(readMs) });
  } catch (error) {
    if (error instanceof RefusedFetchError) {
      throw new InputError(
        "input.link_refused",
        msg("refusal.input.link_refused", { host: clip(url.host, 80) }),
        { message: error.message, cause: error },
      );
    }
    throw unreadable(link, whyUnread(error), error);
  }
  const tooBig = new InputError(
    "input.file_size",
    msg("refusal.input.link_too_big", { link: clip(link, 120), size: { bytes: LARGEST_FILE } }),
  );
  if (answer.size !== undefined && answer.size > LARGEST_FILE) {
    abandon(answer.body);
    throw tooBig;
  }
  const bytes = await boundedBytes(answer.body, LARGEST_FILE, () => tooBig).catch((error: unknown) => {
    throw error === tooBig ? tooBig : unreadable(link, { why: "partial", seconds: readMs / 1000 }, error);
  });
  return {
    name: nameOf(url),
    contentType: answer.contentType.split(";")[0]!.trim(),
    size: bytes.length,
    open: async () => Readable.from([bytes]),
  };
}

/** The attached files of each option followed by the files behind its links, for the command's file checks. */
export async function withLinkedFiles(
  media: MediaApi,
  attachments: Record<string, Attachment[]>,
  links: Record<string, readonly string[]> | undefined,
  readMs = LINK_READ_MS,
): Promise<Record<string, Attachment[]>> {
  const all = { ...attachments };
  for (const [option, urls] of Object.entries(links ?? {})) {
    const linked = await Promise.all(urls.map((url) => linkedFile(media, url, readMs)));
    all[option] = [...(all[option] ?? []), ...linked];
  }
  return all;
}
