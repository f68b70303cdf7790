import type { MediaApi } from "../api/client.js";
import type { CallOptions } from "../api/http.js";
import type { JobResult } from "../api/job-status.js";
import { NotFoundError } from "../base/errors.js";

/**
 * Tenants that share the operator's MEDIA_API_KEY share one account: its lists hold every
 * tenant's videos, mockups, thumbnails and photo avatars. Such a tenant sees the account through
 * `scopedTo`: only what it made through the bot (ids kept per tenant when its jobs start and are
 * delivered), plus the stock avatars everyone may use. Lists, pickers (autocomplete, and the
 * check of a typed id) and `video get` all read through it.
 */

type Owned = () => Promise<ReadonlySet<string>>;

/** List items whose shape the spec leaves open name their record by one of these. */
const ID_FIELDS = ["id", "jobId", "mediaId", "videoId"] as const;

function ownedItem(ids: ReadonlySet<string>, item: Record<string, unknown>): boolean {
  return ID_FIELDS.some((field) => {
    const value = item[field];
    return typeof value === "string" && ids.has(value);
  });
}

function only<T extends Record<string, unknown>>(owned: Owned, list: (opts?: CallOptions) => Promise<T[]>) {
  return async (opts?: CallOptions): Promise<T[]> => {
    const [items, ids] = await Promise.all([list(opts), owned()]);
    return items.filter((item) => ownedItem(ids, item));
  };
}

export function scopedTo(api: MediaApi, owned: Owned): MediaApi {
  const mustOwn = async (id: string) => {
    if (!(await owned()).has(id)) throw new NotFoundError();
  };
  return {
    ...api,
    avatars: {
      list: async (opts) => {
        const [avatars, ids] = await Promise.all([api.avatars.list(opts), owned()]);
        return avatars.filter((avatar) => !avatar.isPhoto || ids.has(avatar.id));
      },
    },
    videos: {
      ...api.videos,
      list: only(owned, api.videos.list),
      get: async (id, opts) => {
        await mustOwn(id);
        return api.videos.get(id, opts);
      },
      download: async (id, opts) => {
        await mustOwn(id);
        return api.videos.download(id, opts);
      },
    },
    mockups: {
      ...api.mockups,
      list: only(owned, api.mockups.list),
      listAssets: only(owned, api.mockups.listAssets),
      listVideos: only(owned, api.mockups.listVideos),
    },
    thumbnails: {
      ...api.thumbnails,
      // Filtered within the service's page: a page may show fewer than its size.
      list: async (input, opts) => {
        const [page, ids] = await Promise.all([api.thumbnails.list(input, opts), owned()]);
        return { ...page, thumbnails: page.thumbnails.filter((item) => ownedItem(ids, item)) };
      },
    },
  };
}

/** The ids a job's result names, kept for its tenant when the result is delivered. */
export function idsOf(result: JobResult): string[] {
  switch (result.kind) {
    case "video":
      return [result.videoId];
    case "image":
      return [result.imageId, result.mediaId];
    case "photo_avatar":
      return result.avatarIds;
    case "photo_avatar_variants":
      return [];
    case "mockup":
      return result.mediaId ? [result.mediaId] : [];
    case "thumbnail":
      return ID_FIELDS.flatMap((field) => {
        const value = result.details[field];
        return typeof value === "string" ? [value] : [];
      });
  }
}
