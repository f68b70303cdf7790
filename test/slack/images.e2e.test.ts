import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.js";
import { headerOf, type SlackWorld, shown, slackWorldPerTest } from "./harness.js";

let fake: FakeSlack;
let world: SlackWorld;
const start = slackWorldPerTest((started) => {
  world = started;
  fake = started.fake;
});

describe("image generate over signed HTTP with the real Bolt app", () => {
  it("acks, posts one job message, updates it in place, uploads the PNG into its thread and notifies once", async () => {
    await start();

    const answer = await world.command("image generate a red fox in snow --aspect-ratio 16:9 --seed 7");

    expect(answer).toMatchObject({ status: 200, body: "" });
    const job = await world.jobMessage();
    const done = await world.finished(job.ts);
    expect(headerOf(done)).toMatch(/^✅ Image: a red fox in snow/);
    expect(done.edited).toBeDefined();
    expect(shown(done)).toContain("in the thread of this message");
    const [created] = world.creations("/api/image/generate");
    expect(created?.json).toMatchObject({ prompt: "a red fox in snow", aspectRatio: "16:9", seed: 7 });
    expect(fake.uploads).toEqual([
      expect.objectContaining({ channel: fake.channelId, threadTs: job.ts, completed: true }),
    ]);
    expect(fake.uploads[0]?.filename).toMatch(/\.png$/);
    // The picture shows in the channel, in the job's own message: the file of its thread.
    expect(done.blocks.filter((b) => b.type === "image")).toEqual([
      expect.objectContaining({ slack_file: { id: fake.uploads[0]?.fileId } }),
    ]);
    expect(world.replies(job.ts)).toEqual([expect.objectContaining({ upload: true })]);
    const notices = world.channelMessages().filter((m) => m.ts !== job.ts);
    expect(notices).toEqual([
      expect.objectContaining({ text: expect.stringMatching(/^<@U0REQUEST1> Image: .* is ready\./) }),
    ]);
    expect(fake.calls.filter((c) => !c.answered.ok)).toEqual([]);
  });
});
