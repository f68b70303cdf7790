interface Entry<T> {
  owner: string;
  item: T;
  /** Results of running jobs are registered up front and appear once their job is done. */
  ready?: () => boolean;
}

/** Records owned by one account (keyed by API key), in creation order. */
export class Registry<T extends { id: string }> {
  private readonly entries = new Map<string, Entry<T>>();

  add(owner: string, item: T, ready?: () => boolean): T {
    this.entries.set(item.id, ready ? { owner, item, ready } : { owner, item });
    return item;
  }

  /** Any record with this id, whoever owns it and whether ready or not (for 403 versus 404). */
  find(id: string): { owner: string; item: T; ready: boolean } | undefined {
    const entry = this.entries.get(id);
    return entry && { owner: entry.owner, item: entry.item, ready: entry.ready?.() ?? true };
  }

  /** The record if it belongs to `owner` and is ready. */
  get(owner: string, id: string): T | undefined {
    const found = this.find(id);
    return found?.owner === owner && found.ready ? found.item : undefined;
  }

  list(owner: string): T[] {
    return [...this.entries.values()]
      .filter((entry) => entry.owner === owner && (entry.ready?.() ?? true))
      .map((entry) => entry.item);
  }

  clear(): void {
    this.entries.clear();
  }
}
