import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClaimHolder, Claims, Indexes, StoreAvailability } from "../../store/index.js";
import { BotError } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import { duringOutage } from "./despite-outage.js";

/**
 * Which bot instances are alive, at a cost that does not grow with the number of jobs: each
 * instance renews one heartbeat claim (`instance:<id>`) every `heartbeatMs`, which lapses after
 * `lapseMs` without renewal. Everything an instance holds (its jobs, a delivery, a choice being
 * made) is held in its name, so a lapsed heartbeat frees all of it at once, and a restart under
 * the same id takes it back at once: its new process holds the heartbeat under a new token, and
 * claims held by the old token count as dead.
 *
 * The heartbeat's owner is a token `<pid>@<host>/<nonce>|<id>` naming the process, so that a
 * process can tell a dead predecessor (same host, its pid gone or its own) from a live twin.
 */

export interface LivenessOptions {
  claims: Claims;
  indexes: Indexes;
  /** The instance's stable name (INSTANCE_ID, or host name plus working directory). */
  instanceId: string;
  /**
   * True when the operator chose the id: a live process under it stops this one from starting.
   * A default id is suffixed instead (`#2`, `#3`), so several processes in one directory just work.
   */
  explicit: boolean;
  heartbeatMs: number;
  lapseMs: number;
  logger: Logger;
  /** A release the store's outage failed is made once it is back (see release). */
  availability?: Pick<StoreAvailability, "whenAvailable" | "available"> | undefined;
}

export class InstanceInUseError extends BotError {
  readonly code = "setup.instance_in_use";
}

const REGISTRY = "instances";
/** Tokens of the engines running in this process (tests run several side by side). */
const liveHere = new Set<string>();
const MAX_SUFFIX = 32;

export function heartbeatKey(id: string): string {
  return `instance:${id}`;
}

/** The default INSTANCE_ID: stable across restarts of the same deployment on one machine. */
export function defaultInstanceId(): string {
  return `${hostname()}:${process.cwd()}`;
}

interface Token {
  pid: number;
  host: string;
  id: string;
}

function parseToken(token: string): Token | undefined {
  const bar = token.indexOf("|");
  const match = /^(\d+)@([^/]*)\//.exec(token.slice(0, bar));
  if (bar < 0 || !match) return undefined;
  return { pid: Number(match[1]), host: match[2] ?? "", id: token.slice(bar + 1) };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class Liveness {
  private readonly claims: Claims;
  private readonly indexes: Indexes;
  private readonly log: Logger;
  private readonly heartbeatMs: number;
  private readonly lapseMs: number;
  private readonly requested: string;
  private readonly explicit: boolean;
  private readonly host = hostname();
  private name: string;
  private ownToken: string;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private held = false;
  /** When the last renewal that succeeded was sent: the heartbeat lasts `lapseMs` from then at least. */
  private renewedAt = 0;
  /** The store was away: a lapse found at the next beat is its consequence. */
  private outageLapse = false;
  private readonly availability: LivenessOptions["availability"];
  private readonly takenListeners: (() => void)[] = [];
  private readonly regainedListeners: (() => void)[] = [];

  constructor(opts: LivenessOptions) {
    this.claims = opts.claims;
    this.indexes = opts.indexes;
    this.availability = opts.availability;
    this.log = opts.logger.child({ component: "liveness" });
    this.heartbeatMs = opts.heartbeatMs;
    this.lapseMs = opts.lapseMs;
    this.requested = opts.instanceId;
    this.explicit = opts.explicit;
    this.name = opts.instanceId;
    this.ownToken = this.tokenFor(opts.instanceId);
  }

  /** The instance's id, once started (a default id may have been suffixed). */
  get id(): string {
    return this.name;
  }

  /** This process's name on everything it holds. */
  get token(): string {
    return this.ownToken;
  }

  /** Holds the heartbeat under this instance's id (taking it from a dead predecessor) and keeps it. */
  async start(): Promise<void> {
    if (this.timer) return;
    for (let n = 1; n <= MAX_SUFFIX; n++) {
      const id = n === 1 ? this.requested : `${this.requested}#${n}`;
      const token = this.tokenFor(id);
      // Before the claim is taken (maybe after waiting on a predecessor): it lasts from then at least.
      const sentAt = Date.now();
      const live = await this.takeIdentity(id, token);
      if (live === undefined) {
        this.name = id;
        this.ownToken = token;
        this.renewedAt = sentAt;
        break;
      }
      if (this.explicit) {
        throw new InstanceInUseError(
          `INSTANCE_ID "${id}" is in use by a live process (pid ${live.pid} on ${live.host}): give each instance its own INSTANCE_ID.`,
        );
      }
      if (n === MAX_SUFFIX) throw new InstanceInUseError(`every suffix of instance id "${id}" is in use`);
    }
    this.held = true;
    liveHere.add(this.ownToken);
    await this.indexes.add(REGISTRY, { id: this.name, at: Date.now() });
    this.timer = setInterval(() => this.beatNow(), this.heartbeatMs);
    this.log.info({ instanceId: this.name }, "instance heartbeat started");
  }

  /**
   * Stops the heartbeat. With `handBack`, the heartbeat is released too, so that every other
   * instance (or this one's restart) takes over what this one held at once instead of after
   * the lapse.
   */
  async stop({ handBack }: { handBack: boolean }): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    if (handBack && this.held) {
      await this.claims.release(heartbeatKey(this.name), this.ownToken).catch(() => false);
    }
    this.held = false;
    liveHere.delete(this.ownToken);
  }

  /**
   * The store is back after an outage: the heartbeat is renewed now rather than at the next beat,
   * and its lapse meanwhile, expected, is no news for the log (the store said it was away).
   */
  storeReturned(): void {
    this.outageLapse = true;
    this.beatNow();
  }

  private beatNow(): void {
    if (!this.timer) return;
    this.beating ??= this.beat().finally(() => {
      this.beating = undefined;
    });
  }

  /**
   * Whether the heartbeat surely still lives: renewed less than `lapseMs` ago, less one beat of
   * margin. After a stall (a busy machine, a store away) it may have lapsed unnoticed, and another
   * instance may be taking over this one's jobs: work on them waits for the next renewal.
   */
  get fresh(): boolean {
    return this.held && Date.now() < this.renewedAt + this.lapseMs - this.heartbeatMs;
  }

  /** Another process holds this instance's heartbeat now: nothing this one held is its own any more. */
  onTaken(listener: () => void): void {
    this.takenListeners.push(listener);
  }

  /**
   * The heartbeat had lapsed (a stall longer than `lapseMs`, the store away) and is held again:
   * other instances may have taken over some of what this one held meanwhile.
   */
  onRegained(listener: () => void): void {
    this.regainedListeners.push(listener);
  }

  /** Whether the process that wrote `token` is still the live holder of its instance's heartbeat. */
  async isAlive(token: string): Promise<boolean> {
    const parsed = parseToken(token);
    if (!parsed) return false;
    return (await this.claims.holder(heartbeatKey(parsed.id)))?.owner === token;
  }

  /** Whether some process holds the heartbeat of instance `id`. */
  async instanceAlive(id: string): Promise<boolean> {
    return (await this.claims.holder(heartbeatKey(id))) !== undefined;
  }

  /** Instances that ever registered on this store (live or not). */
  async instances(): Promise<string[]> {
    return (await this.indexes.list(REGISTRY)).map((entry) => entry.id);
  }

  /** An instance whose heartbeat lapsed and whose jobs were all taken over leaves the registry. */
  async unregister(id: string): Promise<void> {
    await this.indexes.remove(REGISTRY, [id]);
  }

  /**
   * Takes `key` in this process's name: free, expired, or held by a process that is no longer
   * alive (crashed, or restarted under a new token). A live holder keeps it. `ttlMs` only bounds
   * a holder that is alive yet stuck: liveness frees everything else. `reentrant` takes a claim
   * this process holds already too: for the caller that does one at a time per key anyway (a
   * job's delivery), where such a claim is one whose acquire landed but whose answer the store's
   * outage cut off, and would hold every later try until its ttl.
   */
  async claim(key: string, ttlMs: number, { reentrant = false } = {}): Promise<boolean> {
    if (await this.claims.acquire(key, this.ownToken, ttlMs)) return true;
    const holder = await this.claims.holder(key);
    if (!holder) return this.claims.acquire(key, this.ownToken, ttlMs);
    if (holder.owner === this.ownToken)
      return reentrant && this.claims.transfer(key, holder.owner, this.ownToken, ttlMs);
    if (await this.isAlive(holder.owner)) return false;
    return this.claims.transfer(key, holder.owner, this.ownToken, ttlMs);
  }

  /**
   * A claim this process still holds it cannot take again (its own starts of one person, say, are
   * one at a time), so one whose release the store's outage failed would hold its next delivery,
   * or that person's next command, until its ttl: it is released once the store is back, in the
   * background, since the caller (a refusal on its way to a person) must not wait for that.
   */
  async release(key: string): Promise<void> {
    try {
      await this.claims.release(key, this.ownToken);
    } catch {
      // Whatever failed it (a command cut off as the connection dropped fails with the socket's
      // own error), once more when the store answers: at once if it does now.
      if (!this.availability) return;
      const token = this.ownToken;
      void this.availability
        .whenAvailable()
        .then(() => this.claims.release(key, token))
        .catch(() => undefined);
    }
  }

  private tokenFor(id: string): string {
    return `${process.pid}@${this.host}/${randomUUID().slice(0, 8)}|${id}`;
  }

  /** Undefined when this process now holds `id`'s heartbeat; else the live holder. */
  private async takeIdentity(id: string, token: string): Promise<Token | undefined> {
    const key = heartbeatKey(id);
    if (await this.claims.acquire(key, token, this.lapseMs)) return undefined;
    const holder = await this.claims.holder(key);
    if (!holder) return (await this.claims.acquire(key, token, this.lapseMs)) ? undefined : this.unknown();
    const previous = parseToken(holder.owner);
    if (!previous || !(await this.holderLives(previous, holder))) {
      if (await this.claims.transfer(key, holder.owner, token, this.lapseMs)) {
        this.log.info({ instanceId: id }, "took over the heartbeat of this instance's previous process");
        return undefined;
      }
      return previous ?? this.unknown();
    }
    return previous;
  }

  /**
   * A predecessor on this machine is dead when its pid is gone, or is ours without being one of
   * this process's engines (a container restarted with the same pid). Elsewhere, or when its pid
   * lives (maybe reused), it is alive only if it renews its heartbeat within one beat.
   */
  private async holderLives(previous: Token, seen: ClaimHolder): Promise<boolean> {
    if (liveHere.has(seen.owner)) return true;
    if (previous.host === this.host && (previous.pid === process.pid || !pidAlive(previous.pid)))
      return false;
    await sleep(this.heartbeatMs + Math.min(1_000, this.heartbeatMs));
    const now = await this.claims.holder(heartbeatKey(previous.id));
    return now !== undefined && now.owner === seen.owner && now.expiresAt > seen.expiresAt;
  }

  private unknown(): Token {
    return { pid: 0, host: "unknown", id: this.requested };
  }

  private async beat(): Promise<void> {
    const key = heartbeatKey(this.name);
    const sentAt = Date.now();
    const afterOutage = this.outageLapse;
    this.outageLapse = false;
    try {
      if (await this.claims.renew(key, this.ownToken, this.lapseMs)) {
        this.renewedAt = sentAt;
        // Again each beat: a takeover that raced this instance's restart may have unregistered it.
        await this.indexes.add(REGISTRY, { id: this.name, at: Date.now() });
        return;
      }
      if (this.held) {
        this.held = false;
        if (!afterOutage)
          this.log.error(
            { instanceId: this.name },
            "instance heartbeat lapsed (the process stalled or the store was unreachable): other instances may have taken its jobs",
          );
      }
      if (await this.claims.acquire(key, this.ownToken, this.lapseMs)) {
        this.held = true;
        this.renewedAt = sentAt;
        this.log.info(
          { instanceId: this.name },
          afterOutage
            ? "instance heartbeat held again after the store's outage"
            : "instance heartbeat held again",
        );
        for (const listener of this.regainedListeners) listener();
      } else if (this.timer) {
        this.log.error(
          { instanceId: this.name },
          "another process holds this instance's heartbeat: leaving it its jobs",
        );
        for (const listener of this.takenListeners) listener();
      }
    } catch (error) {
      // The store's outage is logged once by the store; the heartbeat is renewed at its next tick.
      if (!duringOutage(this.availability, error))
        this.log.warn({ err: error, instanceId: this.name }, "instance heartbeat not renewed");
    }
  }
}
