import type { MediaApi } from "./api/client.js";
import { checkResultType, RESULT_FILES, resultStream } from "./api/fetch-policy.js";
import type { Download } from "./api/http.js";
import type { ResultKind } from "./cards.js";
import type { ResultMediaView } from "./render/job.js";
import { abandon } from "./streams.js";

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
      .replace(/[^\w .()-]+/g, "_")
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
 * Reads the answer's headers to learn the size, then
 * describes a file that downloads again, streamed, when the adapter uploads it. A size over the
 * conversation's limit, or an unknown size with a link to fall back on, leaves the file out.
 */
export async function fileOrLink(
  kind: ResultKind,
  name: string,
  fetch: () => Promise<Download>,
  url: string | undefined,
  platformLimit: number,
): Promise<ResultMediaView> {
  const probe = await fetch();
  abandon(probe.body);
  checkResultType(kind, probe.contentType);
  const limit = Math.min(platformLimit, RESULT_FILES[kind].maxBytes);
  const link = publicUrl(url);
  const base = { kind, name, alt: name, ...(link && { url: link }) };
  if (probe.size !== undefined && probe.size > limit) {
    return { ...base, oversize: { bytes: probe.size, limit } };
  }
  if (probe.size === undefined && link) return base;
  return {
    ...base,
    file: {
      name: fileName(name, probe.contentType),
      contentType: probe.contentType.split(";")[0]!.trim(),
      ...(probe.size !== undefined && { size: probe.size }),
      open: async () => resultStream((await fetch()).body, probe.size ?? limit),
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
