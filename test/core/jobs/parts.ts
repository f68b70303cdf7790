import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { JobKind } from "../../../src/core/api/job-status.js";
import { type JobRecord, openStores, type Stores } from "../../../src/store/index.js";

/**
 * For the tests of one part of the engine alone (poller, choices, recovery): a real sqlite file
 * per test, and jobs recorded in it as track() records them.
 */

export const silent = pino({ level: "silent" });

export interface Store {
  stores: Stores;
  /** A job recorded as track() records it (queued, nobody's). */
  job(kind?: JobKind): Promise<JobRecord>;
  close(): Promise<void>;
}

export async function openStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), "jobs-part-"));
  const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`, undefined, silent);
  let n = 0;
  return {
    stores,
    job: (kind = "image") =>
      stores.jobs.create({
        kind,
        command: `${kind}.test`,
        serviceJobId: `service-${++n}`,
        requester: { platform: "discord", tenantId: "guild-1", userId: "user-1" },
        conversation: { platform: "discord", channelId: "channel-1" },
        message: { platform: "discord", channelId: "channel-1", messageId: `m-${n}` },
        inputs: {},
      }),
    async close() {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A promise the test settles itself. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
