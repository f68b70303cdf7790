import type { Claims, Indexes } from "../../store/index.js";

/**
 * Which instance owns which unfinished job. The truth is a claim `own:<job>` held in the
 * instance's name (changed atomically, so two instances never both win a job); an index
 * `owned:<instance>` per instance finds them again without reading every job. The index is
 * written before the claim and cleaned after it, so an owned job is always in its owner's index;
 * an index entry whose claim went elsewhere is dropped when it is read.
 *
 * Nothing here is renewed: an owner's jobs stay its own for as long as its heartbeat lives (see
 * liveness.ts). The claim's ttl only bounds what a forgotten record can hold.
 */
export class Ownership {
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
    await this.indexes.add(setOf(instance), { id: jobId, at: Date.now() });
    const key = ownKey(jobId);
    const taken =
      (await this.claims.transfer(key, from, instance, this.ttlMs)) ||
      (await this.claims.holder(key))?.owner === instance;
    if (!taken) {
      await this.indexes.remove(setOf(instance), [jobId]);
      return false;
    }
    if (from !== instance) await this.indexes.remove(setOf(from), [jobId]);
    return true;
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
    return (await this.claims.holder(ownKey(jobId)))?.owner;
  }

  /** A finished job belongs to nobody any more. */
  async release(jobId: string): Promise<void> {
    const owner = await this.ownerOf(jobId);
    if (owner === undefined) return;
    await this.claims.release(ownKey(jobId), owner);
    await this.indexes.remove(setOf(owner), [jobId]);
  }

  /** The jobs `instance`'s index names, oldest first (check `ownerOf` before trusting one). */
  async listed(instance: string): Promise<string[]> {
    return (await this.indexes.list(setOf(instance))).map((entry) => entry.id);
  }

  async unlist(instance: string, jobIds: readonly string[]): Promise<void> {
    await this.indexes.remove(setOf(instance), jobIds);
  }
}

function ownKey(jobId: string): string {
  return `own:${jobId}`;
}

function setOf(instance: string): string {
  return `owned:${instance}`;
}
