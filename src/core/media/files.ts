import { Readable } from "node:stream";
import type { MediaApi } from "../api/client.js";
import { checkResultType, RESULT_FILES, resultStream } from "../api/fetch-policy.js";
import type { Download } from "../api/http.js";
import type { ResultKind } from "../base/cards.js";
import { abandon } from "../base/streams.js";
import type { ResultMediaView } from "../render/job.js";

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "video/mp4": "mp4",
};

/**
 * "My fox" + image/png -> "My fox.png", keeping names safe for every platform's file list: "a
 * test." gives "a test.mp4", not "a test..mp4" (and Windows drops a name's final dots anyway).
 */
export function fileName(name: string, contentType: string): string {
  const base =
    name
      // Letters and digits of every script: a Japanese prompt names its file, not "_".
      .replace(/[^\p{L}\p{M}\p{N}_ .()-]+/gu, "_")
      .slice(0, 80)
      .replace(/[\s.]+$/, "")
      .trim() || "result";
  const extension = EXTENSIONS[contentType.split(";")[0]!.trim()];
  return extension && !base.toLowerCase().endsWith(`.${extension}`) ? `${base}.${extension}` : base;
}

/** Only absolute web addresses make sense as links in chat; service-relative paths need the API key. */
export function publicUrl(url: string | undefined): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/**
 * The bytes of a result kept as they go to the first upload, so that another one in the same
 * delivery (the person's DM, after the channel refused the bot) reads nothing more from the
 * service. A bigger file is fetched again in that rare case rather than held in memory.
 */
const REPLAY_BYTES = 25 * 1024 * 1024;
/** How long a fetched result waits for its upload before it is closed unread (a card sent without it). */
const HOLD_MS = 30_000;

/**
 * The file's `open()`: the first one hands out the answer already fetched (its headers told the
 * size and type), the later ones replay what the first one read, or fetch again when it was big.
 */
function opener(answer: Download, max: number, fetch: () => Promise<Download>): () => Promise<Readable> {
  let held: Readable | undefined = answer.body;
  // An answer left waiting may time out: that is news for whoever reads it, not for the process.
  held.on("error", () => {});
  const unread = setTimeout(() => {
    abandon(held);
    held = undefined;
  }, HOLD_MS);
  unread.unref();
  let kept: Buffer[] | undefined;
  return async () => {
    if (kept) return Readable.from(kept, { objectMode: false });
    clearTimeout(unread);
    const body = held ?? (await fetch()).body;
    held = undefined;
    const source = resultStream(body, max);
    return Readable.from(
      (async function* () {
        // A file known to be big is never held; one of unknown size only until it proves big.
        let chunks: Buffer[] | undefined =
          answer.size !== undefined && answer.size > REPLAY_BYTES ? undefined : [];
        let size = 0;
        for await (const chunk of source as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (chunks && size > REPLAY_BYTES) chunks = undefined;
          chunks?.push(chunk);
          yield chunk;
        }
        if (chunks) kept = chunks;
      })(),
      { objectMode: false },
    );
  };
}

/**
 * Fetches the result once: its headers tell the size and type, and its body becomes the file the
 * adapter uploads (streamed). A size over the conversation's limit, or an unknown size with a link
 * to fall back on, leaves the file out, its body closed unread.
 */
export async function fileOrLink(
  kind: ResultKind,
  name: string,
  fetch: () => Promise<Download>,
  url: string | undefined,
  platformLimit: number,
): Promise<ResultMediaView> {
  const answer = await fetch();
  const limit = Math.min(platformLimit, RESULT_FILES[kind].maxBytes);
  const link = publicUrl(url);
  const base = { kind, name, alt: name, ...(link && { url: link }) };
  const oversize = answer.size !== undefined && answer.size > limit;
  if (oversize || (answer.size === undefined && link)) {
    abandon(answer.body);
    checkResultType(kind, answer.contentType);
    return oversize ? { ...base, oversize: { bytes: answer.size!, limit } } : base;
  }
  try {
    checkResultType(kind, answer.contentType);
  } catch (error) {
    abandon(answer.body);
    throw error;
  }
  return {
    ...base,
    file: {
      name: fileName(name, answer.contentType),
      contentType: answer.contentType.split(";")[0]!.trim(),
      ...(answer.size !== undefined && { size: answer.size }),
      open: opener(answer, answer.size ?? limit, fetch),
    },
  };
}

/** The video record's link and its MP4 (streamed), or the link alone when the file is too big. */
export async function videoMedia(media: MediaApi, videoId: string, limit: number) {
  const meta = await media.videos.get(videoId);
  const name = meta.name ?? videoId;
  return {
    meta,
    media: await fileOrLink("video", name, () => media.videos.download(videoId), meta.downloadUrl, limit),
  };
}
