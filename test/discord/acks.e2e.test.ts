import { describe, expect, it } from "vitest";
import { type DiscordWorld, discordWorldPerFile } from "./harness.js";

/**
 * Ack first over HTTP interactions: while a burst of interactions arrives, the work behind the
 * first defers (the creation calls) waits, so it cannot slow the acks still to come
 * (src/core/intake/intake.ts). Windows wider than the bot's own, so that a busy machine's pauses between
 * this test's requests do not end the burst early.
 */

let world: DiscordWorld;

discordWorldPerFile(
  (started) => {
    world = started;
  },
  { interactions: "http", intake: { quietMs: 300, maxHoldMs: 10_000 } },
);

describe("a burst of /image generate from a whole server, over HTTP interactions", () => {
  it("answers every interaction before the work behind the first starts, then serves them all", async () => {
    const members = Array.from({ length: 30 }, (_, n) => world.fake.addUser(`member${n}`));
    const burst = await Promise.all(
      members.map((user, n) =>
        world.command({ name: "image", subcommand: "generate", options: { prompt: `fox ${n}` }, user }),
      ),
    );
    await world.until(() => burst.every((i) => world.fake.interaction(i.id)?.http?.status === 200), 10_000);
    // Every defer came in its request's answer: not one callback request.
    expect(burst.flatMap((i) => world.fake.callbacks(i.id).map((c) => c.via))).toEqual(
      burst.map(() => "body"),
    );

    expect(world.creations("/api/image/generate")).toHaveLength(0);
    await world.until(() => world.creations("/api/image/generate").length === members.length, 15_000);
  });
});
