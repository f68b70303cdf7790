import { type Card, type CardAction, type CardField, card } from "../base/cards.js";
import { english, type Translator } from "../i18n/translator.js";
import { controlButton } from "./controls.js";

/** Paged lists (avatars, voices, videos, mockups, assets, thumbnails, jobs, help). */

export interface ListEntry {
  title: string;
  detail?: string;
  /** The item's id when it has an image or video to show: the entry gets a Show button. */
  show?: string;
  /** Where the entry leads (a job's message). */
  link?: { label: string; url: string };
}

export interface Paging {
  page: number;
  totalPages: number;
  totalCount: number;
}

/**
 * The lists whose messages page and show: the name their controls carry (the control's subject,
 * where a job's controls carry the job id). `jobs_all` is an admin's jobs --all.
 */
export const LIST_NAMES = [
  "avatars",
  "voices",
  "videos",
  "mockups",
  "assets",
  "mockup_videos",
  "thumbnails",
  "jobs",
  "jobs_all",
] as const;
export type ListName = (typeof LIST_NAMES)[number];

export function isListName(name: string): name is ListName {
  return (LIST_NAMES as readonly string[]).includes(name);
}

/**
 * What a list's page button carries besides the list: the page, and the search that narrowed it.
 * Every control value must fit the adapters' ids (Discord's custom_id holds 100 characters, and a
 * value only letters, digits, "_", "-" and "."), so the search travels as base64url of its UTF-8,
 * which `SEARCH_BYTES` bounds: the page state needs no store and survives restarts.
 */
export const SEARCH_BYTES = 42;

export interface PageRequest {
  page: number;
  search?: string;
}

export function pageValue({ page, search }: PageRequest): string {
  return search ? `${page}.${Buffer.from(search, "utf8").toString("base64url")}` : String(page);
}

/** The page a button asks for; undefined for a value this version did not write. */
export function readPageValue(value: string): PageRequest | undefined {
  const match = /^(\d{1,4})(?:\.([\w-]+))?$/.exec(value);
  if (!match) return undefined;
  const search = match[2] && Buffer.from(match[2], "base64url").toString("utf8");
  return { page: Number(match[1]), ...(search && { search }) };
}

/**
 * What Show carries: the page the item was on (lists the service pages are read at that page
 * again) and the item's id; ids an adapter could not carry get no Show button.
 */
const SHOWABLE_ID = /^[\w-]{1,48}$/;

export function showValue(page: number, id: string): string | undefined {
  return SHOWABLE_ID.test(id) ? `${page}.${id}` : undefined;
}

export function readShowValue(value: string): { page: number; id: string } | undefined {
  const match = /^(\d{1,4})\.([\w-]{1,48})$/.exec(value);
  return match ? { page: Number(match[1]), id: match[2]! } : undefined;
}

/** Discord shows at most 25 fields; ten entries also keep a Slack message readable. */
export const PAGE_SIZE = 10;

/** Cuts one page out of a whole list; a page past the end shows the last one. */
export function pageOf<T>(
  items: readonly T[],
  page: number,
  size = PAGE_SIZE,
): { items: T[]; paging: Paging } {
  const totalPages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(Math.max(1, page), totalPages);
  return {
    items: items.slice((current - 1) * size, current * size),
    paging: { page: current, totalPages, totalCount: items.length },
  };
}

/** The list's own controls, carried by its card: which list, and the search that narrowed it. */
export interface ListControls {
  list: ListName;
  search?: string;
}

/** Show per entry with media (numbered like the entries), then Previous and Next when there are such pages. */
export function listActions(
  entries: readonly ListEntry[],
  paging: Paging,
  controls: ListControls,
  t: Translator = english(),
): CardAction[] {
  const shows = entries.flatMap((entry, i) => {
    const value = entry.show === undefined ? undefined : showValue(paging.page, entry.show);
    return value ? [controlButton("show", controls.list, t.text("lists.show", { n: i + 1 }), { value })] : [];
  });
  const to = (page: number, label: string) =>
    controlButton("page", controls.list, label, {
      value: pageValue({ page, ...(controls.search && { search: controls.search }) }),
    });
  return [
    ...shows,
    ...(paging.page > 1 ? [to(paging.page - 1, t.text("lists.previous"))] : []),
    ...(paging.page < paging.totalPages ? [to(paging.page + 1, t.text("lists.next"))] : []),
  ];
}

/** "Page 2 of 3, 25 in all.", with where the rest is when the list has no buttons to page it. */
export function pagingLine(paging: Paging, t: Translator = english(), pagedByButtons = true): string {
  const values = { page: paging.page, pages: paging.totalPages, total: paging.totalCount };
  return paging.page < paging.totalPages && !pagedByButtons
    ? t.text("lists.footer_more", { ...values, next: paging.page + 1 })
    : t.text("lists.footer", values);
}

/**
 * A day ("2026-01-10") or a minute ("2026-01-10 12:34") in UTC, as the reader writes dates: the
 * English catalogues keep the ISO form the lists have always shown, which no English reader
 * misreads; the other languages read theirs ("10.01.2026", "2026/01/10 12:34"). A text that is
 * no date is shown as it came.
 */
export function dateIn(t: Translator, when: string | number, withTime = false): string {
  const at = typeof when === "number" ? when : Date.parse(when);
  if (Number.isNaN(at)) return String(when);
  if (t.locale.split("-")[0] === "en") {
    return new Date(at)
      .toISOString()
      .slice(0, withTime ? 16 : 10)
      .replace("T", " ");
  }
  return new Intl.DateTimeFormat(t.locale, {
    dateStyle: "medium",
    ...(withTime && { timeStyle: "short" }),
    timeZone: "UTC",
  }).format(at);
}

export function listCard(
  title: string,
  entries: readonly ListEntry[],
  paging: Paging,
  texts: { empty: string; hint?: string },
  controls?: ListControls,
  t: Translator = english(),
): Card {
  if (paging.totalCount === 0 || entries.length === 0) {
    return card(title, "info", { lines: [texts.empty] });
  }
  const numbered = controls !== undefined && entries.some((e) => e.show !== undefined);
  return card(title, "info", {
    lines: texts.hint ? [texts.hint] : [],
    fields: entries.map(
      (entry, i): CardField => ({
        name: numbered ? `${i + 1}. ${entry.title}` : entry.title,
        value: entry.detail || "-",
        ...(entry.link && { link: entry.link }),
      }),
    ),
    actions: controls ? listActions(entries, paging, controls, t) : [],
    footer: pagingLine(paging, t, controls !== undefined),
  });
}
