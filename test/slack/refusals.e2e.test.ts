import { describe, expect, it, vi } from "vitest";
import type { ApiCall, FakeSlack, Message } from "../fakes/slack/index.js";
import { headerOf, jobIdOf, type SlackWorld, shown, slackWorldPerTest } from "./harness.js";

/**
 * When Slack no longer takes what a job has to show: the job's message deleted (the result then
 * arrives as a new message), and the channel gone (the result goes to the requester's DM, saying
 * why, and the channel is not tried again).
 */

let fake: FakeSlack;
let world: SlackWorld;
const start = slackWorldPerTest((started) => {
  world = started;
  fake = started.fake;
});

const working = (m: Message) => shown(m).includes("Working");
const succeeded = (m: Message) => headerOf(m)?.startsWith("✅") ?? false;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The running job's message, once it shows progress. */
async function runningJob(text: string): Promise<{ job: Message; jobId: string }> {
  world.emu.planNextJob("image", { durationMs: 600 });
  await world.command(text);
  const job = await world.shows((await world.jobMessage()).ts, working);
  return { job, jobId: jobIdOf(job)! };
}

/** Until the engine is done with the job's delivery: posted, or given up on. */
const deliveryEnded = (jobId: string) =>
  vi.waitFor(
    async () => expect(await world.stores.jobs.get(jobId)).toMatchObject({ delivery: "delivered" }),
    { timeout: 8_000, interval: 20 },
  );

const channelOf = (call: ApiCall) => call.args.channel ?? call.args.channel_id;

describe("a job whose message was deleted while it ran", () => {
  it("posts the result as a new message that mentions the requester, once", async () => {
    await start();
    const { job, jobId } = await runningJob("image generate a deleted heron");
    const from = fake.calls.length;
    fake.deleteMessage(job.ts);

    const result = await world.until(() =>
      world.channelMessages().find((m) => jobIdOf(m) === jobId && succeeded(m)),
    );
    await pause(300);

    expect(headerOf(result)).toBe("✅ Image: a deleted heron");
    expect(shown(result)).toContain(`<@${fake.users.requester.id}>`);
    // The card itself is the announcement: no separate "ready" notice, no second copy.
    expect(world.channelMessages()).toEqual([result]);
    // Into the new message's thread only: nothing went under the deleted one.
    expect(fake.uploads).toEqual([expect.objectContaining({ threadTs: result.ts })]);
    const later = fake.calls.slice(from);
    expect(later.filter((c) => c.method === "chat.update" && c.args.ts === job.ts).at(-1)?.answered).toEqual({
      ok: false,
      error: "message_not_found",
    });
    expect(later.filter((c) => c.method === "chat.postMessage" && c.answered.ok)).toHaveLength(1);
  });
});

describe("a result posted anew whose file Slack fails to take at first", () => {
  it("is still one message with one file, once Slack takes it", async () => {
    await start();
    const { job, jobId } = await runningJob("image generate a stubborn heron");
    fake.deleteMessage(job.ts);
    fake.fail({ method: "files.completeUploadExternal", error: "internal_error" });

    const inThread = "a stubborn heron.png: in the thread of this message";
    const result = await world.until(() =>
      world
        .channelMessages()
        .find((m) => jobIdOf(m) === jobId && JSON.stringify(m.blocks).includes(inThread)),
    );
    await pause(300);

    expect(world.channelMessages()).toEqual([result]);
    expect(shown(result)).toContain(`<@${fake.users.requester.id}>`);
    expect(fake.uploads).toEqual([expect.objectContaining({ threadTs: result.ts })]);
  });
});

describe("a result posted anew, deleted again while its file travels", () => {
  it("is left deleted: no third message, and the delivery ends", async () => {
    await start();
    const { job, jobId } = await runningJob("image generate an unwanted heron");
    const from = fake.calls.length;
    fake.deleteMessage(job.ts);
    // Slack fails the file a few times, so the new message says "uploading" for a while.
    fake.fail({ method: "files.completeUploadExternal", error: "internal_error", times: 5 });

    const again = await world.until(() => world.channelMessages().find((m) => jobIdOf(m) === jobId));
    expect(JSON.stringify(again.blocks)).toContain("uploading into the thread of this message…");
    fake.deleteMessage(again.ts);
    await deliveryEnded(jobId);
    const settled = fake.calls.length;
    await pause(400);

    expect(world.channelMessages()).toEqual([]);
    const later = fake.calls.slice(from);
    expect(later.filter((c) => c.method === "chat.postMessage" && c.answered.ok)).toHaveLength(1);
    expect(fake.calls.slice(settled)).toEqual([]);
  });
});

describe("a public channel whose files Slack refuses (the bot could not join it)", () => {
  it("shows the result with its link instead, and finishes", async () => {
    await start();
    const open = fake.addChannel("design", { botIsMember: false });
    // An app installed before it asked for channels:join.
    fake.fail({ method: "conversations.join", error: "missing_scope" });

    await fake.slashCommand(world.eventsUrl, { text: "image generate a paper boat", channel: open });
    const job = await world.until(() => fake.messages(open).find((m) => jobIdOf(m)));
    const jobId = jobIdOf(job)!;
    await deliveryEnded(jobId);
    const done = fake.messages(open).find((m) => m.ts === job.ts)!;

    expect(headerOf(done)).toBe("✅ Image: a paper boat");
    expect(shown(done)).toMatch(/<http[^|]+a_paper_boat\.png[^|]*\|Download the image>/);
    expect(shown(done)).not.toContain("thread of this message");
    expect(fake.uploads).toEqual([]);
  });
});

describe("a job whose channel is deleted while it runs", () => {
  it("sends the result to the requester's DM once, saying why, and tries the channel no more", async () => {
    await start();
    const { jobId } = await runningJob("image generate a heron nobody sees");
    fake.deleteChannel(fake.channelId);

    await deliveryEnded(jobId);
    const settled = fake.calls.length;
    await pause(400);

    // One call refused in the channel (a progress edit, or the result): never one more.
    const refused = fake.calls.filter((c) => channelOf(c) === fake.channelId && !c.answered.ok);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.answered.error).toMatch(/^(channel_not_found|invalid_channel)$/);
    expect(fake.calls.slice(settled)).toEqual([]);

    const dm = fake.calls.find(
      (c) => c.method === "chat.postMessage" && String(c.args.channel).startsWith("D"),
    );
    const inDm = fake.messages(String(dm?.args.channel)).filter((m) => jobIdOf(m) === jobId && !m.thread_ts);
    expect(inDm).toHaveLength(1);
    expect(headerOf(inDm[0]!)).toBe("✅ Image: a heron nobody sees");
    expect(shown(inDm[0]!)).toContain(
      "The bot could not show this where you asked for it. The bot is not a member of this channel, so it cannot post here. Invite it: type /invite and pick the bot. So it comes here, to your DM with the bot.",
    );
    expect((await world.stores.jobs.get(jobId))?.error).toBeNull();
  });
});
