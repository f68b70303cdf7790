import { describe, expect, it } from "vitest";
import { type DiscordWorld, discordWorldPerFile } from "./harness.js";

/**
 * Ack first over the gateway: an interaction the gateway sends is an arrival at the bot's intake
 * (src/discord/gateway.ts), so while a burst of them arrives the work behind the first defers
 * (the creation calls) waits and cannot slow the defers still to come, as over HTTP
 * (acks.e2e.test.ts). The interactions come one after another, each once the one before was
 * deferred, so that work let go early would have time to reach the service; windows wider than
 * the bot's own, so that a busy machine's pauses between them do not end the burst.
 */

let world: DiscordWorld;

discordWorldPerFile(
  (started) => {
    world = started;
  },
  { interactions: "gateway", intake: { quietMs: 1_000, maxHoldMs: 20_000 } },
);

describe("a burst of /image generate from a whole server, over the gateway", () => {
  it("defers every interaction before the work behind the first starts, then serves them all", async () => {
    const members = Array.from({ length: 30 }, (_, n) => world.fake.addUser(`member${n}`));
    const burst = [];
    for (const [n, user] of members.entries()) {
      const sent = await world.command({
        name: "image",
        subcommand: "generate",
        options: { prompt: `fox ${n}` },
        user,
      });
      await world.until(() => world.fake.callbacks(sent.id).length > 0, 10_000);
      burst.push(sent);
    }
    expect(burst.map((i) => world.fake.callbacks(i.id)[0]?.type)).toEqual(burst.map(() => 5));

    expect(world.creations("/api/image/generate")).toHaveLength(0);
    await world.until(() => world.creations("/api/image/generate").length === members.length, 15_000);
  });
});
