import { beforeEach, describe, expect, it } from "vitest";
import { CANCEL_QUEUED } from "../../src/core/render/queue.js";
import type { Message } from "../fakes/slack/index.js";
import { heldService, mostRunningAtCreation } from "../held-service.js";
import { type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * The queue through the real Bolt app: commands past the running limit (3) post "Queued" at once,
 * a message that becomes the job's when it starts; Cancel costs nothing; a cancel racing the start
 * is one or the other; people take turns under a workspace limit. The service's jobs end only when
 * a test moves its clock, so what runs and what waits at each step does not depend on how fast the
 * machine is.
 */

const service = heldService();
/** A job planned for this long ends at the first move of the clock by as much. */
const FIRST = 60_000;
/** Outlasts that move: such a job ends only at a move of its own. */
const HELD = 600_000;

let world: SlackWorld;
slackWorldPerFile(
  (started) => {
    world = started;
  },
  { emulator: service.emulator, policy: service.policy },
);

const tenant = () => ({ platform: "slack" as const, tenantId: world.fake.teamId });

const started = () =>
  world.creations("/api/image/generate").map((call) => (call.json as { prompt: string }).prompt);

/**
 * Runs `/media image generate <prompt>` and resolves with the job's message once posted. Found by
 * its prompt (unique in this file): a job still queued at the service is shown without its id.
 */
async function image(prompt: string, user = world.fake.users.requester.id): Promise<Message> {
  await world.command(`image generate ${prompt}`, user);
  return world.until(() => world.channelMessages().find((m) => m.text.startsWith(`Image: ${prompt}:`)));
}

const cancelOf = (message: Message) =>
  JSON.stringify(message.blocks).match(new RegExp(`"action_id":"(media:${CANCEL_QUEUED}:[^"]+)"`))?.[1];

const latest = (message: Message) => world.fake.messages().find((m) => m.ts === message.ts)!;

const plan = (...durations: number[]) => {
  for (const durationMs of durations) world.emu.planNextJob("image", { durationMs });
};

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

describe("jobs past the running limit on Slack", () => {
  it("five commands with a limit of three: three run, two wait showing their places, then start in order with one call each", async () => {
    const before = started().length;
    const durations = [FIRST, HELD, HELD, HELD, HELD];
    plan(...durations);
    const messages = [];
    for (const prompt of ["s1", "s2", "s3", "s4", "s5"]) messages.push(await image(prompt));
    expect(started().slice(before)).toEqual(["s1", "s2", "s3"]);
    expect(shown(latest(messages[3]!))).toContain("Queued: 0 ahead of you");
    expect(shown(latest(messages[4]!))).toContain("Queued: 1 ahead of you");
    expect(cancelOf(latest(messages[4]!))).toBeDefined();

    // The first ends: the fourth starts, on its own message, and the fifth moves up, still waiting.
    service.clock.advance(FIRST);
    await world.finished(messages[0]!.ts);
    await world.until(() => started().length >= before + 4);
    await world.shows(messages[3]!.ts, (m) => !shown(m).includes("ahead of you"));
    await world.shows(messages[4]!.ts, (m) => shown(m).includes("Queued: 0 ahead of you"));
    expect(started().slice(before)).toEqual(["s1", "s2", "s3", "s4"]);

    // The other three end: the fifth starts, then ends in turn.
    service.clock.advance(HELD);
    await world.until(() => started().length >= before + 5);
    service.clock.advance(HELD);
    for (const message of messages) await world.finished(message.ts);
    expect(started().slice(before)).toEqual(["s1", "s2", "s3", "s4", "s5"]);
    // Never more than three running at the service: each start found fewer than three not ended.
    expect(mostRunningAtCreation(world.creations("/api/image/generate").slice(before), durations)).toBe(2);
  }, 40_000);

  it("a Cancel before the start makes no creation call and says so; a double click cancels once", async () => {
    const before = started().length;
    plan(HELD, HELD, HELD);
    const running = [];
    for (const prompt of ["r1", "r2", "r3"]) running.push(await image(prompt));
    const queued = await image("never");
    expect(shown(queued)).toContain("Queued: 0 ahead of you");
    const actionId = cancelOf(queued)!;
    const click = () => world.fake.blockAction(world.eventsUrl, { actionId, message: queued.ts });
    await Promise.all([click(), click()]);
    await world.shows(queued.ts, (m) =>
      shown(m).includes("Cancelled before it started: nothing was charged"),
    );
    expect(cancelOf(latest(queued))).toBeUndefined();
    service.clock.advance(HELD);
    for (const message of running) await world.finished(message.ts);
    // The places are free again: the next command starts, and the cancelled one never did.
    plan(FIRST);
    const next = await image("after");
    await world.until(() => started().length >= before + 4);
    service.clock.advance(FIRST);
    await world.finished(next.ts);
    expect(started().slice(before)).toEqual(["r1", "r2", "r3", "after"]);
  }, 40_000);

  it("a Cancel racing the start either wins with no call or is told it had already started, never both", async () => {
    const before = started().length;
    // The raced job, if it starts, takes the emulator's default, far shorter than a move of HELD.
    plan(FIRST, HELD, HELD);
    const running = [];
    for (const prompt of ["t1", "t2", "t3"]) running.push(await image(prompt));
    const queued = await image("raced");
    expect(shown(queued)).toContain("Queued: 0 ahead of you");
    const actionId = cancelOf(queued)!;
    const told = world.ephemeralTexts().length;
    const alreadyStarted = () =>
      world
        .ephemeralTexts()
        .slice(told)
        .some((t) => t.includes("It had already started"));
    // Clicked the moment the first running job ends at the service: its place frees then (once
    // its status is read), before its result is posted. A click the start beat to it finds the
    // button gone from the message, which the start edited into the job's own.
    service.clock.advance(FIRST);
    const gone = await world.fake.blockAction(world.eventsUrl, { actionId, message: queued.ts }).then(
      () => false,
      (error: unknown) => {
        if (String(error).includes("has no element")) return true;
        throw error;
      },
    );
    const outcome = await world.until(() => {
      if (gone) return "started";
      if (shown(latest(queued)).includes("Cancelled before it started")) return "cancelled";
      return alreadyStarted() ? "started" : undefined;
    });
    service.clock.advance(HELD);
    for (const message of running) await world.finished(message.ts);
    if (outcome === "cancelled") {
      expect(alreadyStarted()).toBe(false);
      expect(started().slice(before)).toEqual(["t1", "t2", "t3"]);
    } else {
      // The job ran to its end on the message that had said "Queued".
      await world.until(() => started().length >= before + 4);
      service.clock.advance(HELD);
      await world.finished(queued.ts);
      expect(started().slice(before)).toEqual(["t1", "t2", "t3", "raced"]);
    }
  }, 40_000);

  it("under a workspace-wide limit, another person's first job goes before the next of someone's queue", async () => {
    await world.stores.tenants.update(tenant(), { tenantRunningLimit: 2 });
    try {
      const before = started().length;
      plan(FIRST, HELD, HELD, HELD, HELD);
      const mine = [];
      for (const prompt of ["m1", "m2", "m3", "m4"]) mine.push(await image(prompt));
      const theirs = await image("o1", world.fake.users.other.id);
      expect(shown(theirs)).toContain("Queued: 0 ahead of you");
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
      for (const message of [...mine, theirs]) await world.finished(message.ts);
    } finally {
      await world.stores.tenants.update(tenant(), { tenantRunningLimit: null });
    }
  }, 40_000);
});
