import { beforeEach, describe, expect, it } from "vitest";
import { CANCEL_QUEUED } from "../../src/core/render/queue.js";
import { heldService, mostRunningAtCreation } from "../held-service.js";
import { until } from "../main-process.js";
import { type DiscordWorld, discordWorldPerFile, ended, shown } from "./harness.js";

/**
 * The queue through the real discord.js client: commands past the running limit (3) answer
 * "Queued" at once on their own message, which becomes the job's when it starts; Cancel costs
 * nothing; a cancel racing the start is one or the other; people take turns under a server limit.
 * The service's jobs end only when a test moves its clock, so what runs and what waits at each
 * step does not depend on how fast the machine is.
 */

const service = heldService();
/** A job planned for this long ends at the first move of the clock by as much. */
const FIRST = 60_000;
/** Outlasts that move: such a job ends only at a move of its own. */
const HELD = 600_000;

let world: DiscordWorld;
discordWorldPerFile(
  (started) => {
    world = started;
  },
  { emulator: service.emulator, policy: service.policy },
);

const tenant = () => ({ platform: "discord" as const, tenantId: world.fake.guild.id });

/** The prompts of the image creation calls, in the order the service received them. */
const started = () =>
  world.creations("/api/image/generate").map((call) => (call.json as { prompt: string }).prompt);

const image = (prompt: string, user = world.fake.users.requester) =>
  world.command({ name: "image", subcommand: "generate", options: { prompt }, user });

const plan = (...durations: number[]) => {
  for (const durationMs of durations) world.emu.planNextJob("image", { durationMs });
};

/** Resolves once no job of the tenant holds a running place. */
async function placesFree(): Promise<void> {
  await until(
    async () => (await world.stores.queue.slots(tenant())).length === 0,
    15_000,
    () => "the tests before still hold running places",
  );
}

// The jobs of the test before give their places back once their results are delivered.
beforeEach(placesFree);

describe("jobs past the running limit on Discord", () => {
  it("five commands with a limit of three: three run, two wait showing their places, then start in order with one call each", async () => {
    const before = started().length;
    const durations = [FIRST, HELD, HELD, HELD, HELD];
    plan(...durations);
    const asked = [];
    for (const prompt of ["d1", "d2", "d3", "d4", "d5"]) {
      const interaction = await image(prompt);
      await world.answer(interaction);
      asked.push(interaction);
    }
    expect(started().slice(before)).toEqual(["d1", "d2", "d3"]);
    expect(shown(await world.answer(asked[3]!))).toContain("Queued: 0 ahead of you");
    expect(shown(await world.answer(asked[4]!))).toContain("Queued: 1 ahead of you");
    world.controlId(await world.answer(asked[4]!), CANCEL_QUEUED);

    // The first ends: the fourth starts, on its own message, and the fifth moves up, still waiting.
    service.clock.advance(FIRST);
    expect(ended(await world.jobMessage(asked[0]!))).toBe(true);
    await world.until(() => started().length >= before + 4);
    await world.jobMessage(asked[3]!, (m) => !shown(m).includes("ahead of you"));
    await world.jobMessage(asked[4]!, (m) => shown(m).includes("Queued: 0 ahead of you"));
    expect(started().slice(before)).toEqual(["d1", "d2", "d3", "d4"]);

    // The other three end: the fifth starts, then ends in turn.
    service.clock.advance(HELD);
    await world.until(() => started().length >= before + 5);
    service.clock.advance(HELD);
    for (const interaction of asked) expect(ended(await world.jobMessage(interaction))).toBe(true);
    expect(started().slice(before)).toEqual(["d1", "d2", "d3", "d4", "d5"]);
    // Never more than three running at the service: each start found fewer than three not ended.
    expect(mostRunningAtCreation(world.creations("/api/image/generate").slice(before), durations)).toBe(2);
  }, 30_000);

  it("a Cancel before the start makes no creation call and says so; a double click cancels once", async () => {
    const before = started().length;
    plan(HELD, HELD, HELD);
    const running = [];
    for (const prompt of ["r1", "r2", "r3"]) {
      running.push(await image(prompt));
      await world.answer(running.at(-1)!);
    }
    const queued = await image("never");
    const message = await world.answer(queued);
    expect(shown(message)).toContain("Queued: 0 ahead of you");
    const control = world.controlId(message, CANCEL_QUEUED);
    await Promise.all([world.fake.clickButton(message, control), world.fake.clickButton(message, control)]);
    const cancelled = await world.jobMessage(queued, (m) =>
      shown(m).includes("Cancelled before it started: nothing was charged"),
    );
    expect(cancelled.components ?? []).toEqual([]);
    service.clock.advance(HELD);
    for (const interaction of running) await world.jobMessage(interaction);
    // The places are free again: the next command starts, and the cancelled one never did.
    plan(FIRST);
    const next = await image("after");
    await world.until(() => started().length >= before + 4);
    service.clock.advance(FIRST);
    await world.jobMessage(next);
    expect(started().slice(before)).toEqual(["r1", "r2", "r3", "after"]);
  }, 30_000);

  it("a Cancel racing the start either wins with no call or is told it had already started, never both", async () => {
    const before = started().length;
    // The raced job, if it starts, takes the emulator's default, far shorter than a move of HELD.
    plan(FIRST, HELD, HELD);
    const running = [];
    for (const prompt of ["s1", "s2", "s3"]) {
      running.push(await image(prompt));
      await world.answer(running.at(-1)!);
    }
    const queued = await image("raced");
    const message = await world.answer(queued);
    expect(shown(message)).toContain("Queued: 0 ahead of you");
    const control = world.controlId(message, CANCEL_QUEUED);
    // Clicked the moment the first running job ends at the service: its place frees then (once
    // its status is read), before its result is posted.
    service.clock.advance(FIRST);
    const click = await world.fake.clickButton(message, control);
    const alreadyStarted = () =>
      world.fake.followups(click.id).some((m) => shown(m).includes("It had already started"));
    const outcome = await world.until(() => {
      const now = world.fake.original(queued.id);
      if (now && shown(now).includes("Cancelled before it started")) return "cancelled";
      return alreadyStarted() ? "started" : undefined;
    });
    service.clock.advance(HELD);
    for (const interaction of running) await world.jobMessage(interaction);
    if (outcome === "cancelled") {
      expect(alreadyStarted()).toBe(false);
      expect(started().slice(before)).toEqual(["s1", "s2", "s3"]);
    } else {
      // The job ran to its end on the message that had said "Queued".
      await world.until(() => started().length >= before + 4);
      service.clock.advance(HELD);
      expect(ended(await world.jobMessage(queued))).toBe(true);
      expect(started().slice(before)).toEqual(["s1", "s2", "s3", "raced"]);
    }
  }, 30_000);

  it("under a server-wide limit, another person's first job goes before the next of someone's queue", async () => {
    await world.stores.tenants.update(tenant(), { tenantRunningLimit: 2 });
    try {
      const before = started().length;
      plan(FIRST, HELD, HELD, HELD, HELD);
      const mine = [];
      for (const prompt of ["m1", "m2", "m3", "m4"]) {
        mine.push(await image(prompt));
        await world.answer(mine.at(-1)!);
      }
      const theirs = await image("o1", world.fake.users.other);
      expect(shown(await world.answer(theirs))).toContain("Queued: 0 ahead of you");
      expect(started().slice(before)).toEqual(["m1", "m2"]);
      // The place that frees goes to the other person, though two of mine asked before.
      service.clock.advance(FIRST);
      await world.until(() => started().length >= before + 3);
      expect(started().slice(before)).toEqual(["m1", "m2", "o1"]);
      // m2 and o1 end: my next two start.
      service.clock.advance(HELD);
      await world.until(() => started().length >= before + 5);
      expect(started().slice(before)).toEqual(["m1", "m2", "o1", "m3", "m4"]);
      service.clock.advance(HELD);
      for (const interaction of [...mine, theirs]) await world.jobMessage(interaction, ended);
    } finally {
      await world.stores.tenants.update(tenant(), { tenantRunningLimit: null });
    }
  }, 40_000);
});
