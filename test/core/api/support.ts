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

/**
 * One emulator and one client per test file, reset before every test. Backoff is short so the
 * retry tests stay fast; everything else is the client as the bot builds it.
 */
export function useEmulator(
  emulatorOptions: EmulatorOptions = {},
  clientOptions: Partial<MediaClientOptions> = {},
) {
  const ctx = {} as { emu: Emulator; client: MediaClient; api: MediaApi };
  beforeAll(async () => {
    ctx.emu = await startEmulator({ timeScale: 0.001, ...emulatorOptions });
    ctx.client = createMediaClient({
      baseUrl: ctx.emu.url,
      timeoutMs: 5_000,
      retries: { minDelayMs: 5, maxDelayMs: 2_000 },
      ...clientOptions,
    });
    ctx.api = ctx.client.as(KEY);
  });
  beforeEach(() => ctx.emu.reset());
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
