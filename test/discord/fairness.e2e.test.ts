import { describe, expect, it } from "vitest";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * One person's burst does not stall everyone else: their commands wait in a lane of their own,
 * and someone else's command is served at once.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

describe("a burst of commands from one person", () => {
  it("leaves another person's command answered within a second", async () => {
    // Each start takes the service 600 ms, and the first three jobs keep running: the burst's
    // starts wait for one another (and then in the person's queue, until it is full).
    world.emu.inject({ method: "POST", path: "/api/image/generate", delayMs: 600, times: 20 });
    for (let n = 0; n < 3; n++) world.emu.planNextJob("image", { durationMs: 30_000 });
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        world.command({ name: "image", subcommand: "generate", options: { prompt: `fox ${n}` } }),
      ),
    );
    await Promise.all(burst.map((interaction) => world.firstResponse(interaction)));

    const sent = Date.now();
    const help = await world.run({ name: "help", user: world.fake.users.other });
    const waited = Date.now() - sent;

    expect(isEphemeral(help)).toBe(true);
    expect(shown(help)).toContain("Help");
    expect(waited, `answered after ${waited} ms`).toBeLessThan(1_000);
    // The burst itself is still served, in order: three jobs, ten queued, then the queue is full.
    const answers = await Promise.all(burst.map((interaction) => world.answer(interaction)));
    expect(answers.filter((a) => shown(a).includes("ahead of you")).length).toBe(10);
    expect(answers.filter((a) => shown(a).includes("3 jobs running and 10 waiting")).length).toBe(7);
    expect(world.creations("/api/image/generate")).toHaveLength(3);
  });
});
