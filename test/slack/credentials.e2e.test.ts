import { describe, expect, it, vi } from "vitest";
import { jobIdOf, type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * A slash command's response_url answers for 30 minutes; a finished job's record is kept 30
 * days. Jobs post with the bot token, so the response_url is never written into the job.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

describe("a job's response_url", () => {
  it("is never written into the job's record", async () => {
    const message = await world.job("image generate a kite without its response_url");
    const job = await vi.waitFor(
      async () => {
        const stored = await world.stores.jobs.get(jobIdOf(message)!);
        expect(stored?.delivery).toBe("delivered");
        return stored!;
      },
      { timeout: 8_000, interval: 20 },
    );
    const stored = JSON.stringify(job);
    expect(stored).not.toMatch(/responseUrl|\/commands\//);
    expect(job.conversation).toMatchObject({ channelId: world.fake.channelId });
  });
});
