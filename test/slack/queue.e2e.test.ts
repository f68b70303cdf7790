import { beforeEach, describe, expect, it } from "vitest";
import { CANCEL_QUEUED } from "../../src/core/render/queue.js";
import type { Message } from "../fakes/slack/index.js";
import { type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * The queue through the real Bolt app: commands past the running limit (3) post "Queued" at once,
 * a message that becomes the job's when it starts; Cancel costs nothing; a cancel racing the start
 * is one or the other; people take turns under a workspace limit.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

const tenant = () => ({ platform: "slack" as const, tenantId: world.fake.teamId });

const started = () =>
  world.creations("/api/image/generate").map((call) => (call.json as { prompt: string }).prompt);

/** Runs `/media image generate <prompt>` and resolves with the job's message once posted. */
async function image(prompt: string, user = world.fake.users.requester.id): Promise<Message> {
  const index = world.jobCount();
  await world.command(`image generate ${prompt}`, user);
  return world.jobMessage(index);
}

const cancelOf = (message: Message) =>
  JSON.stringify(message.blocks).match(new RegExp(`"action_id":"(media:${CANCEL_QUEUED}:[^"]+)"`))?.[1];

const latest = (message: Message) => world.fake.messages().find((m) => m.ts === message.ts)!;

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
    // The first three outlast the five asks (a place frees as soon as the service says a job is done).
    const durations = [4_000, 5_000, 5_000, 500, 500];
    for (const duration of durations) world.emu.planNextJob("image", { durationMs: duration });
    const messages = [];
    for (const prompt of ["s1", "s2", "s3", "s4", "s5"]) messages.push(await image(prompt));
    // A place frees as soon as the service says a job is done (not once its result is posted):
    // on a slow machine the first may end while the others are still being asked, so the three at
    // once are read from the service's record rather than at a given moment: the fourth and the
    // fifth reached it only after as many of the first three had ended there.
    const calls = world.creations("/api/image/generate").slice(before);
    expect(calls.slice(0, 3).map((c) => (c.json as { prompt: string }).prompt)).toEqual(["s1", "s2", "s3"]);
    // What the two waiting jobs' messages said when posted (they may have started since).
    const posted = (prompt: string) =>
      world.fake.calls
        .filter((c) => c.method === "chat.postMessage" && JSON.stringify(c.args).includes(`Image: ${prompt}`))
        .map((c) => JSON.stringify(c.args));
    expect(posted("s4")[0]).toContain("Queued: 0 ahead of you");
    expect(posted("s5")[0]).toContain("Queued: 1 ahead of you");
    expect(posted("s5")[0]).toContain(`media:${CANCEL_QUEUED}:`);

    await world.finished(messages[0]!.ts);
    // The fifth may have started too by the time the first's result is posted.
    await world.until(() => started().length >= before + 4);
    // Read from the edits the bot sent: a passing place may be edited over before a look at the message.
    const last = messages[4]!.ts;
    await world.until(() =>
      world.fake.calls.some(
        (c) =>
          c.method === "chat.update" &&
          c.args.ts === last &&
          JSON.stringify(c.args).includes("Queued: 0 ahead of you"),
      ),
    );
    for (const message of messages) await world.finished(message.ts, 20_000);
    expect(started().slice(before)).toEqual(["s1", "s2", "s3", "s4", "s5"]);
    // Never more than three running at the service: each start found fewer than three not ended.
    const made = world.creations("/api/image/generate").slice(before);
    const ends = made.map((c, i) => c.at + durations[i]!);
    const runningAt = made.map((c, i) => ends.slice(0, i).filter((end) => end > c.at).length);
    expect(Math.max(...runningAt)).toBeLessThan(3);
  }, 40_000);

  it("a Cancel before the start makes no creation call and says so; a double click cancels once", async () => {
    const before = started().length;
    for (let n = 0; n < 3; n++) world.emu.planNextJob("image", { durationMs: 1_500 });
    const running = [];
    for (const prompt of ["r1", "r2", "r3"]) running.push(await image(prompt));
    const queued = await image("never");
    const actionId = cancelOf(queued)!;
    const click = () => world.fake.blockAction(world.eventsUrl, { actionId, message: queued.ts });
    await Promise.all([click(), click()]);
    await world.shows(queued.ts, (m) =>
      shown(m).includes("Cancelled before it started: nothing was charged"),
    );
    expect(cancelOf(latest(queued))).toBeUndefined();
    for (const message of running) await world.finished(message.ts);
    const next = await image("after");
    await world.finished(next.ts);
    expect(started().slice(before)).toEqual(["r1", "r2", "r3", "after"]);
  }, 40_000);

  it("a Cancel racing the start either wins with no call or is told it had already started, never both", async () => {
    const before = started().length;
    for (let n = 0; n < 3; n++) world.emu.planNextJob("image", { durationMs: 800 });
    const running = [];
    for (const prompt of ["t1", "t2", "t3"]) running.push(await image(prompt));
    const queued = await image("raced");
    const actionId = cancelOf(queued)!;
    const told = world.ephemeralTexts().length;
    // Clicked the moment the first running job ends at the service: its place frees then (once
    // its status is read), before its result is posted. A click the start beat to it finds the
    // button gone from the message, which the start edited into the job's own.
    const [first] = world.creations("/api/image/generate").slice(before);
    await world.until(() => Date.now() >= first!.at + 800 || undefined);
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
      return world
        .ephemeralTexts()
        .slice(told)
        .some((t) => t.includes("It had already started"))
        ? "started"
        : undefined;
    });
    for (const message of running) await world.finished(message.ts);
    if (outcome === "cancelled") {
      expect(started().slice(before)).toEqual(["t1", "t2", "t3"]);
    } else {
      await world.finished(queued.ts);
      expect(started().slice(before)).toEqual(["t1", "t2", "t3", "raced"]);
    }
  }, 40_000);

  it("under a workspace-wide limit, another person's first job goes before the next of someone's queue", async () => {
    await world.stores.tenants.update(tenant(), { tenantRunningLimit: 2 });
    try {
      const before = started().length;
      // Both running jobs outlast the five asks: the place that frees first must find the other
      // person waiting (it frees as soon as the service says a job is done).
      world.emu.planNextJob("image", { durationMs: 6_000 });
      world.emu.planNextJob("image", { durationMs: 6_000 });
      const mine = [];
      for (const prompt of ["m1", "m2", "m3", "m4"]) mine.push(await image(prompt));
      const theirs = await image("o1", world.fake.users.other.id);
      expect(shown(theirs)).toContain("Queued: 0 ahead of you");
      expect(started().slice(before)).toEqual(["m1", "m2"]);
      await world.finished(mine[0]!.ts);
      await world.until(() => started().length >= before + 3);
      expect(started().slice(before, before + 3)).toEqual(["m1", "m2", "o1"]);
      for (const message of [...mine, theirs]) await world.finished(message.ts, 20_000);
    } finally {
      await world.stores.tenants.update(tenant(), { tenantRunningLimit: null });
    }
  }, 40_000);
});
