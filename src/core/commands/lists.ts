import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import type { Item } from "../api/schemas.js";
import type { ResultKind } from "../base/cards.js";
import {
  type ListEntry,
  type ListName,
  listCard,
  type Paging,
  pageOf,
  SEARCH_BYTES,
} from "../render/lists.js";
import { clip, day } from "../render/text.js";
import { defineCommand, type Outcome } from "./define.js";
import { page, text } from "./options.js";

/** The read-only commands: the paged lists of what the account holds. */

// The search rides in the page buttons (see pageValue): bounded so that it always fits them.
const search = text(SEARCH_BYTES, "Show only entries whose name contains this").refine(
  (s) => Buffer.byteLength(s, "utf8") <= SEARCH_BYTES,
  `Too long: at most ${SEARCH_BYTES} letters, fewer with accents or emoji`,
);

const listOptions = z.object({ page, search: search.optional() });

/** The first of these string fields an item has: list items whose shape the spec leaves open. */
function pick(item: Item, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = item[key];
    if ((typeof value === "string" && value !== "") || typeof value === "number") return String(value);
  }
  return undefined;
}

const joined = (...parts: (string | undefined | false)[]) => parts.filter(Boolean).join(" · ");

function listOutcome(
  list: ListName,
  title: string,
  items: readonly ListEntry[],
  options: { page: number; search?: string | undefined },
  empty: string,
): Outcome {
  const needle = options.search?.toLowerCase();
  const matching = needle
    ? items.filter((e) => e.title.toLowerCase().includes(needle) || e.detail?.toLowerCase().includes(needle))
    : items;
  const { items: shown, paging } = pageOf(matching, options.page);
  const emptyText = needle ? `Nothing matches "${options.search}".` : empty;
  return {
    reply: listCard(
      title,
      shown,
      paging,
      { empty: emptyText },
      { list, ...(needle && { search: options.search }) },
    ),
  };
}

/** An item's image or video, as Show posts it: where its bytes are (a service path or a signed link). */
export interface ItemMedia {
  kind: ResultKind;
  name: string;
  /** A service-relative path (sent with the key) or an absolute link. */
  source: string;
}

/** The first of the item's link fields, else its media id's key-authenticated view. */
function mediaOf(item: Item, kind: ResultKind, name: string, ...urlKeys: string[]): ItemMedia | undefined {
  const mediaId = pick(item, "mediaId");
  const source = pick(item, ...urlKeys) ?? (mediaId && `/api/media/${encodeURIComponent(mediaId)}/view`);
  return source ? { kind, name, source } : undefined;
}

/**
 * How Show finds an item of a list again: by id in the list the service gives (the page it was on,
 * for a list the service pages), then its media. Undefined: the item is gone, or has no media.
 */
export type FindMedia = (media: MediaApi, id: string, page: number) => Promise<ItemMedia | undefined>;

/** A list the service returns whole: the bot filters by `search` and pages it. */
function listCommand(spec: {
  name: string;
  list: ListName;
  help: string;
  title: string;
  empty: string;
  entries(media: MediaApi): Promise<ListEntry[]>;
}) {
  return defineCommand({
    name: spec.name,
    help: spec.help,
    options: listOptions,
    main: "search",
    ephemeral: true,
    async run({ media, options }) {
      return listOutcome(spec.list, spec.title, await spec.entries(media), options, spec.empty);
    },
  });
}

/** Finds `id` in a list the service returns whole. */
const findIn =
  (list: (media: MediaApi) => Promise<Item[]>, found: (item: Item) => ItemMedia | undefined): FindMedia =>
  async (media, id) => {
    const item = (await list(media)).find((i) => pick(i, "id") === id);
    return item && found(item);
  };

const imageOf = (item: Item, fallback: string) =>
  mediaOf(
    item,
    "image",
    pick(item, "name", "prompt") ?? fallback,
    "imageUrl",
    "previewUrl",
    "downloadUrl",
    "url",
  );

export const avatars = listCommand({
  name: "avatars",
  list: "avatars",
  help: "List the avatars you can use in videos (stock and your own)",
  title: "Avatars",
  empty: "No avatars yet.",
  entries: async (media) =>
    (await media.avatars.list()).map((a) => ({
      title: a.name ?? a.id,
      detail: joined(
        `id ${a.id}`,
        a.voiceId !== undefined && `voice ${a.voiceId}`,
        a.isPhoto && "photo avatar",
      ),
      ...(imageOf(a, "Avatar") && { show: a.id }),
    })),
});

export const voices = listCommand({
  name: "voices",
  list: "voices",
  help: "List the voices avatar videos can speak with",
  title: "Voices",
  empty: "No voices yet.",
  entries: async (media) =>
    (await media.voices.list()).map((v) => ({ title: v.name ?? v.id, detail: `id ${v.id}` })),
});

export const videoList = listCommand({
  name: "video.list",
  list: "videos",
  help: "List your finished videos",
  title: "Videos",
  empty: "No finished videos yet: make one with video avatar.",
  entries: async (media) =>
    (await media.videos.list()).map((v) => ({
      title: v.name ?? v.id,
      detail: joined(`id ${v.id}`, day(v.createdAt)),
      show: v.id,
    })),
});

export const mockupList = listCommand({
  name: "mockup.list",
  list: "mockups",
  help: "List your saved product mockups",
  title: "Mockups",
  empty: "No mockups yet: make one with mockup generate.",
  entries: async (media) =>
    (await media.mockups.list()).map((m) => ({
      title: m.prompt ? clip(m.prompt, 80) : m.id,
      detail: joined(`id ${m.id}`, day(m.createdAt)),
      ...(imageOf(m, "Mockup") && { show: m.id }),
    })),
});

export const mockupAssets = listCommand({
  name: "mockup.assets",
  list: "assets",
  help: "List your generated logo and product assets",
  title: "Mockup assets",
  empty: "No assets yet: make one with mockup asset.",
  entries: async (media) =>
    (await media.mockups.listAssets()).map((a) => ({
      title: clip(pick(a, "prompt", "name", "id") ?? "Asset", 80),
      detail: joined(pick(a, "id") && `id ${pick(a, "id")}`, pick(a, "type"), day(pick(a, "createdAt"))),
      ...(imageOf(a, "Asset") && pick(a, "id") && { show: pick(a, "id") }),
    })),
});

const mockupVideoOf = (v: Item) =>
  mediaOf(v, "video", pick(v, "name", "animationStyle") ?? "Mockup video", "videoUrl", "downloadUrl", "url");

export const mockupVideos = listCommand({
  name: "mockup.videos",
  list: "mockup_videos",
  help: "List your mockup advertisement videos",
  title: "Mockup videos",
  empty: "No mockup videos yet: make one with mockup video.",
  entries: async (media) =>
    (await media.mockups.listVideos()).map((v) => ({
      title: pick(v, "name", "animationStyle", "id") ?? "Video",
      detail: joined(
        pick(v, "id") && `id ${pick(v, "id")}`,
        pick(v, "mockupId") && `mockup ${pick(v, "mockupId")}`,
        day(pick(v, "createdAt")),
      ),
      ...(mockupVideoOf(v) && pick(v, "id") && { show: pick(v, "id") }),
    })),
});

export const thumbnailList = defineCommand({
  name: "thumbnail.list",
  help: "List your generated thumbnails",
  options: z.object({ page }),
  ephemeral: true,
  async run({ media, options }) {
    // The service pages this list itself.
    const answer = await media.thumbnails.list({ page: options.page });
    const paging: Paging = {
      page: answer.page ?? options.page,
      totalPages: answer.totalPages ?? options.page,
      totalCount: answer.totalCount ?? answer.thumbnails.length,
    };
    const entries = answer.thumbnails.map((t) => ({
      title: clip(pick(t, "name", "prompt", "id") ?? "Thumbnail", 80),
      detail: joined(
        pick(t, "id") && `id ${pick(t, "id")}`,
        pick(t, "aspectRatio"),
        day(pick(t, "createdAt")),
      ),
      ...(imageOf(t, "Thumbnail") && pick(t, "id") && { show: pick(t, "id") }),
    }));
    return {
      reply: listCard(
        "Thumbnails",
        entries,
        paging,
        { empty: "No thumbnails here: make one with thumbnail generate." },
        { list: "thumbnails" },
      ),
    };
  },
});

/**
 * What each list's page and Show controls run: the list's command (with the options the list
 * name implies), and how Show finds an item's media again.
 */
export const LISTS: Record<
  ListName,
  { command: string; options?: Record<string, unknown>; find?: FindMedia }
> = {
  avatars: {
    command: avatars.name,
    find: findIn(
      (media) => media.avatars.list(),
      (a) => imageOf(a, "Avatar"),
    ),
  },
  voices: { command: voices.name },
  videos: {
    command: videoList.name,
    // The video record's signed link, which Discord can show when the file is too big to upload.
    find: async (media, id) => {
      const listed = (await media.videos.list()).some((v) => v.id === id);
      const video = listed ? await media.videos.get(id) : undefined;
      return video && { kind: "video", name: video.name ?? "Video", source: video.downloadUrl };
    },
  },
  mockups: {
    command: mockupList.name,
    find: findIn(
      (media) => media.mockups.list(),
      (m) => imageOf(m, "Mockup"),
    ),
  },
  assets: {
    command: mockupAssets.name,
    find: findIn(
      (media) => media.mockups.listAssets(),
      (a) => imageOf(a, "Asset"),
    ),
  },
  mockup_videos: {
    command: mockupVideos.name,
    find: findIn((media) => media.mockups.listVideos(), mockupVideoOf),
  },
  thumbnails: {
    command: thumbnailList.name,
    // The service pages this list: the item is looked for on the page it was shown on.
    find: async (media, id, page) => {
      const item = (await media.thumbnails.list({ page })).thumbnails.find((t) => pick(t, "id") === id);
      return item && imageOf(item, "Thumbnail");
    },
  },
  jobs: { command: "jobs" },
  jobs_all: { command: "jobs", options: { all: true } },
};
