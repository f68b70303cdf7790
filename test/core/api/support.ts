import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach } from "vitest";
import {
  createMediaClient,
  fetchStatus,
  type JobKind,
  type MediaApi,
  type MediaClient,
  type MediaClientOptions,
  type NormalizedStatus,
} from "../../../src/core/api/index.js";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../fakes/media-api/index.js";

export { filePart, generatedBytes, sha256Of } from "./bytes.js";

export const KEY = "test-key";
export const OTHER_KEY = "other-key";

/** A job that stays in progress until a test moves the service's clock past it. */
export const LONG_JOB_MS = 10 * 60_000;

/**
 * One emulator and one client per test file, reset before every test. Backoff is short so the
 * retry tests stay fast; everything else is the client as the bot builds it. The service's clock
 * can be moved ahead (`advanceService`): a test that reads a job in progress keeps it there for
 * as long as a loaded machine takes to read it, then moves it on.
 */
export function useEmulator(
  emulatorOptions: EmulatorOptions = {},
  clientOptions: Partial<MediaClientOptions> = {},
) {
  let ahead = 0;
  const ctx = {} as {
    emu: Emulator;
    client: MediaClient;
    api: MediaApi;
    /** Moves the service's clock `ms` ahead (default: past any LONG_JOB_MS job). */
    advanceService(ms?: number): void;
  };
  ctx.advanceService = (ms = LONG_JOB_MS) => {
    ahead += ms;
  };
  beforeAll(async () => {
    const now = emulatorOptions.now ?? Date.now;
    ctx.emu = await startEmulator({ timeScale: 0.001, ...emulatorOptions, now: () => now() + ahead });
    ctx.client = createMediaClient({
      baseUrl: ctx.emu.url,
      timeoutMs: 5_000,
      retries: { minDelayMs: 5, maxDelayMs: 2_000 },
      ...clientOptions,
    });
    ctx.api = ctx.client.as(KEY);
  });
  beforeEach(() => {
    ahead = 0;
    ctx.emu.reset();
  });
  afterAll(async () => {
    await ctx.client?.close();
    await ctx.emu?.close();
  });
  return ctx;
}

/** Polls the job's status endpoint through the client until `done` says so. */
export async function pollUntil(
  api: MediaApi,
  kind: JobKind,
  jobId: string,
  done: (status: NormalizedStatus) => boolean = (s) => s.terminal,
  timeoutMs = 5_000,
): Promise<NormalizedStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetchStatus(api, kind, jobId);
    if (done(status)) return status;
    if (Date.now() > deadline)
      throw new Error(`${kind} job ${jobId} still ${status.state} after ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** Expects the promise to reject and hands back what it rejected with. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
