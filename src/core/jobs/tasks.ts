import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../base/log.js";

/**
 * The work a part of the engine starts without waiting for it (the handling of a status read, a
 * delivery, a store write in the background): a failure is logged, never thrown at nobody, and a
 * clean stop waits for what still runs, up to its deadline.
 */
export class Tasks {
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly log: Logger) {}

  hold(work: Promise<unknown>): void {
    const task = work.catch((error: unknown) => this.log.error({ err: error }, "job engine task failed"));
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
  }

  get size(): number {
    return this.running.size;
  }

  /**
   * Waits until the tasks of `all`, those started meanwhile too, are over, or `deadlineMs` (real
   * time) has passed; answers how many still run.
   */
  static async drain(all: readonly Tasks[], deadlineMs: number): Promise<number> {
    const deadline = Date.now() + deadlineMs;
    const left = () => all.reduce((sum, tasks) => sum + tasks.size, 0);
    while (left() > 0 && Date.now() < deadline) {
      const settled = Promise.allSettled(all.flatMap((tasks) => [...tasks.running]));
      await (Number.isFinite(deadlineMs)
        ? Promise.race([settled, sleep(Math.max(0, deadline - Date.now()), undefined, { ref: false })])
        : settled);
    }
    return left();
  }
}
