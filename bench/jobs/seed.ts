import { pino } from "pino";
import type { MediaApi } from "../../src/core/api/index.js";
import { createJobEngine } from "../../src/core/jobs/engine.js";
import { openStores, type Stores } from "../../src/store/index.js";
import type { PlannedKind } from "../../test/fakes/media-api/index.js";
import type { PlannedJob } from "./mix.js";

export interface SeededJob {
  /** Our job id (the store's). */
  id: string;
  label: string;
  durationMs: number;
}

/**
 * Creates the service jobs (the emulator's clock stands still meanwhile, so they all start at
 * "go") and their records in a sqlite store, as a bot that crashed with them in flight would have
 * left them. Jobs of one kind are created one after another, in the order their plans were
 * handed to the emulator, so each gets its planned duration. With `ownedBy`, a replica of that
 * name takes them all up and stops: its jobs wait for another one to take them over.
 *
 * With `createdAt` (the moment the emulator's clock stopped, which the bot's clock maps onto
 * "go"), every record is stamped then: a bot records a job right after the service accepted it,
 * so a record's age is its service job's age. Stamped as the seeding goes, the records would look
 * up to the whole seeding (about 50 s) younger than their jobs.
 */
export async function seedJobs(
  api: MediaApi,
  planned: PlannedJob[],
  storeUrl: string,
  media: { imageMediaId: string },
  { ownedBy, createdAt }: { ownedBy?: string; createdAt?: number } = {},
): Promise<SeededJob[]> {
  const mockup = await api.mockups.generate({
    productMediaId: media.imageMediaId,
    instruction: "logo on cup",
  });
  const mockupId = mockup.jobId;
  if (!mockupId)
    throw new Error("the emulator's mockup generation answered without a jobId (the mockup's id)");
  const create: Record<PlannedKind, () => Promise<{ jobId: string }>> = {
    image: () => api.images.generate({ prompt: "a red fox in snow", name: "fox" }),
    thumbnail: () => api.thumbnails.generate({ prompt: "big bold title", name: "thumb" }),
    mockup_asset: () => api.mockups.generateAsset({ prompt: "a coffee cup", type: "product" }),
    photo_avatar: () =>
      api.photoAvatars.enhanceSelfie({ name: "me", prompt: "smile", photoMediaId: media.imageMediaId }),
    mockup_video: () => api.mockups.video({ mockupId, animationStyle: "luxury_macro" }),
    cinematic: () => api.videos.createCinematic({ name: "waves", prompt: "waves at dusk" }),
    video: () =>
      api.videos.create({
        avatarId: "cm2yaz9j10008l0qg9npyjgs3",
        voiceId: "1",
        name: "hello",
        text: "Hello there.",
      }),
  };
  const serviceIds = new Map<PlannedJob, string>();
  const byKind = new Map<PlannedKind, PlannedJob[]>();
  for (const job of planned) {
    const list = byKind.get(job.entry.planned) ?? [];
    list.push(job);
    byKind.set(job.entry.planned, list);
  }
  await Promise.all(
    [...byKind].map(async ([kind, jobs]) => {
      for (const job of jobs) serviceIds.set(job, (await create[kind]()).jobId);
    }),
  );

  const stores = await openStores(storeUrl, undefined, pino({ level: "warn" }));
  const seeded: SeededJob[] = [];
  // The store stamps its records with Date.now() and takes no clock: held still while it writes them.
  const clock = Date.now;
  if (createdAt !== undefined) Date.now = () => createdAt;
  try {
    for (const [i, job] of planned.entries()) {
      const user = `user-${i % 500}`;
      const record = await stores.jobs.create({
        kind: job.entry.kind,
        command: `bench.${job.entry.label.replace(" ", "_")}`,
        serviceJobId: serviceIds.get(job)!,
        requester: { platform: "discord", tenantId: "guild-1", userId: user },
        conversation: { platform: "discord", channelId: "channel-1" },
        message: { platform: "discord", channelId: "channel-1", messageId: `message-${i}` },
        inputs: { prompt: "bench" },
      });
      seeded.push({ id: record.id, label: job.entry.label, durationMs: job.durationMs });
    }
  } finally {
    Date.now = clock;
  }
  if (ownedBy) await takenUpAndStopped(stores, ownedBy);
  await stores.close();
  return seeded;
}

/**
 * A real engine named `instanceId` takes up every job and stops before it reads any status: its
 * heartbeat is gone, its jobs are still its own. (A replica killed instead would leave the same,
 * once its heartbeat lapsed.)
 */
async function takenUpAndStopped(stores: Stores, instanceId: string): Promise<void> {
  const engine = createJobEngine({
    store: stores.jobs,
    claims: stores.claims,
    indexes: stores.indexes,
    logger: pino({ level: "warn" }),
    instanceId,
    hooks: {
      fetchStatus: (_job, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      async showProgress() {},
      async deliver() {
        return undefined;
      },
    },
  });
  await engine.start();
  await engine.stop();
}
