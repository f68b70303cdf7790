import { Counter, Gauge, Histogram } from "prom-client";
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

/** The Redis primary the bot is on: one series, `node="10.0.0.5:6379"`, none while it has none. */
export const storeNode = new Gauge({
  name: "mediabot_store_node",
  help: "The Redis primary the bot is connected to (value 1, its address in the label); no series while it has none",
  labelNames: ["node"] as const,
  registers: [registry],
});

/** Each time the bot found the primary elsewhere than before (a promotion, a moved address). */
export const storeFailovers = new Counter({
  name: "mediabot_store_failovers_total",
  help: "Times the bot followed the Redis primary to another node (Sentinel's promotion, a managed failover)",
  registers: [registry],
});

/**
 * How long the writes the once-only guarantees rest on waited for a replica before the bot acted
 * (redis-link.ts `replicated`); 0 when the primary has no replica in sync. Its count per job is
 * the acknowledgements a job costs.
 */
export const storeReplicaAckSeconds = new Histogram({
  name: "mediabot_store_replica_ack_seconds",
  help: "Time a write the once-only guarantees rest on waited for a Redis replica's acknowledgement (WAIT)",
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5],
  registers: [registry],
});
