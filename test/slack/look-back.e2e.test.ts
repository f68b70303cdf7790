import { describe, expect, it } from "vitest";
import type { FakeSlack, Workspace } from "../fakes/slack/index.js";
import { headerOf, jobIdOf, MINUTE_MS, type SlackWorld, shown, slackWorldPerTest } from "./harness.js";

/**
 * The read-back of a thread or channel (conversations.replies / history), which finds what Slack
 * took before a crash kept the bot from recording it: it runs only when an earlier try may have
 * landed (a crash, an answer lost), never on the retry of an upload Slack refused, and it keeps
 * to the install's limits (an OAuth install of an app outside the Marketplace: 15 messages a
 * page, one call a minute).
 */

let fake: FakeSlack;
let world: SlackWorld;
const use = (started: SlackWorld) => {
  world = started;
  fake = started.fake;
};
const start = slackWorldPerTest(use);
const startOAuth = slackWorldPerTest(use, { oauth: true, apiKeyTenants: ["*"] });

const readBacks = () =>
  fake.calls.filter((c) => c.method === "conversations.replies" || c.method === "conversations.history");

describe("an upload Slack answered with a refusal, then took", () => {
  it("is tried again without reading the thread back, and reaches the person once", async () => {
    await start();
    // More than one delivery's worth of retries: the job's delivery is tried again later.
    fake.fail({ method: "files.completeUploadExternal", error: "service_unavailable", times: 6 });
    const done = await world.job("image generate a patient heron");

    expect(headerOf(done)).toBe("✅ Image: a patient heron");
    expect(fake.calls.filter((c) => c.answered.error === "service_unavailable")).toHaveLength(6);
    expect(readBacks()).toEqual([]);
    expect(fake.uploads).toHaveLength(1);
    expect(world.channelMessages().filter((m) => jobIdOf(m) === jobIdOf(done))).toHaveLength(1);
  });
});

describe("uploads whose answers were lost, in a workspace that installed the app through OAuth", () => {
  it("are looked for once each, 15 messages a page and one read a minute, with no 429", async () => {
    await startOAuth();
    const globex: Workspace = await world.installWorkspace("Globex");
    // internal_error: Slack may have shared the file before it failed.
    fake.fail({ method: "files.completeUploadExternal", error: "internal_error", times: 2 });
    for (const prompt of ["a lost heron", "a lost crane"]) {
      await fake.slashCommand(world.eventsUrl, {
        text: `image generate ${prompt}`,
        user: globex.userIds.requester,
        channel: globex.channelId,
      });
    }
    await world.until(() => {
      const jobs = fake.messages(globex.channelId).filter((m) => m.thread_ts === undefined && jobIdOf(m));
      return jobs.length === 2 && jobs.every((m) => shown(m).includes("png: in the thread of this message"));
    }, 15_000);

    // One read-back for each answer lost, whichever upload it hit.
    const reads = readBacks();
    expect(fake.calls.filter((c) => c.answered.error === "internal_error")).toHaveLength(2);
    expect(reads).toHaveLength(2);
    for (const read of reads)
      expect([read.method, read.args.limit, read.status]).toEqual(["conversations.replies", "15", 200]);
    expect(reads[1]!.at - reads[0]!.at).toBeGreaterThanOrEqual(MINUTE_MS - 50);
    expect(fake.uploads.filter((u) => u.channel === globex.channelId)).toHaveLength(2);
  });
});
