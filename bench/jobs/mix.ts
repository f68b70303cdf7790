import type { JobKind } from "../../src/core/api/job-status.js";
import type { PlannedKind } from "../../test/fakes/media-api/index.js";
import { seededRandom } from "../random.js";

/**
 * What a busy bot tracks at once, in service time: mostly images (tens of seconds), a fifth of
 * avatar videos (minutes), and the rest in between. Durations are drawn uniformly in each range
 * with a fixed seed, so every run and both strategies face the same jobs.
 */
export interface MixEntry {
  label: string;
  /** How the emulator plans it. */
  planned: PlannedKind;
  /** How the engine polls it. */
  kind: JobKind;
  share: number;
  minMs: number;
  maxMs: number;
}

export const MIX: MixEntry[] = [
  { label: "image", planned: "image", kind: "image", share: 0.4, minMs: 10_000, maxMs: 45_000 },
  { label: "thumbnail", planned: "thumbnail", kind: "thumbnail", share: 0.1, minMs: 10_000, maxMs: 30_000 },
  {
    label: "mockup asset",
    planned: "mockup_asset",
    kind: "mockup",
    share: 0.05,
    minMs: 15_000,
    maxMs: 40_000,
  },
  {
    label: "photo avatar",
    planned: "photo_avatar",
    kind: "photo_avatar",
    share: 0.05,
    minMs: 25_000,
    maxMs: 60_000,
  },
  {
    label: "mockup video",
    planned: "mockup_video",
    kind: "mockup",
    share: 0.1,
    minMs: 40_000,
    maxMs: 90_000,
  },
  { label: "cinematic", planned: "cinematic", kind: "video", share: 0.1, minMs: 60_000, maxMs: 150_000 },
  { label: "avatar video", planned: "video", kind: "video", share: 0.2, minMs: 60_000, maxMs: 180_000 },
];

export interface PlannedJob {
  entry: MixEntry;
  durationMs: number;
}

/** `count` jobs in the mix's shares, in a shuffled order. */
export function drawJobs(count: number, seed = 20_250_115): PlannedJob[] {
  const random = seededRandom(seed);
  const jobs = MIX.flatMap((entry) =>
    Array.from({ length: Math.round(count * entry.share) }, () => ({
      entry,
      durationMs: Math.round(entry.minMs + random() * (entry.maxMs - entry.minMs)),
    })),
  ).slice(0, count);
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j]!, jobs[i]!];
  }
  return jobs;
}
