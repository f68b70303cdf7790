import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { Batch } from "../../src/store/batch.js";

it("gathers what is added within its window into one run, and runs a full batch at once", async () => {
  const runs: number[][] = [];
  const batch = new Batch<number>(async (items) => void runs.push(items), 30, 3);
  const first = [batch.add(1), batch.add(2)];
  await sleep(5);
  first.push(batch.add(3)); // full: runs now, without waiting for the window
  await Promise.all(first);
  expect(runs).toEqual([[1, 2, 3]]);

  const late = batch.add(4);
  await sleep(5);
  expect(runs).toHaveLength(1);
  await late;
  expect(runs).toEqual([[1, 2, 3], [4]]);
});

it("settles every caller of a run with its outcome", async () => {
  const batch = new Batch<string>(async () => {
    throw new Error("store away");
  }, 5);
  const results = await Promise.allSettled([batch.add("a"), batch.add("b")]);
  expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
});
