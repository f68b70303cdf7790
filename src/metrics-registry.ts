import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * The one process-wide registry that GET /metrics shows, below every layer that counts: the
 * store feeds it as well as the core (src/core/base/metrics.ts holds the core's metrics).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Times a promise into a histogram, failures included. */
export async function timed<T>(observe: (seconds: number) => void, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    observe((performance.now() - started) / 1000);
  }
}
