import type { TenantRef } from "../tenancy/tenancy.js";

/** What moves the queue (flows/queue.ts), as the rest of the flows see it. */
export interface Turns {
  /** A running place of `tenant` may have freed: start whoever's turn it is. Never throws. */
  dispatch(tenant: TenantRef): void;
  /** A start holding a place was refused (`why`): the place is given back, the next may start. */
  refused(id: string, tenant: TenantRef, why: unknown): Promise<void>;
  /** Where a person's waiting jobs stand now, on their messages. */
  show(tenant: TenantRef, userId: string): Promise<void>;
  /** The entries a dead process (this one's former self too) was preparing or starting. */
  recover(instanceId: string): Promise<void>;
  /**
   * Gives back the places `userId` holds for jobs that are over, when they hold `limit` or more: a
   * job whose outcome just came may not have given its place back yet, and its person may
   * already ask for the next.
   */
  freeEnded(tenant: TenantRef, userId: string, limit: number): Promise<void>;
  /** Runs `work`, the start of entry `id`, which recover() then leaves alone. */
  holding<T>(id: string, work: () => Promise<T>): Promise<T>;
  /** Runs `work` after the works given earlier under `key` in this process, one at a time. */
  inOrder<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Gives back the places of jobs no longer running, then starts what may start. */
  sweep(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}
