import { describe, expect, it } from "vitest";
import { type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * Ack first: while a burst of commands arrives, the work behind the first acks (looking the
 * person up, the creation call) waits, so it cannot slow the acks still to come (src/core/intake/intake.ts).
 * Windows wider than the bot's own, so that a busy machine's pauses between this test's requests
 * do not end the burst early.
 */

let world: SlackWorld;
slackWorldPerFile(
  (started) => {
    world = started;
  },
  { intake: { quietMs: 300, maxHoldMs: 10_000 } },
);

describe("a burst of /media commands from a whole team", () => {
  it("acknowledges every command before the work behind the first starts, then serves them all", async () => {
    const team = Array.from({ length: 30 }, (_, n) => world.fake.addUser(`member${n}`).id);
    const atEachAck = await Promise.all(
      team.map(async (user, n) => {
        await world.command(`image generate a fox number ${n}`, user);
        return {
          lookups: world.fake.calls.filter((c) => c.method === "users.info").length,
          creations: world.creations("/api/image/generate").length,
        };
      }),
    );

    expect(atEachAck).toEqual(team.map(() => ({ lookups: 0, creations: 0 })));
    await world.until(() => world.creations("/api/image/generate").length === team.length, 15_000);
    await world.until(() => world.jobCount() === team.length, 15_000);
  });
});
