import { pathMatches } from "./paths.js";
import type { Fault } from "./types.js";

interface Armed {
  fault: Fault;
  skip: number;
  times: number;
}

/** Faults wait for matching requests, let `skip` of them pass, then fire `times` times. */
export class Faults {
  private armed: Armed[] = [];

  inject(fault: Fault): void {
    this.armed.push({ fault, skip: fault.skip ?? 0, times: fault.times ?? 1 });
  }

  /** The fault to apply to this request, if any; every armed fault that matches counts it. */
  take(method: string, path: string): Fault | undefined {
    let hit: Fault | undefined;
    for (const armed of this.armed) {
      const { fault } = armed;
      if (fault.method && fault.method.toUpperCase() !== method) continue;
      if (!pathMatches(fault.path, path)) continue;
      if (armed.skip > 0) {
        armed.skip--;
      } else if (!hit) {
        hit = fault;
        armed.times--;
      }
    }
    this.armed = this.armed.filter((armed) => armed.times > 0);
    return hit;
  }

  clear(): void {
    this.armed = [];
  }
}
