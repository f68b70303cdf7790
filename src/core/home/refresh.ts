import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Signals } from "../../store/index.js";
import type { Logger } from "../base/log.js";
import type { Actor } from "../base/ports.js";

/**
 * Keeps the homes people look at current (Slack's App Home tab): a home opened recently is
 * published again when its person's jobs change. Publishes are paced per person: changes that
 * come together wait `settleMs` and go out as one, two publishes are at least `gapMs` apart, and
 * a change during a publish is followed by one more, so the last state is always the one shown.
 * Slack's views.publish allows about 100 calls a minute per workspace (Tier 4); one person's
 * busy jobs use at most one every few seconds.
 *
 * Who looks is shared with every replica on the store (`signals`: Redis pub/sub): a home opened
 * through one replica is watched by all, and published again by whichever replica moves that
 * person's jobs. The opener publishes it when opened; the others wait for a change. A replica
 * that was not connected when a home was opened (starting, or the store failing over) learns of
 * it at its next opening. On sqlite, and without `signals`, this process alone.
 */

export interface HomeClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface HomeRefreshOptions {
  logger: Logger;
  gapMs?: number;
  settleMs?: number;
  /** How long after it was opened a home is kept current. */
  watchMs?: number;
  clock?: HomeClock;
  /** The store's messages between replicas (store/signals.ts); without it, this process only. */
  signals?: Pick<Signals, "publish" | "subscribe">;
}

/** The channel on which a replica says that a person opened their home. */
export const HOMES_OPENED = "homes:opened";

const opening = z.object({
  from: z.string(),
  actor: z.object({
    platform: z.enum(["discord", "slack"]),
    tenantId: z.string(),
    userId: z.string(),
    isAdmin: z.boolean(),
    roleIds: z.array(z.string()),
    rolesUnknown: z.literal(true).optional(),
  }),
});

interface Watched {
  actor: Actor;
  openedAt: number;
  /** When the last publish started; undefined before the first. */
  lastAt?: number;
  timer?: unknown;
  busy: boolean;
  again: boolean;
}

const realClock: HomeClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const keyOf = (person: Pick<Actor, "platform" | "tenantId" | "userId">) =>
  `${person.platform}:${person.tenantId}:${person.userId}`;

export class HomeRefresh {
  private readonly watched = new Map<string, Watched>();
  private readonly gapMs: number;
  private readonly settleMs: number;
  private readonly watchMs: number;
  private readonly clock: HomeClock;
  /** This process among the replicas: its own messages come back to it too. */
  private readonly self = randomUUID();
  private readonly unsubscribe: (() => void) | undefined;

  constructor(
    private readonly publish: (actor: Actor) => Promise<void>,
    private readonly options: HomeRefreshOptions,
  ) {
    this.gapMs = options.gapMs ?? 3_000;
    this.settleMs = options.settleMs ?? 500;
    this.watchMs = options.watchMs ?? 30 * 60_000;
    this.clock = options.clock ?? realClock;
    this.unsubscribe = options.signals?.subscribe(HOMES_OPENED, (message) => this.heard(message));
  }

  /** `actor` opened their home: it is published at once (within the gap) and kept current. */
  opened(actor: Actor): void {
    this.request(this.watch(actor), 0);
    const message = JSON.stringify({ from: this.self, actor } satisfies z.infer<typeof opening>);
    this.options.signals?.publish(HOMES_OPENED, message).catch((error: unknown) =>
      // The other replicas learn of it at the next opening; this one keeps it current meanwhile.
      this.options.logger.debug({ err: error, userId: actor.userId }, "home opening not shared"),
    );
  }

  /** Another replica's opening: watched here too, published by the opener. */
  private heard(message: string): void {
    let parsed: z.infer<typeof opening>;
    try {
      parsed = opening.parse(JSON.parse(message));
    } catch (error) {
      this.options.logger.warn({ err: error }, "home opening from another replica unreadable");
      return;
    }
    if (parsed.from !== this.self) this.watch(parsed.actor);
  }

  private watch(actor: Actor): Watched {
    const key = keyOf(actor);
    const now = this.clock.now();
    this.forgetStale(now);
    const entry = this.watched.get(key) ?? { actor, openedAt: now, busy: false, again: false };
    Object.assign(entry, { actor, openedAt: now });
    this.watched.set(key, entry);
    return entry;
  }

  /** Something of `person` changed (a job of theirs moved on): their home follows, paced. */
  changed(person: Pick<Actor, "platform" | "tenantId" | "userId">): void {
    const key = keyOf(person);
    const entry = this.watched.get(key);
    if (!entry) return;
    if (this.clock.now() - entry.openedAt > this.watchMs) return;
    this.request(entry, this.settleMs);
  }

  /** Homes no longer followed and with nothing pending, so the map holds only recent ones. */
  private forgetStale(now: number): void {
    for (const [key, entry] of this.watched) {
      if (now - entry.openedAt > this.watchMs && entry.timer === undefined && !entry.busy) {
        this.watched.delete(key);
      }
    }
  }

  /** Forgets every home and its pending publish (the bot stops). */
  stop(): void {
    this.unsubscribe?.();
    for (const entry of this.watched.values()) {
      if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    }
    this.watched.clear();
  }

  private request(entry: Watched, settleMs: number): void {
    if (entry.busy) {
      entry.again = true;
      return;
    }
    // A publish already waits: it reads the state when it runs, this change included.
    if (entry.timer !== undefined) return;
    const since = entry.lastAt === undefined ? Number.POSITIVE_INFINITY : this.clock.now() - entry.lastAt;
    const wait = Math.max(settleMs, this.gapMs - since);
    entry.timer = this.clock.setTimeout(() => void this.run(entry), wait);
  }

  private async run(entry: Watched): Promise<void> {
    entry.timer = undefined;
    entry.busy = true;
    entry.again = false;
    entry.lastAt = this.clock.now();
    try {
      await this.publish(entry.actor);
    } catch (error) {
      this.options.logger.warn({ err: error, userId: entry.actor.userId }, "home not published");
    } finally {
      entry.busy = false;
      if (entry.again && this.watched.get(keyOf(entry.actor)) === entry) this.request(entry, 0);
    }
  }
}
