import { Batch, type Claims, type Indexes } from "../../store/index.js";

/**
 * Which instance owns which unfinished job. The truth is a claim `own:<job>` held in the
 * instance's name (changed atomically, so two instances never both win a job); an index
 * `owned:<instance>` per instance finds them again without reading every job. The index is
 * written before the claim and cleaned after it, so an owned job is always in its owner's index;
 * an index entry whose claim went elsewhere is dropped when it is read.
 *
 * Nothing here is renewed: an owner's jobs stay its own for as long as its heartbeat lives (see
 * liveness.ts). The claim's ttl only bounds what a forgotten record can hold.
 *
 * Jobs are taken and released many at a time, each batch in a few statements whatever its size:
 * an engine finding thousands of jobs at start, or finishing hundreds a second, pays per batch,
 * not per job (bench/results/jobs-50k.md, scale.md).
 */
export class Ownership {
  /** Finished jobs released together: see `release`. */
  private readonly releasing = new Batch<string>((ids) => this.releaseAll(ids), RELEASE_WINDOW_MS);

  constructor(
    private readonly claims: Claims,
    private readonly indexes: Indexes,
    private readonly ttlMs = 7 * 24 * 60 * 60 * 1000,
  ) {}

  /**
   * Makes `instance` the owner of a job that is free, already its own, or held by `from` (an
   * instance that is dead, or that let the job go). False when someone else holds it.
   */
  async take(jobId: string, instance: string, from: string = instance): Promise<boolean> {
    return (await this.takeAll([jobId], instance, from)).length > 0;
  }

  /** `take` of each job; answers the ones that are `instance`'s now, in the order given. */
  async takeAll(jobIds: readonly string[], instance: string, from: string = instance): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const at = Date.now();
    await this.indexes.addAll(
      setOf(instance),
      jobIds.map((id) => ({ id, at })),
    );
    const moved = await this.claims.transferAll(jobIds.map(ownKey), from, instance, this.ttlMs);
    const notMoved = jobIds.filter((id) => !moved.has(ownKey(id)));
    // Already this instance's (taken by an earlier try that did not finish) counts as taken.
    const owners = await this.ownersOf(notMoved);
    const refused = new Set(notMoved.filter((_, i) => owners[i] !== instance));
    await this.indexes.remove(setOf(instance), [...refused]);
    const taken = jobIds.filter((id) => !refused.has(id));
    if (from !== instance) await this.indexes.remove(setOf(from), taken);
    return taken;
  }

  /** Makes `instance` the owner whoever holds the job now (a choice made on another instance). */
  async seize(jobId: string, instance: string): Promise<void> {
    for (let tries = 0; tries < 5; tries++) {
      const holder = await this.ownerOf(jobId);
      if (await this.take(jobId, instance, holder ?? instance)) return;
    }
    throw new Error(`job ${jobId} changed owner too often to be taken`);
  }

  async ownerOf(jobId: string): Promise<string | undefined> {
    return (await this.ownersOf([jobId]))[0];
  }

  /** The owner of each job (undefined for nobody's), in the order given. */
  async ownersOf(jobIds: readonly string[]): Promise<(string | undefined)[]> {
    return jobIds.length === 0 ? [] : this.claims.owners(jobIds.map(ownKey));
  }

  /**
   * A finished job belongs to nobody any more. Released with the other jobs that finish within a
   * few milliseconds: nobody waits for it (a finished job is never polled, whoever owns it), and a
   * release lost to a crash is done by the next recovery scan, which finds the job finished.
   */
  release(jobId: string): Promise<void> {
    return this.releasing.add(jobId);
  }

  /** The jobs `instance`'s index names, oldest first (check `ownerOf` before trusting one). */
  async listed(instance: string): Promise<string[]> {
    return (await this.indexes.list(setOf(instance))).map((entry) => entry.id);
  }

  async unlist(instance: string, jobIds: readonly string[]): Promise<void> {
    await this.indexes.remove(setOf(instance), jobIds);
  }

  private async releaseAll(jobIds: string[]): Promise<void> {
    const ids = [...new Set(jobIds)];
    const owners = await this.ownersOf(ids);
    // Whoever holds a finished job's claim may lose it: there is nothing left to own.
    await this.claims.drop(ids.map(ownKey));
    const byOwner = new Map<string, string[]>();
    for (const [i, owner] of owners.entries()) {
      if (owner === undefined) continue;
      const owned = byOwner.get(owner) ?? [];
      owned.push(ids[i]!);
      byOwner.set(owner, owned);
    }
    for (const [owner, owned] of byOwner) await this.indexes.remove(setOf(owner), owned);
  }
}

/** How long finished jobs gather before their ownership is released in one batch. */
const RELEASE_WINDOW_MS = 50;

function ownKey(jobId: string): string {
  return `own:${jobId}`;
}

function setOf(instance: string): string {
  return `owned:${instance}`;
}
