export interface Clock {
  now(): number;
  /** Moves this clock (and only this clock) forward: token ages and deadlines follow it, timers do not. */
  advance(ms: number): void;
}

export function createClock(base: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => base() + offset,
    advance(ms) {
      if (ms < 0) throw new RangeError("the clock only moves forward");
      offset += ms;
    },
  };
}
