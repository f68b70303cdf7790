import { describe, expect, it } from "vitest";
import { type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * One person's burst does not stall everyone else: their commands wait in a lane of their own,
 * and someone else's command is served at once.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

describe("a burst of /media commands from one person", () => {
  it("leaves another person's command answered within a second", async () => {
    // Each start takes the service 600 ms, and the first three jobs keep running: the burst's
    // starts wait for one another (and then in the person's queue, until it is full).
    world.emu.inject({ method: "POST", path: "/api/image/generate", delayMs: 600, times: 20 });
    for (let n = 0; n < 3; n++) world.emu.planNextJob("image", { durationMs: 30_000 });
    await Promise.all(Array.from({ length: 20 }, (_, n) => world.command(`image generate fox ${n}`)));

    const other = world.fake.users.other.id;
    const sent = Date.now();
    const help = await world.answer("help", other);
    const waited = Date.now() - sent;

    expect(help).toContain("image generate");
    expect(waited, `answered after ${waited} ms`).toBeLessThan(1_000);
    // The burst itself is still served, in order: three jobs, ten queued, then the queue is full.
    await world.until(
      () => world.ephemeralTexts().filter((t) => t.includes("3 jobs running and 10 waiting")).length === 7,
      15_000,
    );
    expect(world.creations("/api/image/generate")).toHaveLength(3);
  });
});
