import type { MediaApi } from "../api/client.js";
import type { Choice } from "../base/ports.js";
import { clip } from "../render/text.js";

/**
 * Avatars, voices and mockups of each tenant, kept for a short while: autocomplete asks on every
 * keystroke and must answer within 3 s, and a submitted id is checked against the same lists.
 */

export type PickSource = "avatars" | "voices" | "mockups";

export interface PickItem {
  id: string;
  /** What people see and may type: a name, or a mockup's prompt. */
  name: string;
  /** Told beside the name: "photo avatar". */
  detail?: string;
  /** An avatar's own voice, the default voice of its videos. */
  voiceId?: string;
}

/** Discord's limit on autocomplete choices (and on select options). */
export const MAX_CHOICES = 25;

const FETCH: Record<PickSource, (media: MediaApi) => Promise<PickItem[]>> = {
  avatars: async (media) =>
    (await media.avatars.list()).map((a) => ({
      id: a.id,
      name: a.name ?? a.id,
      ...(a.isPhoto && { detail: "photo avatar" }),
      ...(a.voiceId !== undefined && { voiceId: a.voiceId }),
    })),
  voices: async (media) => (await media.voices.list()).map((v) => ({ id: v.id, name: v.name ?? v.id })),
  mockups: async (media) =>
    (await media.mockups.list()).map((m) => ({ id: m.id, name: m.prompt ? clip(m.prompt, 60) : m.id })),
};

interface Entry {
  at: number;
  items: Promise<PickItem[]>;
}

export interface CatalogCacheOptions {
  ttlMs?: number;
  clock?: () => number;
}

export class CatalogCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly clock: () => number;

  constructor(options: CatalogCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.clock = options.clock ?? Date.now;
  }

  /** The list, from the cache while it is fresh; concurrent callers share one request. */
  list(tenant: string, source: PickSource, media: MediaApi, fresh = false): Promise<PickItem[]> {
    const key = `${tenant}\u0000${source}`;
    const cached = this.entries.get(key);
    if (cached && !fresh && this.clock() - cached.at < this.ttlMs) return cached.items;
    const items = FETCH[source](media);
    const entry = { at: this.clock(), items };
    this.entries.set(key, entry);
    // A failed fetch is not cached: the next caller tries again.
    items.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return items;
  }

  /**
   * The item a submitted value names: its id, or a name that only one item has (people type
   * names on Slack). A miss re-reads the list once, since the item may be minutes old.
   */
  async find(
    tenant: string,
    source: PickSource,
    media: MediaApi,
    value: string,
  ): Promise<PickItem | undefined> {
    const match = (items: PickItem[]) => {
      const byId = items.find((item) => item.id === value);
      if (byId) return byId;
      const named = items.filter((item) => item.name.toLowerCase() === value.toLowerCase());
      return named.length === 1 ? named[0] : undefined;
    };
    return (
      match(await this.list(tenant, source, media)) ?? match(await this.list(tenant, source, media, true))
    );
  }

  /** Up to 25 choices for what was typed so far: prefix matches first. */
  async choices(tenant: string, source: PickSource, media: MediaApi, query: string): Promise<Choice[]> {
    const needle = query.trim().toLowerCase();
    const items = await this.list(tenant, source, media);
    const scored = items
      .map((item) => {
        const name = item.name.toLowerCase();
        const id = item.id.toLowerCase();
        const score =
          needle === ""
            ? 1
            : name.startsWith(needle) || id.startsWith(needle)
              ? 2
              : name.includes(needle)
                ? 1
                : 0;
        return { item, score };
      })
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score);
    return scored.slice(0, MAX_CHOICES).map(({ item }) => ({
      label: clip(
        [item.name, item.detail, item.name === item.id ? undefined : item.id].filter(Boolean).join(" · "),
        100,
      ),
      value: item.id,
    }));
  }

  /** After a tenant's API key changes, its lists belong to another account. */
  forget(tenant: string): void {
    for (const key of this.entries.keys()) {
      if (key.startsWith(`${tenant}\u0000`)) this.entries.delete(key);
    }
  }
}
