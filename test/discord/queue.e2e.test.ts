import { beforeEach, describe, expect, it } from "vitest";
import { CANCEL_QUEUED } from "../../src/core/render/queue.js";
import { type DiscordWorld, discordWorldPerFile, ended, shown } from "./harness.js";

/**
 * The queue through the real discord.js client: commands past the running limit (3) answer
 * "Queued" at once on their own message, which becomes the job's when it starts; Cancel costs
 * nothing; a cancel racing the start is one or the other; people take turns under a server limit.
 */

let world: DiscordWorld;
discordWorldPerFile((started) => {
  world = started;
});

const tenant = () => ({ platform: "discord" as const, tenantId: world.fake.guild.id });

/** The prompts of the image creation calls, in the order the service received them. */
const started = () =>
  world.creations("/api/image/generate").map((call) => (call.json as { prompt: string }).prompt);

const image = (prompt: string, user = world.fake.users.requester) =>
  world.command({ name: "image", subcommand: "generate", options: { prompt }, user });

/** Resolves once no job of the tenant holds a running place. */
async function placesFree(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await world.stores.queue.slots(tenant())).length > 0) {
    if (Date.now() > deadline) throw new Error("the tests before still hold running places");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// The jobs of the test before give their places back once their results are delivered.
beforeEach(placesFree);

describe("jobs past the running limit on Discord", () => {
  it("five commands with a limit of three: three run, two wait showing their places, then start in order with one call each", async () => {
    const before = started().length;
    // The first three outlast the five asks (a place frees as soon as the service says a job is
    // done), and the fourth outlasts the moment the fifth is shown first in line.
    for (const duration of [4_000, 5_000, 5_000, 5_000, 500])
      world.emu.planNextJob("image", { durationMs: duration });
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

    // The first ends: the fourth starts, on its own message, and the fifth moves up.
    await world.jobMessage(asked[0]!);
    await world.until(() => started().length >= before + 4);
    await world.jobMessage(asked[4]!, (m) => shown(m).includes("Queued: 0 ahead of you"));
    for (const interaction of asked) expect(ended(await world.jobMessage(interaction))).toBe(true);
    expect(started().slice(before)).toEqual(["d1", "d2", "d3", "d4", "d5"]);
  }, 30_000);

  it("a Cancel before the start makes no creation call and says so; a double click cancels once", async () => {
    const before = started().length;
    for (let n = 0; n < 3; n++) world.emu.planNextJob("image", { durationMs: 1_500 });
    const running = [];
    for (const prompt of ["r1", "r2", "r3"]) {
      running.push(await image(prompt));
      await world.answer(running.at(-1)!);
    }
    const queued = await image("never");
    const message = await world.answer(queued);
    const control = world.controlId(message, CANCEL_QUEUED);
    await Promise.all([world.fake.clickButton(message, control), world.fake.clickButton(message, control)]);
    const cancelled = await world.jobMessage(queued, (m) =>
      shown(m).includes("Cancelled before it started: nothing was charged"),
    );
    expect(cancelled.components ?? []).toEqual([]);
    for (const interaction of running) await world.jobMessage(interaction);
    // The places are free again: the next command starts, and the cancelled one never did.
    const next = await image("after");
    await world.jobMessage(next);
    expect(started().slice(before)).toEqual(["r1", "r2", "r3", "after"]);
  }, 30_000);

  it("a Cancel racing the start either wins with no call or is told it had already started, never both", async () => {
    const before = started().length;
    for (let n = 0; n < 3; n++) world.emu.planNextJob("image", { durationMs: 800 });
    const running = [];
    for (const prompt of ["s1", "s2", "s3"]) {
      running.push(await image(prompt));
      await world.answer(running.at(-1)!);
    }
    const queued = await image("raced");
    const message = await world.answer(queued);
    const control = world.controlId(message, CANCEL_QUEUED);
    // Clicked the moment the first running job ends at the service: its place frees then (once
    // its status is read), before its result is posted.
    const [first] = world.creations("/api/image/generate").slice(before);
    await world.until(() => Date.now() >= first!.at + 800 || undefined);
    const click = await world.fake.clickButton(message, control);
    const outcome = await world.until(() => {
      const now = world.fake.original(queued.id);
      if (now && shown(now).includes("Cancelled before it started")) return "cancelled";
      const told = world.fake.followups(click.id).find((m) => shown(m).includes("It had already started"));
      return told ? "started" : undefined;
    });
    for (const interaction of running) await world.jobMessage(interaction);
    if (outcome === "cancelled") {
      expect(started().slice(before)).toEqual(["s1", "s2", "s3"]);
    } else {
      expect(ended(await world.jobMessage(queued))).toBe(true);
      expect(started().slice(before)).toEqual(["s1", "s2", "s3", "raced"]);
    }
  }, 30_000);

  it("under a server-wide limit, another person's first job goes before the next of someone's queue", async () => {
    await world.stores.tenants.update(tenant(), { tenantRunningLimit: 2 });
    try {
      const before = started().length;
      // Both running jobs outlast the five asks: the place that frees first must find the other
      // person waiting (it frees as soon as the service says a job is done).
      world.emu.planNextJob("image", { durationMs: 6_000 });
      world.emu.planNextJob("image", { durationMs: 6_000 });
      const mine = [];
      for (const prompt of ["m1", "m2", "m3", "m4"]) {
        mine.push(await image(prompt));
        await world.answer(mine.at(-1)!);
      }
      const theirs = await image("o1", world.fake.users.other);
      expect(shown(await world.answer(theirs))).toContain("Queued: 0 ahead of you");
      expect(started().slice(before)).toEqual(["m1", "m2"]);
      await world.jobMessage(mine[0]!);
      await world.until(() => started().length >= before + 3);
      expect(started().slice(before, before + 3)).toEqual(["m1", "m2", "o1"]);
      for (const interaction of [...mine, theirs]) await world.jobMessage(interaction, ended);
    } finally {
      await world.stores.tenants.update(tenant(), { tenantRunningLimit: null });
    }
  }, 40_000);
});
