import { setTimeout as sleep } from "node:timers/promises";
import type { JobRecord, JobStore } from "../../store/index.js";
import type { Logger } from "../base/log.js";
import type { Liveness } from "./liveness.js";
import type { Ownership } from "./ownership.js";

/** What recovery works with: the store's jobs, their owners, and who is alive. */
export interface RecoveryContext {
  liveness: Pick<Liveness, "id" | "claim" | "release" | "instances" | "instanceAlive" | "unregister">;
  ownership: Ownership;
  store: Pick<JobStore, "getMany" | "unfinishedIds">;
}

export interface RecoveryOptions {
  log: Logger;
  /** Answers for what else `instanceId`'s last process left unfinished (starts cut short). */
  leftBehind(instanceId: string): Promise<void>;
  /** The longest a takeover may hold its gate. */
  gateMs: number;
  /** At most one orphan scan per this interval among all instances on the store. */
  orphanScanMs: number;
}

/**
 * What a scan finds, a slice at a time, for the engine to act on while the scan holds its gate:
 * jobs this instance owns now (`take` them up), or jobs it works on that another instance owns
 * now (`drop` them).
 */
export type Finding = { take: JobRecord[] } | { drop: string[] };

export type Findings = AsyncGenerator<Finding, void, undefined>;

/** Jobs taken up per batch of statements. */
const SLICE = 500;

/**
 * The list from a random place onwards, then its beginning: instances that look for orphans at the
 * same moment (replicas started together) start apart and mostly take different jobs, instead of
 * contending for the same ones slice after slice.
 */
function rotated<T>(items: T[]): T[] {
  const at = Math.floor(Math.random() * items.length);
  return [...items.slice(at), ...items.slice(0, at)];
}

/**
 * Finds the jobs this instance must look after: its own after a restart, those of instances
 * whose heartbeat lapsed, and those nobody owns (tracked before any engine ran, created by a
 * process that died before owning them, or written by an older version of the bot).
 *
 * Two instances never take the same dead instance's jobs at once, and a dead instance that
 * restarts never takes its jobs back while another is moving them: both go through the gate
 * `takeover:<dead id>`, and the mover checks under it that the heartbeat is still lapsed.
 */
export class Recovery {
  constructor(
    private readonly ctx: RecoveryContext,
    private readonly opts: RecoveryOptions,
  ) {}

  /**
   * This instance's own jobs, as its previous process left them; `restarted` (at start, not when a
   * lapsed heartbeat comes back) also answers for what else that process left: this one has
   * nothing under way yet that could be mistaken for it. With `held` (the heartbeat is back after
   * a lapse: the jobs this process works on), those another instance took over meanwhile are
   * found first, under the gate: a takeover under way finishes before they are checked.
   */
  async *ownJobs({ restarted, held }: { restarted: boolean; held?: readonly string[] }): Findings {
    const { liveness, ownership } = this.ctx;
    const me = liveness.id;
    if (!(await this.openGate(me, { wait: true }))) return;
    try {
      if (held) {
        const owners = await ownership.ownersOf(held);
        yield { drop: held.filter((_, i) => owners[i] !== me) };
      }
      const ids = await ownership.listed(me);
      const gone = yield* this.adoptEach(ids, async (slice) => {
        const owners = await ownership.ownersOf(slice);
        return slice.filter((_, i) => owners[i] === me);
      });
      await ownership.unlist(me, gone);
      if (restarted) await this.leftBehind(me);
    } finally {
      await this.closeGate(me);
    }
  }

  /** Takes over every registered instance whose heartbeat lapsed. */
  async *deadInstances(): Findings {
    const { liveness } = this.ctx;
    for (const id of await liveness.instances()) {
      if (id === liveness.id || (await liveness.instanceAlive(id))) continue;
      yield* this.takeOver(id);
    }
  }

  /** Jobs on the unfinished list that no live instance owns. */
  async *orphans({ gated }: { gated: boolean }): Findings {
    const { liveness, ownership, store } = this.ctx;
    if (gated && !(await liveness.claim("sweep:orphans", this.opts.orphanScanMs))) return;
    const listed = new Set<string>();
    for (const instance of await liveness.instances()) {
      for (const id of await ownership.listed(instance)) listed.add(id);
    }
    const candidates = rotated((await store.unfinishedIds()).filter((id) => !listed.has(id)));
    const alive = new Map<string, Promise<boolean>>();
    yield* this.adoptEach(candidates, async (slice) => {
      const holders = await ownership.ownersOf(slice);
      // Grouped by holder: nobody (taken from this instance, which takes a free claim too) or a dead one.
      const byHolder = new Map<string, string[]>();
      for (const [i, id] of slice.entries()) {
        const holder = holders[i] ?? liveness.id;
        if (holder !== liveness.id) {
          if (!alive.has(holder)) alive.set(holder, liveness.instanceAlive(holder));
          if (await alive.get(holder)) continue;
        }
        const ids = byHolder.get(holder) ?? [];
        ids.push(id);
        byHolder.set(holder, ids);
      }
      const taken: string[] = [];
      for (const [holder, ids] of byHolder)
        taken.push(...(await ownership.takeAll(ids, liveness.id, holder)));
      return taken;
    });
  }

  private async *takeOver(dead: string): Findings {
    const { liveness, ownership } = this.ctx;
    if (!(await this.openGate(dead, { wait: false }))) return;
    try {
      if (await liveness.instanceAlive(dead)) return;
      const ids = await ownership.listed(dead);
      if (ids.length > 0)
        this.opts.log.warn(
          { instanceId: dead, jobs: ids.length },
          "taking over the jobs of a lapsed instance",
        );
      yield* this.adoptEach(ids, (slice) => ownership.takeAll(slice, liveness.id, dead));
      await ownership.unlist(dead, ids);
      await this.leftBehind(dead);
      if ((await ownership.listed(dead)).length === 0) await liveness.unregister(dead);
    } finally {
      await this.closeGate(dead);
    }
  }

  /**
   * Finds the jobs `mine` answers for (it may take them first), a slice at a time: one batch of
   * statements per slice takes and reads them, whatever their number. Returns the ids that were
   * not this instance's to adopt; a slice that fails is logged and left to the next scan.
   */
  private async *adoptEach(
    ids: string[],
    mine: (slice: string[]) => Promise<string[]>,
  ): AsyncGenerator<Finding, string[], undefined> {
    const refused: string[] = [];
    for (let start = 0; start < ids.length; start += SLICE) {
      const slice = ids.slice(start, start + SLICE);
      let jobs: JobRecord[];
      try {
        const taken = await mine(slice);
        const ours = new Set(taken);
        refused.push(...slice.filter((id) => !ours.has(id)));
        jobs = await this.ctx.store.getMany(taken);
      } catch (error) {
        this.opts.log.warn({ err: error, jobs: slice.length }, "could not take up a slice of jobs");
        continue;
      }
      yield { take: jobs };
    }
    return refused;
  }

  private async leftBehind(instance: string): Promise<void> {
    await this.opts
      .leftBehind(instance)
      .catch((error: unknown) =>
        this.opts.log.warn({ err: error, instanceId: instance }, "could not answer for a lapsed instance"),
      );
  }

  /**
   * Takes the gate `takeover:<instance>`, waiting up to `gateMs` for it with `wait`; false when
   * it stays taken.
   */
  private async openGate(instance: string, { wait }: { wait: boolean }): Promise<boolean> {
    const { gateMs } = this.opts;
    const deadline = Date.now() + gateMs;
    while (!(await this.ctx.liveness.claim(gateKey(instance), gateMs))) {
      if (!wait || Date.now() >= deadline) return false;
      await sleep(50);
    }
    return true;
  }

  private async closeGate(instance: string): Promise<void> {
    await this.ctx.liveness.release(gateKey(instance));
  }
}

function gateKey(instance: string): string {
  return `takeover:${instance}`;
}
