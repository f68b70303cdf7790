import { Gauge, Histogram } from "prom-client";
import { registry } from "../metrics-registry.js";

const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export const storeSeconds = new Histogram({
  name: "mediabot_store_seconds",
  help: "Store operations (keyv get, set, delete), by operation",
  labelNames: ["op"] as const,
  buckets: STORE_BUCKETS,
  registers: [registry],
});

/** An alert on 0 for more than a minute pages before the first person retries twice. */
export const storeAvailable = new Gauge({
  name: "mediabot_store_available",
  help: "1 while the store answers, 0 during an outage (commands are refused, jobs wait)",
  registers: [registry],
});
