/**
 * An engine in a process of its own, for the crash test: it takes up the store's jobs and, when
 * it starts delivering one, reports it and hangs, so the test can kill it between `delivering`
 * and `delivered`. Argument: JSON { storeUrl, mediaUrl }.
 */
import { pino } from "pino";
import { createMediaClient, fetchStatus } from "../../../src/core/api/index.js";
import { createJobEngine } from "../../../src/core/jobs/engine.js";
import { scaledPolicy } from "../../../src/core/jobs/policy.js";
import { openStores } from "../../../src/store/index.js";
import { SCALE } from "./world.js";

const { storeUrl, mediaUrl } = JSON.parse(process.argv[2] ?? "{}") as { storeUrl: string; mediaUrl: string };
const logger = pino({ level: "silent" });
const stores = await openStores(storeUrl, undefined, logger);
const api = createMediaClient({ baseUrl: mediaUrl }).as("test-key");
const engine = createJobEngine({
  store: stores.jobs,
  claims: stores.claims,
  indexes: stores.indexes,
  logger,
  policy: scaledPolicy(SCALE),
  instanceId: "doomed",
  hooks: {
    fetchStatus: (job, signal) => fetchStatus(api, job.kind, job.serviceJobId, { signal }),
    showProgress: async () => {},
    deliver: (job) => {
      process.send?.({ delivering: job.id });
      return new Promise(() => {});
    },
  },
});
await engine.start();
