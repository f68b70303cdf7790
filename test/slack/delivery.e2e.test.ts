import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { card } from "../../src/core/base/cards.js";
import type { ConversationRef } from "../../src/core/base/ports.js";
import { solidPng } from "../fakes/media-api/png.js";
import type { FakeSlack } from "../fakes/slack/index.js";
import { postSigned } from "../fakes/slack/signing.js";
import { headerOf, jobIdOf, type SlackWorld, slackWorldPerTest } from "./harness.js";

/** Exactly once: across a restart, a repeated delivery, and Slack's own retries. */

let fake: FakeSlack;
let world: SlackWorld;
const start = slackWorldPerTest((started) => {
  world = started;
  fake = started.fake;
});

const notices = (jobTs: string) => world.channelMessages().filter((m) => m.ts > jobTs && !jobIdOf(m));

describe("delivery in Slack", () => {
  it("finishes a job after a restart in the middle of it, delivering once", async () => {
    await start();
    world.emu.planNextJob("image", { durationMs: 1_500 });

    await world.command("image generate a lighthouse in a storm");
    const job = await world.jobMessage();
    await world.restart();
    const done = await world.finished(job.ts);

    expect(headerOf(done)).toMatch(/^✅ Image: a lighthouse/);
    expect(world.creations("/api/image/generate")).toHaveLength(1);
    expect(fake.uploads.filter((u) => u.threadTs === job.ts)).toHaveLength(1);
    expect(notices(job.ts)).toHaveLength(1);
    expect(world.channelMessages().filter((m) => jobIdOf(m))).toHaveLength(1);
  });

  it("does not upload or notify twice when a delivery is repeated by a new process", async () => {
    await start();
    const where: ConversationRef = { platform: "slack", channelId: fake.channelId };
    const job = await world.slack.adapter.post(where, card("Image: fox", "progress"));
    const png = solidPng([1, 2, 3]);
    const result = card("Image: fox", "success", {
      media: [
        {
          kind: "image",
          name: "fox",
          file: {
            name: "fox.png",
            contentType: "image/png",
            size: png.length,
            open: async () => Readable.from([png]),
          },
        },
      ],
    });
    const deliver = async () => {
      await world.slack.adapter.edit(job, result);
      await world.slack.adapter.post(
        where,
        { text: "fox is ready" },
        { mentionUserId: "U0REQUEST1", idempotencyKey: "job-1:ready" },
      );
    };

    await deliver();
    await world.restart();
    await deliver();

    expect(fake.uploads).toEqual([
      expect.objectContaining({
        threadTs: job.messageId,
        received: expect.objectContaining({ bytes: png.length }),
      }),
    ]);
    expect(notices(job.messageId)).toEqual([expect.objectContaining({ text: "<@U0REQUEST1> fox is ready" })]);
    // The first delivery shows the file on its way, then in the thread; the repeat only redraws.
    const updates = fake.calls.filter((c) => c.method === "chat.update").map((c) => JSON.stringify(c.args));
    expect(updates).toEqual([
      expect.stringContaining("fox.png: uploading into the thread of this message…"),
      expect.stringContaining("fox.png: in the thread of this message"),
      expect.stringContaining("fox.png: in the thread of this message"),
    ]);
  });

  it("delivers into a public channel the bot was never invited to: it joins to share the file", async () => {
    await start();
    const open = fake.addChannel("design", { botIsMember: false });

    await fake.slashCommand(world.eventsUrl, { text: "image generate a paper crane", channel: open });
    const job = await world.until(() => fake.messages(open).find((m) => jobIdOf(m)));
    const inThread = "a paper crane.png: in the thread of this message";
    const done = await world.until(() =>
      fake.messages(open).find((m) => m.ts === job.ts && JSON.stringify(m.blocks).includes(inThread)),
    );

    expect(headerOf(done)).toBe("✅ Image: a paper crane");
    expect(fake.uploads).toEqual([expect.objectContaining({ channel: open, threadTs: job.ts })]);
    expect(fake.calls.filter((c) => c.method === "conversations.join")).toHaveLength(1);
  });

  it("runs a slash command Slack delivered twice (x-slack-retry-num) only once", async () => {
    await start();
    const { payload } = fake.payloads.slashCommand({ text: "image generate a quiet harbour" });

    const answers = await Promise.all([
      postSigned(world.eventsUrl, payload, fake.signingSecret),
      postSigned(world.eventsUrl, payload, fake.signingSecret, { retryNum: 1, retryReason: "http_timeout" }),
    ]);
    const done = await world.finished((await world.jobMessage()).ts);

    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(world.creations("/api/image/generate")).toHaveLength(1);
    expect(world.channelMessages().filter((m) => jobIdOf(m))).toEqual([
      expect.objectContaining({ ts: done.ts }),
    ]);
  });

  it("regenerates from the result's button as a new job", async () => {
    await start();
    const first = await world.job("image generate a red kite --seed 3");
    const regenerate = JSON.stringify(first.blocks).match(/"action_id":"(media:regenerate:[^"]+)"/)?.[1];

    await fake.blockAction(world.eventsUrl, { actionId: regenerate!, message: first.ts });
    const second = await world.finished((await world.jobMessage(1)).ts);

    const seeds = world.creations("/api/image/generate").map((c) => (c.json as { seed?: number }).seed);
    expect(seeds).toHaveLength(2);
    expect(seeds[1]).not.toBe(3);
    expect(headerOf(second)).toMatch(/^✅ Image: a red kite/);
  });
});
