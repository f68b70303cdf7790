import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import {
  createMediaClient,
  fetchStatus,
  type MediaApi,
  type MediaClient,
} from "../../../src/core/api/index.js";
import type { JobKind, NormalizedStatus } from "../../../src/core/api/job-status.js";
import type { Actor } from "../../../src/core/base/ports.js";
import type { JobHooks, TrackRequest } from "../../../src/core/jobs/contract.js";
import { createJobEngine, type JobEngine, type JobEngineOptions } from "../../../src/core/jobs/engine.js";
import { type PolicyOverrides, scaledPolicy } from "../../../src/core/jobs/policy.js";
import { type JobRecord, openStores, type Stores } from "../../../src/store/index.js";
import { type Emulator, type JobPlan, startEmulator } from "../../fakes/media-api/index.js";

/**
 * What the job tests run against: the media API emulator on the real clock (job durations given
 * in plans), the real client and normalizer for status reads, sqlite files in a temp dir, and
 * hooks that record every call. Durations of the policy are compressed a hundredfold, so a
 * 30-minute stuck limit is 18 s and a video's 15 s poll interval is 150 ms. The service's clock
 * can be moved ahead (`finishServiceJobs`), so a test can keep a job running for as long as a
 * slow machine needs to reach the point it is about, then end it at once.
 */
export const SCALE = 0.01;

/**
 * A job that runs until the test ends it with `finishServiceJobs()`: a crash test's job must still
 * be running when the instance under test takes it up, however long a loaded machine takes to start
 * the process that dies first.
 */
export const LONG_JOB_MS = 10 * 60_000;

export const actor: Actor = {
  platform: "discord",
  tenantId: "guild-1",
  userId: "user-1",
  isAdmin: false,
  roleIds: [],
};

export interface Call {
  jobId: string;
  at: number;
  status?: NormalizedStatus;
}

/** Hooks that do what the flows do, minus the chat: read the service, and write down everything. */
export class RecordingHooks implements JobHooks<JobRecord> {
  readonly reads: Call[] = [];
  readonly shown: Call[] = [];
  readonly delivered: Call[] = [];
  /** Status reads running right now, and the most at once. */
  active = 0;
  maxActive = 0;
  /** Status reads that threw (after the client's own retries). */
  failedReads = 0;
  /** Set by a test: runs before each delivery; throwing makes that delivery fail. */
  beforeDeliver: ((job: JobRecord) => Promise<void> | void) | undefined;

  constructor(private readonly api: MediaApi) {}

  async fetchStatus(job: JobRecord, signal: AbortSignal): Promise<NormalizedStatus> {
    const call: Call = { jobId: job.id, at: Date.now() };
    this.reads.push(call);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      call.status = await fetchStatus(this.api, job.kind, job.serviceJobId, { signal });
      return call.status;
    } catch (error) {
      this.failedReads += 1;
      throw error;
    } finally {
      this.active -= 1;
    }
  }

  async showProgress(job: JobRecord, status: NormalizedStatus): Promise<void> {
    this.shown.push({ jobId: job.id, at: Date.now(), status });
  }

  async deliver(job: JobRecord, status: NormalizedStatus) {
    await this.beforeDeliver?.(job);
    this.delivered.push({ jobId: job.id, at: Date.now(), status });
    return { posted: job.id };
  }

  for(list: Call[], jobId: string): Call[] {
    return list.filter((c) => c.jobId === jobId);
  }
}

export interface World {
  emulator: Emulator;
  client: MediaClient;
  api: MediaApi;
  dir: string;
  /** This test's sqlite file: a new one after every `nextTest()`. */
  readonly storeUrl: string;
  /** Opens the sqlite file (or `url`) again: what a second process, or the same after a restart, sees. */
  openStores(url?: string): Promise<Stores>;
  /** An engine over a store of its own connection, stopped (and closed) at the end. */
  engine(
    hooks: RecordingHooks,
    opts?: { policy?: PolicyOverrides; instanceId?: string; storeUrl?: string } & Partial<
      Pick<JobEngineOptions, "clock" | "leftBehind" | "intake" | "logger">
    >,
  ): Promise<{ engine: JobEngine; stores: Stores }>;
  /** Stops every engine, clears the emulator and starts a new sqlite file: tests share nothing. */
  nextTest(): Promise<void>;
  /**
   * Starts measuring how late this process's event loop runs what is due (a loaded machine's
   * lateness, which no engine can make up); `worstMs` is the largest delay seen until `stop`.
   */
  loopLag(): { worstMs(): number; stop(): void };
  /** Moves the service's clock `ms` ahead (the bot's is untouched): its jobs that had that long left are done. */
  finishServiceJobs(ms?: number): void;
  /** Starts a service job shaped by `plan` and returns what track() needs. */
  serviceJob(kind: JobKind | "cinematic" | "design", plan?: JobPlan): Promise<TrackRequest>;
  close(): Promise<void>;
}

const silent = pino({ level: "silent" });

export async function startWorld(
  clientRetries = { maxRetries: 1, minDelayMs: 5, maxDelayMs: 20 },
): Promise<World> {
  let serviceAhead = 0;
  const emulator = await startEmulator({ timeScale: SCALE, now: () => Date.now() + serviceAhead });
  const client = createMediaClient({ baseUrl: emulator.url, timeoutMs: 2_000, retries: clientRetries });
  const api = client.as("test-key");
  emulator.account("test-key").creditsLimit = 1_000_000;
  const dir = mkdtempSync(join(tmpdir(), "jobs-test-"));
  let files = 0;
  let storeUrl = `sqlite://${join(dir, "bot-0.sqlite")}`;
  const cleanups: (() => Promise<void>)[] = [];
  let engines: JobEngine[] = [];
  let photo: string | undefined;

  const world: World = {
    emulator,
    client,
    api,
    dir,
    get storeUrl() {
      return storeUrl;
    },
    openStores: async (url = storeUrl) => {
      const stores = await openStores(url, undefined, silent);
      cleanups.push(() => stores.close());
      return stores;
    },
    async engine(hooks, opts = {}) {
      const stores = await world.openStores(opts.storeUrl);
      const engine = createJobEngine({
        store: stores.jobs,
        claims: stores.claims,
        indexes: stores.indexes,
        hooks,
        logger: opts.logger ?? silent,
        availability: stores.availability,
        policy: scaledPolicy(SCALE, opts.policy),
        ...(opts.instanceId ? { instanceId: opts.instanceId } : {}),
        ...(opts.clock ? { clock: opts.clock } : {}),
        ...(opts.leftBehind ? { leftBehind: opts.leftBehind } : {}),
        ...(opts.intake ? { intake: opts.intake } : {}),
      });
      engines.push(engine);
      return { engine, stores };
    },
    loopLag() {
      const histogram = monitorEventLoopDelay({ resolution: 5 });
      histogram.enable();
      return {
        worstMs: () => histogram.max / 1e6,
        stop: () => histogram.disable(),
      };
    },
    finishServiceJobs(ms = LONG_JOB_MS) {
      serviceAhead += ms;
    },
    async nextTest() {
      await Promise.all(engines.map((engine) => engine.stop()));
      engines = [];
      serviceAhead = 0;
      emulator.reset();
      emulator.account("test-key").creditsLimit = 1_000_000;
      storeUrl = `sqlite://${join(dir, `bot-${++files}.sqlite`)}`;
    },
    async serviceJob(kind, plan = {}) {
      const planned = kind === "design" ? "photo_avatar" : kind === "mockup" ? "mockup_asset" : kind;
      emulator.planNextJob(planned, plan);
      const { jobId } = await create(kind);
      return {
        kind: kind === "cinematic" ? "video" : kind === "design" ? "photo_avatar" : kind,
        command: `${kind}.test`,
        serviceJobId: jobId,
        requester: actor,
        conversation: { platform: "discord", channelId: "channel-1" },
        message: { platform: "discord", channelId: "channel-1", messageId: `m-${jobId}` },
        inputs: { plan: { ...plan } },
      };
    },
    async close() {
      await world.nextTest();
      for (const cleanup of cleanups) await cleanup().catch(() => undefined);
      await client.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };

  function create(kind: JobKind | "cinematic" | "design"): Promise<{ jobId: string }> {
    switch (kind) {
      case "image":
        return api.images.generate({ prompt: "a red fox in snow", name: "fox" });
      case "video":
        return api.videos.create({
          avatarId: "cm2yaz9j10008l0qg9npyjgs3",
          voiceId: "1",
          name: "hello",
          text: "Hi.",
        });
      case "cinematic":
        return api.videos.createCinematic({ name: "waves", prompt: "waves at dusk" });
      case "thumbnail":
        return api.thumbnails.generate({ prompt: "a bold title", name: "thumb" });
      case "mockup":
        return api.mockups.generateAsset({ prompt: "a coffee cup", type: "product" });
      case "design":
        return api.photoAvatars.createDesign({ name: "me", design: { gender: "female" } });
      case "photo_avatar":
        photo ??= emulator.seedMedia("test-key", { contentType: "image/png" });
        return api.photoAvatars.enhanceSelfie({ name: "me", prompt: "smile", photoMediaId: photo });
    }
  }

  return world;
}

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 8_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}
