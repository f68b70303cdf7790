import type { JobRecord } from "../../store/jobs.js";
import type { MediaApi } from "../api/client.js";
import type { JobResult, NormalizedStatus } from "../api/job-status.js";
import type { Item } from "../api/schemas.js";
import { type Card, type CardAction, card } from "../base/cards.js";
import type { Json } from "../base/ports.js";
import { recipeFor } from "../commands/made-with.js";
import { translatorFor } from "../i18n/translator.js";
import { fileOrLink, publicUrl, videoMedia } from "../media/files.js";
import { photoAvatarCard, resultCard, viewOf } from "../render/job.js";

const tOfJob = (job: JobRecord) => translatorFor(viewOf(job).locale);

/**
 * What a finished job yields, fetched from where the service keeps it (image info, the video
 * record, the mockup lists, thumbnail details) and shaped as the card that replaces the job's
 * progress. `stored` is the small JSON kept as the job's result.
 */

export interface Resolved {
  card: Card;
  stored: Json;
}

/** The first string field of an item whose shape the spec leaves open. */
function field(item: Item | undefined, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = item?.[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

/** The list item a job produced: the spec names no fields, so the job id, then the media id. */
function itemOf(items: Item[], serviceJobId: string, mediaId: string | undefined): Item | undefined {
  return (
    items.find((item) => item.jobId === serviceJobId) ??
    (mediaId === undefined ? undefined : items.find((item) => item.mediaId === mediaId))
  );
}

/** Where the bytes are: the item's own link, the status's, else the media's key-authenticated view. */
function sourceOf(
  item: Item | undefined,
  fallback: { url?: string | undefined; mediaId?: string | undefined },
  ...urlKeys: string[]
): string {
  const url =
    field(item, ...urlKeys) ??
    fallback.url ??
    (fallback.mediaId && `/api/media/${encodeURIComponent(fallback.mediaId)}/view`);
  if (!url) throw new Error("the finished job names no file to fetch");
  return url;
}

interface ResolveArgs {
  media: MediaApi;
  job: JobRecord;
  status: NormalizedStatus;
  uploadLimit: number;
  /** The follow-ups a delivered job offers (the job as it is once delivered). */
  controls(job: JobRecord): CardAction[];
}

/** The job as delivery leaves it: done, with `stored` as its result. */
function delivered(job: JobRecord, stored: Json): JobRecord {
  return { ...job, state: "done", result: stored };
}

export async function resolveResult(args: ResolveArgs): Promise<Resolved> {
  const { job, status } = args;
  const result = status.result;
  if (!result) throw new Error(`job ${job.id} is done without a result`);
  return RESOLVERS[result.kind](args, result as never);
}

type Resolver<K extends JobResult["kind"]> = (
  args: ResolveArgs,
  result: Extract<JobResult, { kind: K }>,
) => Promise<Resolved>;

const RESOLVERS: { [K in JobResult["kind"]]: Resolver<K> } = {
  async video({ media, job, uploadLimit, controls }, { videoId }) {
    const { media: file } = await videoMedia(media, videoId, uploadLimit);
    const stored = { videoId, url: file.url ?? null, attached: Boolean(file.file) };
    return {
      card: resultCard(viewOf(job), file, {
        fields: [{ name: tOfJob(job).text("job.result.video_id"), value: videoId, inline: true }],
        recipe: recipeFor(job),
        actions: controls(delivered(job, stored)),
      }),
      stored,
    };
  },

  async image({ media, job, uploadLimit, controls }, image) {
    const file = await fileOrLink(
      "image",
      image.name,
      () => media.media.download(image.downloadUrl),
      image.downloadUrl,
      uploadLimit,
    );
    const stored = { imageId: image.imageId, mediaId: image.mediaId, url: image.downloadUrl };
    return {
      card: resultCard(viewOf(job), file, {
        recipe: recipeFor(job),
        actions: controls(delivered(job, stored)),
      }),
      stored,
    };
  },

  async photo_avatar({ job, controls }, { avatarIds }) {
    const stored = { avatarIds };
    return {
      card: { ...photoAvatarCard(viewOf(job), avatarIds), actions: controls(delivered(job, stored)) },
      stored,
    };
  },

  // Variants wait for a choice and are never an outcome the engine delivers; this covers a service
  // that ends the job there anyway.
  async photo_avatar_variants({ job }) {
    return {
      card: card(viewOf(job).title, "warning", { lines: [tOfJob(job).text("job.variants_expired")] }),
      stored: null,
    };
  },

  async mockup({ media, job, uploadLimit, controls }, { imageUrl, mediaId }) {
    const view = viewOf(job);
    if (job.command === "mockup.video") {
      const item = itemOf(await media.mockups.listVideos(), job.serviceJobId, mediaId);
      const source = sourceOf(item, { mediaId }, "videoUrl", "downloadUrl", "url");
      const file = await fileOrLink(
        "video",
        view.title,
        () => media.media.download(source),
        source,
        uploadLimit,
      );
      return {
        card: resultCard(view, file, { recipe: recipeFor(job) }),
        stored: { url: publicUrl(source) ?? null, mediaId: mediaId ?? null },
      };
    }
    // An asset job's image is in the asset list; a generated mockup's came with the answer.
    const item =
      job.command === "mockup.generate"
        ? undefined
        : itemOf(await media.mockups.listAssets(), job.serviceJobId, mediaId);
    const url = sourceOf(item, { url: imageUrl, mediaId }, "imageUrl", "downloadUrl", "url");
    const file = await fileOrLink("image", view.title, () => media.media.download(url), url, uploadLimit);
    const mockupId = (job.inputs as { mockupId?: unknown } | null)?.mockupId;
    const stored = { mediaId: mediaId ?? null, url: publicUrl(url) ?? null };
    return {
      card: resultCard(view, file, {
        fields:
          typeof mockupId === "string"
            ? [{ name: tOfJob(job).text("job.result.mockup_id"), value: mockupId, inline: true }]
            : [],
        recipe: recipeFor(job),
        actions: controls(delivered(job, stored)),
      }),
      stored,
    };
  },

  async thumbnail({ media, job, uploadLimit, controls }, { details }) {
    // The details' shape is not specified: the record itself, or the thumbnail nested in it.
    const nested = details.thumbnail;
    const record = typeof nested === "object" && nested !== null ? (nested as Item) : details;
    const mediaId = field(record, "mediaId");
    const source = sourceOf(record, { mediaId }, "imageUrl", "downloadUrl", "url");
    const file = await fileOrLink(
      "image",
      viewOf(job).title,
      () => media.media.download(source),
      source,
      uploadLimit,
    );
    const stored = { mediaId: mediaId ?? null, url: publicUrl(source) ?? null };
    return {
      card: resultCard(viewOf(job), file, {
        recipe: recipeFor(job),
        actions: controls(delivered(job, stored)),
      }),
      stored,
    };
  },
};
