import { newId } from "./ids.js";
import type { JobPlan, PlannedKind } from "./types.js";

/**
 * Default job durations (ms) at timeScale 1, roughly what the real service takes.
 *
 * | duration key         | default |
 * |----------------------|---------|
 * | video (avatar)       | 180 s   |
 * | cinematic            | 120 s   |
 * | photo_avatar_design  | 40 s    |
 * | photo_avatar_enhance | 30 s    |
 * | image                | 20 s    |
 * | mockup_asset         | 20 s    |
 * | mockup_video         | 60 s    |
 * | thumbnail            | 15 s    |
 * | mockup (generate)    | 0 s: synchronous |
 */
export const DURATIONS_MS = {
  video: 180_000,
  cinematic: 120_000,
  photo_avatar_design: 40_000,
  photo_avatar_enhance: 30_000,
  image: 20_000,
  mockup_asset: 20_000,
  mockup_video: 60_000,
  thumbnail: 15_000,
  mockup: 0,
} as const;

export type DurationKey = keyof typeof DURATIONS_MS;

const PLAN_KIND: Record<DurationKey, PlannedKind | undefined> = {
  video: "video",
  cinematic: "cinematic",
  photo_avatar_design: "photo_avatar",
  photo_avatar_enhance: "photo_avatar",
  image: "image",
  mockup_asset: "mockup_asset",
  mockup_video: "mockup_video",
  thumbnail: "thumbnail",
  mockup: undefined,
};

/** Timing of a job plus what its kind needs to answer status requests. */
export interface Job<D> {
  id: string;
  owner: string;
  createdAt: number;
  durationMs: number;
  plan: JobPlan;
  detail: D;
}

export type JobTiming = Pick<Job<unknown>, "createdAt" | "durationMs" | "plan">;

/**
 * Where a job stands, as shares of its duration: queued for the first 5 %, starting until 10 %,
 * then working with progress; with `retrying` the middle third is spent retrying. Each kind maps
 * these onto its own status words.
 */
export type Phase = "queued" | "starting" | "working" | "retrying" | "done" | "failed";

export interface Progress {
  phase: Phase;
  /** Whole percent, 0-100. */
  percent: number;
}

/**
 * Jobs keep no timers: their state is computed from the clock on every status request, so ten
 * thousand concurrent jobs cost ten thousand small records and nothing else.
 */
export class Jobs<D> {
  private readonly byId = new Map<string, Job<D>>();
  private readonly plans = new Map<PlannedKind, JobPlan[]>();

  constructor(
    private readonly now: () => number,
    private readonly timeScale: number,
  ) {}

  plan(kind: PlannedKind, plan: JobPlan): void {
    const queue = this.plans.get(kind) ?? [];
    queue.push(plan);
    this.plans.set(kind, queue);
  }

  /**
   * Starts a job, shaped by the next plan of its kind. `describe` receives the job before it is
   * stored, so results can be registered with a readiness that depends on it.
   */
  start(owner: string, durationKey: DurationKey, describe: (job: JobTiming & { id: string }) => D): Job<D> {
    const planKind = PLAN_KIND[durationKey];
    const plan = (planKind && this.plans.get(planKind)?.shift()) ?? {};
    const timing = {
      id: newId(),
      createdAt: this.now(),
      durationMs: plan.durationMs ?? DURATIONS_MS[durationKey] * this.timeScale,
      plan,
    };
    const job: Job<D> = { ...timing, owner, detail: describe(timing) };
    this.byId.set(job.id, job);
    return job;
  }

  find(id: string): Job<D> | undefined {
    return this.byId.get(id);
  }

  progress(job: JobTiming): Progress {
    const elapsed = this.now() - job.createdAt;
    const share = job.durationMs <= 0 ? 1 : elapsed / job.durationMs;
    const percent = Math.min(100, Math.max(0, Math.floor(share * 100)));
    const { stallAt, fail, retrying } = job.plan;
    if (stallAt !== undefined && percent >= stallAt) return { phase: "working", percent: stallAt };
    if (share >= 1) return { phase: fail === undefined ? "done" : "failed", percent: 100 };
    if (share < 0.05) return { phase: "queued", percent: 0 };
    if (share < 0.1) return { phase: "starting", percent: 0 };
    if (retrying && share >= 1 / 3 && share < 2 / 3) return { phase: "retrying", percent: 33 };
    return { phase: "working", percent: Math.max(1, percent) };
  }

  isDone(job: JobTiming): boolean {
    return this.progress(job).phase === "done";
  }

  clear(): void {
    this.byId.clear();
    this.plans.clear();
  }
}
