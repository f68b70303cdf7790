import PQueue from "p-queue";
import type { Intake } from "./intake.js";

/**
 * The work the core does for the adapters' gestures, with a few shared slots and one lane per
 * person. A person's gestures run one after the other in their lane and only the one at its
 * head waits for a shared slot, so twenty commands sent at once by one person take one slot,
 * not all of them, and someone else's command is served next. It also means a person waiting
 * for their own job limit (starts of one person run one at a time) waits in their lane, not in a
 * shared slot.
 */
export class FairQueue {
  private readonly shared: PQueue;
  private readonly lanes = new Map<string, PQueue>();

  /** `intake`: the requests this work answers; it waits while a burst of them arrives (intake.ts). */
  constructor(
    concurrency: number,
    private readonly intake?: Intake,
  ) {
    this.shared = new PQueue({ concurrency });
  }

  /** Runs `task` in `lane` (one per person: platform, tenant and user) once a shared slot is free. */
  add(lane: string, task: () => Promise<unknown>): Promise<void> {
    let queue = this.lanes.get(lane);
    if (!queue) {
      queue = new PQueue({ concurrency: 1 });
      this.lanes.set(lane, queue);
    }
    const own = queue;
    return own
      .add(() =>
        this.shared.add(async () => {
          await this.intake?.settled();
          await task();
        }),
      )
      .finally(() => {
        if (own.size === 0 && own.pending === 0 && this.lanes.get(lane) === own) this.lanes.delete(lane);
      });
  }

  /** Resolves once every task added so far has run. */
  async onIdle(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.onIdle()));
    await this.shared.onIdle();
  }
}

/** The lane of a person. */
export const laneOf = (platform: string, tenantId: string, userId: string) =>
  `${platform}:${tenantId}:${userId}`;
