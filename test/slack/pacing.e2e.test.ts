import { describe, expect, it } from "vitest";
import { type ApiCall, type FakeSlack, TIER_PER_MINUTE } from "../fakes/slack/index.js";
import { headerOf, jobIdOf, PACING, type SlackWorld, shown, slackWorldPerTest } from "./harness.js";

/**
 * Slack's rate limits as a workspace meets them, with the real Bolt app against the fake Slack:
 * a storm of 429s on chat.update holds chat.update alone (files, posts and a workflow step's
 * completion go on, and the results go first once it passes), and progress edits never take
 * chat.update past its tier, at Slack's real minute.
 */

let fake: FakeSlack;
let world: SlackWorld;
const start = slackWorldPerTest((started) => {
  world = started;
  fake = started.fake;
});
/** Slack's own minute, on both sides. */
const startRealMinute = slackWorldPerTest(
  (started) => {
    world = started;
    fake = started.fake;
  },
  { pacing: { ...PACING, minuteMs: 60_000 } },
  { tiers: { minuteMs: 60_000 } },
);

const working = (ts: string) => world.shows(ts, (m) => shown(m).includes("Working"));
/** The job's message once it shows its result, its file in the thread. */
const done = (ts: string) =>
  world.shows(
    ts,
    (m) =>
      (headerOf(m)?.startsWith("✅") ?? false) && shown(m).includes("png: in the thread of this message"),
    15_000,
  );
const updates = (from = 0) => fake.calls.slice(from).filter((c) => c.method === "chat.update");
const isResult = (call: ApiCall) => JSON.stringify(call.args).includes("✅");

describe("a storm of 429s on chat.update", () => {
  it("holds chat.update alone for Retry-After; files, posts and a step completion go on; results go first, once each", async () => {
    await start();
    for (let n = 0; n < 2; n++) world.emu.planNextJob("image", { durationMs: 1_200 });
    await world.command("image generate a storm petrel");
    await world.command("image generate a storm cloud");
    const jobs = [await world.jobMessage(0), await world.jobMessage(1)];
    for (const job of jobs) await working(job.ts);

    const from = fake.calls.length;
    const stormStarted = Date.now();
    fake.rateLimit("chat.update", { forMs: 3_000 });
    world.emu.planNextJob("image", { durationMs: 300 });
    const { execution } = await fake.functionExecuted(world.eventsUrl, {
      callbackId: "generate_image",
      inputs: { user: { id: fake.users.requester.id, secret: "s" }, prompt: "a gull in the storm" },
    });
    for (const job of jobs) await done(job.ts);

    // The step ended while chat.update was still held.
    const completed = fake.calls.find((c) => c.method === "functions.completeSuccess");
    expect(execution.state).toBe("completed");
    expect(completed!.at - stormStarted).toBeLessThan(3_000);
    // The results' files were shared into their threads during the storm, once each.
    const shared = fake.calls
      .slice(from)
      .filter((c) => c.method === "files.completeUploadExternal" && c.args.channel_id === fake.channelId);
    expect(shared.filter((c) => c.answered.ok)).toHaveLength(2);
    for (const call of shared) expect(call.at - stormStarted).toBeLessThan(3_000);
    // After its first 429, chat.update waited out Retry-After: nothing asked meanwhile.
    const limited = updates(from).filter((c) => c.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    const firstLimited = limited[0]!.at;
    const meanwhile = updates(from).filter((c) => c.at > firstLimited + 200 && c.at < stormStarted + 2_800);
    expect(meanwhile).toEqual([]);
    // Once it passed, the results went before any progress.
    const after = updates(from).filter((c) => c.at >= stormStarted + 2_800 && c.status === 200);
    expect(after.slice(0, 2).every(isResult)).toBe(true);
    // Each result reached the requester once: one message per job, one file, one notice.
    for (const job of jobs) {
      expect(world.channelMessages().filter((m) => jobIdOf(m) === jobIdOf(job))).toHaveLength(1);
      expect(fake.uploads.filter((u) => u.threadTs === job.ts)).toHaveLength(1);
    }
    const notices = () => world.channelMessages().filter((m) => !jobIdOf(m) && m.text.includes("<@"));
    await world.until(() => notices().length === 2);
    expect(notices()).toHaveLength(2);
  });
});

describe("progress edits at Slack's real minute", () => {
  it("never take chat.update past its tier, and the results still go out at once", async () => {
    await startRealMinute();
    for (let n = 0; n < 3; n++) world.emu.planNextJob("image", { durationMs: 2_500 });
    const started = Date.now();
    for (const prompt of ["a slow heron", "a slow crane", "a slow stork"])
      await world.command(`image generate ${prompt}`);
    const jobs = [await world.jobMessage(0), await world.jobMessage(1), await world.jobMessage(2)];
    for (const job of jobs) await done(job.ts);

    const all = updates();
    // Slack refused none: the bot kept to Tier 3 (50 a minute) in this workspace by itself.
    expect(all.filter((c) => c.status === 429)).toEqual([]);
    expect(all.length).toBeLessThanOrEqual(TIER_PER_MINUTE[3]!);
    // Every result showed within a few seconds of its job's end, though progress used its share.
    expect(Date.now() - started).toBeLessThan(12_000);
  });
});
