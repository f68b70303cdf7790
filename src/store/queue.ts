import type { StoreConnection } from "./keyv.js";
import type { QueueOptions, QueueStore } from "./queue-entries.js";
import { redisQueue } from "./queue-redis.js";
import { sqliteQueue } from "./queue-sqlite.js";

export type {
  Cancel,
  Enqueued,
  NewEntry,
  QueueEntry,
  QueueLimits,
  QueueOptions,
  QueueState,
  QueueStore,
} from "./queue-entries.js";
export { ENDED, QUEUED } from "./queue-entries.js";

export async function openQueue(connection: StoreConnection, options: QueueOptions): Promise<QueueStore> {
  return connection.kind === "sqlite"
    ? sqliteQueue(connection.query, options)
    : redisQueue(connection.client, options);
}
