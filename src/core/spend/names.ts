import type { Logger } from "../base/log.js";
import type { ChatAdapter, NameRef, Platform } from "../base/ports.js";

/**
 * Names of people, roles (Slack user groups) and channels, as the platforms give them
 * (`ChatAdapter.names`), for budgets, usage and the export, kept a while per tenant: a report
 * names the same few dozen people every time. A name the platform could not give (gone, out of
 * sight, or the platform did not answer) is shown by id and asked again a minute later. A platform
 * without names shows ids.
 */

/** A name seen is used this long: a renamed channel shows its new name within the hour. */
const TTL_MS = 60 * 60_000;
/** A name not given is asked again after this. */
const MISS_TTL_MS = 60_000;
/** Names kept at most, oldest forgotten first: one report asks for a tenant's people, roles and channels. */
const MAX_KEPT = 20_000;

export type Named = (ref: NameRef) => string | undefined;

export const nameKey = (ref: NameRef) => `${ref.kind}:${ref.id}`;

export class Names {
  private readonly kept = new Map<string, { name: string | undefined; at: number }>();

  constructor(
    private readonly adapter: (platform: Platform) => ChatAdapter,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Looks up what is not known yet in one call to the platform; answers a reader of the names. */
  async of(platform: Platform, tenantId: string, refs: readonly NameRef[]): Promise<Named> {
    const key = (ref: NameRef) => `${platform}:${tenantId}:${nameKey(ref)}`;
    const now = this.now();
    const wanted = new Map<string, NameRef>();
    for (const ref of refs) {
      const kept = this.kept.get(key(ref));
      if (!kept || now - kept.at >= (kept.name === undefined ? MISS_TTL_MS : TTL_MS))
        wanted.set(key(ref), ref);
    }
    const names = this.adapterOf(platform)?.names?.bind(this.adapterOf(platform));
    if (wanted.size > 0 && names) {
      try {
        const found = await names(tenantId, [...wanted.values()]);
        for (const [k, ref] of wanted) this.keep(k, found.get(nameKey(ref)), now);
      } catch (error) {
        // Shown by id this time; asked again next time.
        this.logger.warn({ err: error, platform }, "names not read from the platform");
      }
    }
    return (ref) => this.kept.get(key(ref))?.name;
  }

  private adapterOf(platform: Platform): ChatAdapter | undefined {
    try {
      return this.adapter(platform);
    } catch {
      return undefined;
    }
  }

  private keep(key: string, name: string | undefined, at: number): void {
    this.kept.delete(key);
    this.kept.set(key, { name, at });
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }
}
