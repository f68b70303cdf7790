import type { JobKind } from "../api/job-status.js";

/**
 * How often and how long the engine polls, caps its calls to the service, and waits for slow
 * jobs and chat platforms. Every field whose name ends in `Ms` is a duration, which is what
 * `scaledPolicy` shrinks for tests and the benchmark.
 */

/** An interval that applies while a job is younger than `untilAgeMs` (the last step: forever). */
export interface IntervalStep {
  untilAgeMs: number;
  everyMs: number;
}

export interface KindPolicy {
  /** The interval when nothing better is known (queued, retrying, no progress figure): by age. */
  steps: IntervalStep[];
  /** The longest wait while progress says the end is still far away. */
  maxWaitMs: number;
  /** No change of state or progress for this long ends the job as failed (`job.stuck`). */
  stuckAfterMs: number;
}

export interface PollPolicy {
  kinds: Record<JobKind, KindPolicy>;
  /** Delay of the first poll after track(), resume() and start(). */
  firstPollMs: number;
  /** The shortest wait between two polls of a job. */
  minIntervalMs: number;
  /**
   * With a progress rate, wait this share of the time the job should still take (and, once it is
   * overdue, this share of how late it already is). 0.5 tolerates a rate off by a factor of two
   * without polling after the end. 0 ignores progress and polls by the age steps only.
   */
  paceFraction: number;
  /** Each wait is spread by ±this share, so jobs created together do not poll in lockstep. */
  jitter: number;
  /** Global caps toward the service: status requests started per second (sliding window), and at once. */
  maxRequestsPerSecond: number;
  maxConcurrentRequests: number;
  /** A status read that has not answered by then is aborted (the client has its own, shorter one). */
  requestTimeoutMs: number;
  /** Backoff after a failed status read: doubles per consecutive failure, from base to max. */
  errorBaseMs: number;
  errorMaxMs: number;
  /**
   * Status reads that keep failing end the job only after this long: a service outage of half an
   * hour must not fail every job in flight, but a user should not wait a whole day either.
   */
  giveUpAfterMs: number;
  /**
   * The same for answers that will not heal by waiting (401, 403, 404: a key removed, a job gone);
   * a few minutes still cover an admin fixing the key or the service being briefly inconsistent.
   */
  giveUpPermanentAfterMs: number;
  /** Progress edits of one message: at most one per this interval. */
  minEditIntervalMs: number;
  /** Progress is written to the store when it moved by this many points (state changes always are). */
  progressStep: number;
  /** Backoff of a delivery that threw (chat platform down): doubles from base to max, forever. */
  deliveryBaseMs: number;
  deliveryMaxMs: number;
  /**
   * The most a `deliver:<id>` claim lasts. Never renewed: the holder's death frees it at once
   * (liveness.ts); this only bounds a holder that lives yet never finishes.
   */
  deliveryClaimMs: number;
  /** Each instance renews its heartbeat this often... */
  heartbeatMs: number;
  /** ...and is taken for dead (its jobs taken over) when it has not for this long. */
  lapseMs: number;
  /** How often an instance looks for lapsed instances: a takeover starts within lapse + this. */
  instanceCheckMs: number;
  /** How often one instance on the store looks for jobs nobody owns. */
  orphanScanMs: number;
  /** A job taken over or resumed polls within this, whatever its kind's interval. */
  maxResumeSpreadMs: number;
  /** Photo-avatar variants nobody chose for this long expire: the job ends, the buttons go. */
  choiceExpiresAfterMs: number;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

const quickJob = (stuckAfterMs: number, maxWaitMs: number, first: number, later: number): KindPolicy => ({
  steps: [
    { untilAgeMs: MINUTE, everyMs: first },
    { untilAgeMs: 5 * MINUTE, everyMs: later },
    { untilAgeMs: Number.POSITIVE_INFINITY, everyMs: 10 * SECOND },
  ],
  maxWaitMs,
  stuckAfterMs,
});

export const DEFAULT_POLICY: PollPolicy = {
  kinds: {
    image: quickJob(10 * MINUTE, 8 * SECOND, 3 * SECOND, 4 * SECOND),
    thumbnail: quickJob(10 * MINUTE, 8 * SECOND, 3 * SECOND, 4 * SECOND),
    mockup: quickJob(15 * MINUTE, 15 * SECOND, 3 * SECOND, 5 * SECOND),
    photo_avatar: quickJob(15 * MINUTE, 15 * SECOND, 3 * SECOND, 5 * SECOND),
    video: {
      steps: [
        { untilAgeMs: 30 * SECOND, everyMs: 3 * SECOND },
        { untilAgeMs: 2 * MINUTE, everyMs: 6 * SECOND },
        { untilAgeMs: 10 * MINUTE, everyMs: 15 * SECOND },
        { untilAgeMs: Number.POSITIVE_INFINITY, everyMs: 30 * SECOND },
      ],
      maxWaitMs: 30 * SECOND,
      stuckAfterMs: 30 * MINUTE,
    },
  },
  firstPollMs: 1 * SECOND,
  minIntervalMs: 1 * SECOND,
  paceFraction: 0.5,
  jitter: 0.2,
  maxRequestsPerSecond: 50,
  maxConcurrentRequests: 16,
  requestTimeoutMs: MINUTE,
  errorBaseMs: 2 * SECOND,
  errorMaxMs: MINUTE,
  giveUpAfterMs: 30 * MINUTE,
  giveUpPermanentAfterMs: 3 * MINUTE,
  minEditIntervalMs: 5 * SECOND,
  progressStep: 10,
  deliveryBaseMs: 5 * SECOND,
  deliveryMaxMs: 5 * MINUTE,
  deliveryClaimMs: 30 * MINUTE,
  // A crashed instance's jobs are taken over within lapse + check (14 s), polled within 1 s more.
  heartbeatMs: 4 * SECOND,
  lapseMs: 12 * SECOND,
  instanceCheckMs: 2 * SECOND,
  // Reads the ids of every unfinished job: rarely, since orphans are rare (see recovery.ts).
  orphanScanMs: MINUTE,
  maxResumeSpreadMs: 1 * SECOND,
  // The service keeps variants waiting; a day covers someone who saw them the next morning.
  choiceExpiresAfterMs: 24 * 60 * MINUTE,
};

/** Fields to change; `kinds` merges per kind, so one kind can be changed alone. */
export type PolicyOverrides = Partial<Omit<PollPolicy, "kinds">> & { kinds?: Partial<PollPolicy["kinds"]> };

export function resolvePolicy(
  overrides: PolicyOverrides = {},
  base: PollPolicy = DEFAULT_POLICY,
): PollPolicy {
  return { ...base, ...overrides, kinds: { ...base.kinds, ...overrides.kinds } };
}

/**
 * The policy with every duration multiplied by `scale` (0.01: a 30-minute stuck limit becomes 18
 * seconds), so tests and the benchmark run the production rules on a compressed clock. Counts
 * and rates (requests per second, progress step, jitter) stay as they are.
 */
export function scaledPolicy(scale: number, overrides: PolicyOverrides = {}): PollPolicy {
  const scaled = scaleDurations(DEFAULT_POLICY, scale);
  // A heartbeat must outlast the event-loop stalls of a loaded machine, whatever the scale:
  // 120 ms would make busy test processes take each other's jobs.
  const liveness = {
    heartbeatMs: Math.max(scaled.heartbeatMs, LIVENESS_FLOOR.heartbeatMs),
    lapseMs: Math.max(scaled.lapseMs, LIVENESS_FLOOR.lapseMs),
    instanceCheckMs: Math.max(scaled.instanceCheckMs, LIVENESS_FLOOR.instanceCheckMs),
  };
  return resolvePolicy(overrides, { ...scaled, ...liveness });
}

const LIVENESS_FLOOR = { heartbeatMs: 200, lapseMs: 1_000, instanceCheckMs: 100 };

/**
 * Naive polling, the benchmark's baseline: one interval for every kind and age, no jitter, and
 * progress ignored. Everything else (caps, stuck limits, delivery) is `base`'s.
 */
export function fixedPolicy(everyMs: number, base: PollPolicy = DEFAULT_POLICY): PollPolicy {
  const steps = [{ untilAgeMs: Number.POSITIVE_INFINITY, everyMs }];
  const kinds = Object.fromEntries(
    Object.entries(base.kinds).map(([kind, policy]) => [kind, { ...policy, steps, maxWaitMs: everyMs }]),
  ) as PollPolicy["kinds"];
  return { ...base, kinds, firstPollMs: everyMs, jitter: 0, paceFraction: 0 };
}

function scaleDurations<T>(value: T, scale: number, key = ""): T {
  if (typeof value === "number") return (key.endsWith("Ms") ? value * scale : value) as T;
  if (Array.isArray(value)) return value.map((item) => scaleDurations(item, scale)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scaleDurations(v, scale, k)])) as T;
  }
  return value;
}

/** What the engine knows when it picks the next poll time. */
export interface PollContext {
  kind: JobKind;
  ageMs: number;
  /** Until the job should end by its progress rate; negative once overdue; undefined without a rate. */
  remainingMs: number | undefined;
}

/**
 * Wait before the next poll. Without a rate, the kind's age steps. With one, a share of the
 * remaining time: sparse while the end is far, dense as it nears (a few polls bracket it instead
 * of one every two seconds all along); past the estimate the waits grow again, up to the age step,
 * so a job that sits at 99 % is not hammered.
 */
export function pollDelay(policy: PollPolicy, ctx: PollContext, random: () => number = Math.random): number {
  const kind = policy.kinds[ctx.kind];
  const byAge = stepFor(kind.steps, ctx.ageMs);
  let delay = byAge;
  if (ctx.remainingMs !== undefined && policy.paceFraction > 0) {
    const share = Math.abs(ctx.remainingMs) * policy.paceFraction;
    delay = clamp(share, policy.minIntervalMs, ctx.remainingMs > 0 ? kind.maxWaitMs : byAge);
  }
  return Math.max(policy.minIntervalMs, jittered(delay, policy.jitter, random));
}

/**
 * First poll of a job taken up from the store (start, sweep): anywhere within one interval of
 * its kind and age, so ten thousand resumed jobs poll at their usual rate from the first second
 * instead of all at once.
 */
export function resumeDelay(
  policy: PollPolicy,
  kind: JobKind,
  ageMs: number,
  random: () => number = Math.random,
): number {
  return random() * stepFor(policy.kinds[kind].steps, ageMs);
}

function stepFor(steps: IntervalStep[], ageMs: number): number {
  const step = steps.find((s) => ageMs < s.untilAgeMs) ?? steps[steps.length - 1];
  if (!step) throw new Error("a poll policy kind needs at least one interval step");
  return step.everyMs;
}

/** Exponential backoff with equal jitter: never under half the step, so retries still spread out. */
export function backoff(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return step / 2 + random() * (step / 2);
}

export function jittered(ms: number, jitter: number, random: () => number = Math.random): number {
  return ms * (1 + jitter * (2 * random() - 1));
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
