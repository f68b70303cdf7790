import { describe, expect, it } from "vitest";
import { DURATIONS_MS, Jobs } from "./jobs.js";

function setup(timeScale = 1) {
  let t = 0;
  const jobs = new Jobs<{ n: number }>(() => t, timeScale);
  return { jobs, at: (ms: number) => (t = ms) };
}

describe("job clock", () => {
  it("derives the phase from the elapsed share of the duration", () => {
    const { jobs, at } = setup(0.01); // an avatar video: 1.8 s
    const job = jobs.start("k", "video", () => ({ n: 1 }));
    expect(job.durationMs).toBe(DURATIONS_MS.video * 0.01);
    const phases = [0, 100, 200, 900, 1799, 1800, 99_999].map((ms) => {
      at(ms);
      return jobs.progress(job);
    });
    expect(phases).toEqual([
      { phase: "queued", percent: 0 },
      { phase: "starting", percent: 0 },
      { phase: "working", percent: 11 },
      { phase: "working", percent: 50 },
      { phase: "working", percent: 99 },
      { phase: "done", percent: 100 },
      { phase: "done", percent: 100 },
    ]);
  });

  it("applies plans per kind in order, durations as given", () => {
    const { jobs, at } = setup();
    jobs.plan("image", { durationMs: 100, fail: "nope" });
    jobs.plan("image", { durationMs: 90, retrying: true });
    jobs.plan("video", { stallAt: 30 });
    const failing = jobs.start("k", "image", () => ({ n: 1 }));
    const retrying = jobs.start("k", "image", () => ({ n: 2 }));
    const plain = jobs.start("k", "image", () => ({ n: 3 }));
    const stalled = jobs.start("k", "video", () => ({ n: 4 }));
    expect(plain.durationMs).toBe(DURATIONS_MS.image);
    at(45);
    expect(jobs.progress(retrying).phase).toBe("retrying");
    at(100);
    expect(jobs.progress(failing).phase).toBe("failed");
    at(10_000_000);
    expect(jobs.progress(stalled)).toEqual({ phase: "working", percent: 30 });
  });

  it("holds ten thousand concurrent jobs without a timer", () => {
    const { jobs, at } = setup();
    const before = process.getActiveResourcesInfo().length;
    const all = Array.from({ length: 10_000 }, (_, n) => jobs.start("k", "thumbnail", () => ({ n })));
    at(DURATIONS_MS.thumbnail);
    expect(all.every((job) => jobs.isDone(job))).toBe(true);
    expect(process.getActiveResourcesInfo().length).toBe(before);
  });
});
