import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import type { Item } from "../api/schemas.js";
import { type ListEntry, listCard, type Paging, pageOf } from "../render/lists.js";
import { clip, day } from "../render/text.js";
import { usageCard } from "../render/usage.js";
import { defineCommand, type Outcome } from "./define.js";
import { page, text } from "./options.js";

/** The read-only commands: usage and the paged lists of what the account holds. */

const listOptions = z.object({
  page,
  search: text(100, "Show only entries whose name contains this").optional(),
});

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
  title: string,
  items: readonly ListEntry[],
  options: { page: number; search?: string },
  empty: string,
): Outcome {
  const needle = options.search?.toLowerCase();
  const matching = needle
    ? items.filter((e) => e.title.toLowerCase().includes(needle) || e.detail?.toLowerCase().includes(needle))
    : items;
  const { items: shown, paging } = pageOf(matching, options.page);
  const emptyText = needle ? `Nothing matches "${options.search}".` : empty;
  return { reply: listCard(title, shown, paging, { empty: emptyText }) };
}

export const usage = defineCommand({
  name: "usage",
  help: "Show the plan, credits left, per-type quotas and the reset date",
  options: z.object({}),
  ephemeral: true,
  async run({ media }) {
    return { reply: usageCard(await media.usage.get()) };
  },
});

/** A list the service returns whole: the bot filters by `search` and pages it. */
function listCommand(spec: {
  name: string;
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
      return listOutcome(spec.title, await spec.entries(media), options, spec.empty);
    },
  });
}

export const avatars = listCommand({
  name: "avatars",
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
    })),
});

export const voices = listCommand({
  name: "voices",
  help: "List the voices avatar videos can speak with",
  title: "Voices",
  empty: "No voices yet.",
  entries: async (media) =>
    (await media.voices.list()).map((v) => ({ title: v.name ?? v.id, detail: `id ${v.id}` })),
});

export const videoList = listCommand({
  name: "video.list",
  help: "List your finished videos",
  title: "Videos",
  empty: "No finished videos yet: make one with video avatar.",
  entries: async (media) =>
    (await media.videos.list()).map((v) => ({
      title: v.name ?? v.id,
      detail: joined(`id ${v.id}`, day(v.createdAt)),
    })),
});

export const mockupList = listCommand({
  name: "mockup.list",
  help: "List your saved product mockups",
  title: "Mockups",
  empty: "No mockups yet: make one with mockup generate.",
  entries: async (media) =>
    (await media.mockups.list()).map((m) => ({
      title: m.prompt ? clip(m.prompt, 80) : m.id,
      detail: joined(`id ${m.id}`, day(m.createdAt)),
    })),
});

export const mockupAssets = listCommand({
  name: "mockup.assets",
  help: "List your generated logo and product assets",
  title: "Mockup assets",
  empty: "No assets yet: make one with mockup asset.",
  entries: async (media) =>
    (await media.mockups.listAssets()).map((a) => ({
      title: clip(pick(a, "prompt", "name", "id") ?? "Asset", 80),
      detail: joined(pick(a, "id") && `id ${pick(a, "id")}`, pick(a, "type"), day(pick(a, "createdAt"))),
    })),
});

export const mockupVideos = listCommand({
  name: "mockup.videos",
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
    }));
    return {
      reply: listCard("Thumbnails", entries, paging, {
        empty: "No thumbnails here: make one with thumbnail generate.",
      }),
    };
  },
});
