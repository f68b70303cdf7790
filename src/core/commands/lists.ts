import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import type { Item } from "../api/schemas.js";
import type { ResultKind } from "../base/cards.js";
import { readerLocale } from "../i18n/locale.js";
import { command } from "../i18n/msg.js";
import { type Translator, translatorFor } from "../i18n/translator.js";
import {
  dateIn,
  type ListEntry,
  type ListName,
  listCard,
  type Paging,
  pageOf,
  SEARCH_BYTES,
} from "../render/lists.js";
import { clip } from "../render/text.js";
import { defineCommand, type Outcome } from "./define.js";
import { page, text } from "./options.js";

/** The read-only commands: the paged lists of what the account holds. */

// The search rides in the page buttons (see pageValue): bounded so that it always fits them.
const search = text(SEARCH_BYTES, "Show only entries whose name contains this").refine(
  (s) => Buffer.byteLength(s, "utf8") <= SEARCH_BYTES,
  { message: "lists.search_too_long", params: { n: SEARCH_BYTES } },
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

/** The words of an entry's detail, in the reader's language. */
const idOf = (t: Translator, id: string | undefined) => id !== undefined && t.text("lists.detail.id", { id });
const dayOf = (t: Translator, iso: string | undefined) => iso !== undefined && dateIn(t, iso);

/** Each list's title, and what it says when empty (with the command that makes its first entry). */
const TEXTS: Record<
  Exclude<ListName, "jobs" | "jobs_all">,
  (t: Translator) => { title: string; empty: string }
> = {
  avatars: (t) => ({
    title: t.text("lists.title", { list: "avatars" }),
    empty: t.text("lists.empty.avatars"),
  }),
  voices: (t) => ({ title: t.text("lists.title", { list: "voices" }), empty: t.text("lists.empty.voices") }),
  videos: (t) => ({
    title: t.text("lists.title", { list: "videos" }),
    empty: t.text("lists.empty.videos", { command: command("video.avatar") }),
  }),
  mockups: (t) => ({
    title: t.text("lists.title", { list: "mockups" }),
    empty: t.text("lists.empty.mockups", { command: command("mockup.generate") }),
  }),
  assets: (t) => ({
    title: t.text("lists.title", { list: "assets" }),
    empty: t.text("lists.empty.assets", { command: command("mockup.asset") }),
  }),
  mockup_videos: (t) => ({
    title: t.text("lists.title", { list: "mockup_videos" }),
    empty: t.text("lists.empty.mockup_videos", { command: command("mockup.video") }),
  }),
  thumbnails: (t) => ({
    title: t.text("lists.title", { list: "thumbnails" }),
    empty: t.text("lists.empty.thumbnails", { command: command("thumbnail.generate") }),
  }),
};

function listOutcome(
  list: Exclude<ListName, "jobs" | "jobs_all">,
  items: readonly ListEntry[],
  options: { page: number; search?: string | undefined },
  t: Translator,
): Outcome {
  const needle = options.search?.toLowerCase();
  const matching = needle
    ? items.filter((e) => e.title.toLowerCase().includes(needle) || e.detail?.toLowerCase().includes(needle))
    : items;
  const { items: shown, paging } = pageOf(matching, options.page);
  const { title, empty } = TEXTS[list](t);
  const emptyText = needle ? t.text("lists.nothing_matches", { search: options.search ?? "" }) : empty;
  return {
    reply: listCard(
      title,
      shown,
      paging,
      { empty: emptyText },
      { list, ...(needle && { search: options.search }) },
      t,
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
export type FindMedia = (
  media: MediaApi,
  id: string,
  page: number,
  t: Translator,
) => Promise<ItemMedia | undefined>;

/** A list the service returns whole: the bot filters by `search` and pages it. */
function listCommand(spec: {
  name: string;
  list: Exclude<ListName, "jobs" | "jobs_all">;
  help: string;
  entries(media: MediaApi, t: Translator): Promise<ListEntry[]>;
}) {
  return defineCommand({
    name: spec.name,
    help: spec.help,
    options: listOptions,
    main: "search",
    ephemeral: true,
    async run({ media, options, actor }) {
      const t = translatorFor(readerLocale(actor));
      return listOutcome(spec.list, await spec.entries(media, t), options, t);
    },
  });
}

/** Finds `id` in a list the service returns whole. */
const findIn =
  (
    list: (media: MediaApi) => Promise<Item[]>,
    found: (item: Item, t: Translator) => ItemMedia | undefined,
  ): FindMedia =>
  async (media, id, _page, t) => {
    const item = (await list(media)).find((i) => pick(i, "id") === id);
    return item && found(item, t);
  };

/** What an item without a name is called: "Avatar", "Mockup video". */
type Unnamed = "avatar" | "mockup" | "asset" | "thumbnail" | "video" | "mockup_video";
const unnamed = (t: Translator, kind: Unnamed) => t.text("lists.unnamed", { kind });

const imageOf = (item: Item, t: Translator, fallback: Unnamed) =>
  mediaOf(
    item,
    "image",
    pick(item, "name", "prompt") ?? unnamed(t, fallback),
    "imageUrl",
    "previewUrl",
    "downloadUrl",
    "url",
  );

export const avatars = listCommand({
  name: "avatars",
  list: "avatars",
  help: "List the avatars you can use in videos (stock and your own)",
  entries: async (media, t) =>
    (await media.avatars.list()).map((a) => ({
      title: a.name ?? a.id,
      detail: joined(
        idOf(t, a.id),
        a.voiceId !== undefined && t.text("lists.detail.voice", { id: a.voiceId }),
        a.isPhoto && t.text("lists.detail.photo_avatar"),
      ),
      ...(imageOf(a, t, "avatar") && { show: a.id }),
    })),
});

export const voices = listCommand({
  name: "voices",
  list: "voices",
  help: "List the voices avatar videos can speak with",
  entries: async (media, t) =>
    (await media.voices.list()).map((v) => ({ title: v.name ?? v.id, detail: joined(idOf(t, v.id)) })),
});

export const videoList = listCommand({
  name: "video.list",
  list: "videos",
  help: "List your finished videos",
  entries: async (media, t) =>
    (await media.videos.list()).map((v) => ({
      title: v.name ?? v.id,
      detail: joined(idOf(t, v.id), dayOf(t, v.createdAt)),
      show: v.id,
    })),
});

export const mockupList = listCommand({
  name: "mockup.list",
  list: "mockups",
  help: "List your saved product mockups",
  entries: async (media, t) =>
    (await media.mockups.list()).map((m) => ({
      title: m.prompt ? clip(m.prompt, 80) : m.id,
      detail: joined(idOf(t, m.id), dayOf(t, m.createdAt)),
      ...(imageOf(m, t, "mockup") && { show: m.id }),
    })),
});

export const mockupAssets = listCommand({
  name: "mockup.assets",
  list: "assets",
  help: "List your generated logo and product assets",
  entries: async (media, t) =>
    (await media.mockups.listAssets()).map((a) => ({
      title: clip(pick(a, "prompt", "name", "id") ?? unnamed(t, "asset"), 80),
      detail: joined(idOf(t, pick(a, "id")), pick(a, "type"), dayOf(t, pick(a, "createdAt"))),
      ...(imageOf(a, t, "asset") && pick(a, "id") && { show: pick(a, "id") }),
    })),
});

const mockupVideoOf = (v: Item, t: Translator) =>
  mediaOf(
    v,
    "video",
    pick(v, "name", "animationStyle") ?? unnamed(t, "mockup_video"),
    "videoUrl",
    "downloadUrl",
    "url",
  );

export const mockupVideos = listCommand({
  name: "mockup.videos",
  list: "mockup_videos",
  help: "List your mockup advertisement videos",
  entries: async (media, t) =>
    (await media.mockups.listVideos()).map((v) => ({
      title: pick(v, "name", "animationStyle", "id") ?? unnamed(t, "video"),
      detail: joined(
        idOf(t, pick(v, "id")),
        pick(v, "mockupId") && t.text("lists.detail.mockup", { id: pick(v, "mockupId")! }),
        dayOf(t, pick(v, "createdAt")),
      ),
      ...(mockupVideoOf(v, t) && pick(v, "id") && { show: pick(v, "id") }),
    })),
});

export const thumbnailList = defineCommand({
  name: "thumbnail.list",
  help: "List your generated thumbnails",
  options: z.object({ page }),
  ephemeral: true,
  async run({ media, options, actor }) {
    const t = translatorFor(readerLocale(actor));
    // The service pages this list itself.
    const answer = await media.thumbnails.list({ page: options.page });
    const paging: Paging = {
      page: answer.page ?? options.page,
      totalPages: answer.totalPages ?? options.page,
      totalCount: answer.totalCount ?? answer.thumbnails.length,
    };
    const entries = answer.thumbnails.map((th) => ({
      title: clip(pick(th, "name", "prompt", "id") ?? unnamed(t, "thumbnail"), 80),
      detail: joined(idOf(t, pick(th, "id")), pick(th, "aspectRatio"), dayOf(t, pick(th, "createdAt"))),
      ...(imageOf(th, t, "thumbnail") && pick(th, "id") && { show: pick(th, "id") }),
    }));
    const { title, empty } = TEXTS.thumbnails(t);
    return { reply: listCard(title, entries, paging, { empty }, { list: "thumbnails" }, t) };
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
      (a, t) => imageOf(a, t, "avatar"),
    ),
  },
  voices: { command: voices.name },
  videos: {
    command: videoList.name,
    // The video record's signed link, which Discord can show when the file is too big to upload.
    find: async (media, id, _page, t) => {
      const listed = (await media.videos.list()).some((v) => v.id === id);
      const video = listed ? await media.videos.get(id) : undefined;
      return video && { kind: "video", name: video.name ?? unnamed(t, "video"), source: video.downloadUrl };
    },
  },
  mockups: {
    command: mockupList.name,
    find: findIn(
      (media) => media.mockups.list(),
      (m, t) => imageOf(m, t, "mockup"),
    ),
  },
  assets: {
    command: mockupAssets.name,
    find: findIn(
      (media) => media.mockups.listAssets(),
      (a, t) => imageOf(a, t, "asset"),
    ),
  },
  mockup_videos: {
    command: mockupVideos.name,
    find: findIn((media) => media.mockups.listVideos(), mockupVideoOf),
  },
  thumbnails: {
    command: thumbnailList.name,
    // The service pages this list: the item is looked for on the page it was shown on.
    find: async (media, id, page, t) => {
      const item = (await media.thumbnails.list({ page })).thumbnails.find((th) => pick(th, "id") === id);
      return item && imageOf(item, t, "thumbnail");
    },
  },
  jobs: { command: "jobs" },
  jobs_all: { command: "jobs", options: { all: true } },
};
