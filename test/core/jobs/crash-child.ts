/**
 * An engine in a process of its own, for the crash tests, which SIGKILL it. It takes up the
 * store's jobs and reports its first status read (`polling`) or, in `deliver` mode, hangs in its
 * first delivery after reporting it (`delivering`), so the test can kill it between `delivering`
 * and `delivered`. Argument: JSON { storeUrl, mediaUrl, mode?, instanceId? }.
 */
import { pino } from "pino";
import { createMediaClient, fetchStatus } from "../../../src/core/api/index.js";
import { createJobEngine } from "../../../src/core/jobs/engine.js";
import { scaledPolicy } from "../../../src/core/jobs/policy.js";
import { openStores } from "../../../src/store/index.js";
import { SCALE } from "./world.js";

const {
  storeUrl,
  mediaUrl,
  mode = "deliver",
  instanceId = "doomed",
} = JSON.parse(process.argv[2] ?? "{}") as {
  storeUrl: string;
  mediaUrl: string;
  mode?: "deliver" | "poll";
  instanceId?: string;
};
const logger = pino({ level: "silent" });
const stores = await openStores(storeUrl, undefined, logger);
const api = createMediaClient({ baseUrl: mediaUrl }).as("test-key");
let reported = false;
const engine = createJobEngine({
  store: stores.jobs,
  claims: stores.claims,
  indexes: stores.indexes,
  logger,
  policy: scaledPolicy(SCALE),
  instanceId,
  hooks: {
    fetchStatus: (job, signal) => {
      if (mode === "poll" && !reported) {
        reported = true;
        process.send?.({ polling: job.id });
      }
      return fetchStatus(api, job.kind, job.serviceJobId, { signal });
    },
    showProgress: async () => {},
    deliver: (job) => {
      process.send?.({ delivering: job.id });
      return new Promise(() => {});
    },
  },
});
await engine.start();
