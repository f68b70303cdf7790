import type { PollPolicy } from "../src/core/jobs/policy.js";
import { ManualClock } from "./fakes/media-api/harness.js";

const MINUTE = 60_000;

/**
 * A media service whose jobs end when the test says and never by themselves: the emulator runs on
 * a clock that stands still until the test moves it, so a job planned for a minute ends once the
 * clock has moved a minute, however slow or loaded the machine. A job on a still clock shows no
 * progress, so the bot's stuck limit for images is raised past any test's length (polls stay as
 * frequent as in the other worlds). Pass `emulator` and `policy` to a world per file.
 */
export function heldService() {
  const clock = new ManualClock();
  return {
    clock,
    emulator: { now: clock.now },
    policy: (scaled: PollPolicy): PollPolicy => ({
      ...scaled,
      kinds: { ...scaled.kinds, image: { ...scaled.kinds.image, stuckAfterMs: 10 * MINUTE } },
    }),
  };
}

/**
 * The most jobs that were running at the service when one of `calls` was created, each call's job
 * lasting its planned duration (a job ends at the instant its duration has passed).
 */
export function mostRunningAtCreation(calls: { at: number }[], durationsMs: number[]): number {
  const ends = calls.map((call, i) => call.at + durationsMs[i]!);
  return Math.max(0, ...calls.map((call, i) => ends.slice(0, i).filter((end) => end > call.at).length));
}
