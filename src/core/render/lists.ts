import { type Card, card } from "../cards.js";

/** Paged lists (avatars, voices, videos, mockups, assets, thumbnails, jobs, help). */

export interface ListEntry {
  title: string;
  detail?: string;
}

export interface Paging {
  page: number;
  totalPages: number;
  totalCount: number;
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

export function listCard(
  title: string,
  entries: readonly ListEntry[],
  paging: Paging,
  texts: { empty: string; hint?: string },
): Card {
  if (paging.totalCount === 0 || entries.length === 0) {
    return card(title, "info", { lines: [texts.empty] });
  }
  const more = paging.page < paging.totalPages ? ` Use page ${paging.page + 1} for more.` : "";
  return card(title, "info", {
    lines: texts.hint ? [texts.hint] : [],
    fields: entries.map((entry) => ({ name: entry.title, value: entry.detail || "-" })),
    footer: `Page ${paging.page} of ${paging.totalPages}, ${paging.totalCount} in all.${more}`,
  });
}
