import { expect, it } from "vitest";
import { Recent } from "../../src/slack/recent.js";
import { describeEachBackend } from "../store/backends.js";

/** Slack's redelivery of a gesture may reach another replica: it is still recognised as seen. */

describeEachBackend("recent Slack deliveries", (ctx) => {
  it("one of several replicas offered the same trigger at once takes it; a new trigger is first again", async () => {
    const replicas = await Promise.all(
      ["a", "b", "c"].map(async (id) => new Recent((await ctx.open()).claims, id)),
    );
    const firsts = await Promise.all(replicas.map((r) => r.first("trigger:1")));
    expect(firsts.filter(Boolean)).toHaveLength(1);
    expect(await replicas[1]!.first("trigger:1")).toBe(false);
    expect(await replicas[2]!.first("trigger:2")).toBe(true);
  });

  it("forgets a delivery once its time is over", async () => {
    const recent = new Recent((await ctx.open()).claims, "a", { ttlMs: 50 });
    expect(await recent.first("event:1")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await recent.first("event:1")).toBe(true);
  });
});
