import { describe, expect, it } from "vitest";
import type { EphemeralMessage, FakeSlack, Message, Upload } from "../fakes/slack/index.js";
import {
  FAKE_SLACK,
  headerOf,
  jobIdOf,
  PACING,
  type SlackWorld,
  shown,
  slackWorldPerTest,
} from "./harness.js";

/**
 * Slack processes an uploaded file for a while after files.completeUploadExternal, and refuses a
 * block that names it meanwhile (invalid_blocks). On every path that shows an uploaded image (a
 * job's result, the usage chart, a list's Show), the bot waits for files.info to say it is ready
 * before a block names it; past its wait, the image stays in the thread and the message says so.
 */

let fake: FakeSlack;
let world: SlackWorld;
const use = (started: SlackWorld) => {
  world = started;
  fake = started.fake;
};
const PROCESSING_MS = 800;
const start = slackWorldPerTest(use, {}, { ...FAKE_SLACK, fileProcessingMs: PROCESSING_MS });
/** Slack takes far longer than the bot waits. */
const startSlow = slackWorldPerTest(
  use,
  { pacing: { ...PACING, fileReadyMs: 300 } },
  { ...FAKE_SLACK, fileProcessingMs: 60_000 },
);

const refusedBlocks = () => fake.calls.filter((c) => c.answered.error === "invalid_blocks");
const showsFile = (m: Pick<Message, "blocks">, upload: Upload) =>
  JSON.stringify(m.blocks).includes(`"slack_file":{"id":"${upload.fileId}"}`);
const uploading = (m: Pick<Message, "blocks">) =>
  JSON.stringify(m.blocks).includes("uploading into the thread");

/** The upload that reached a DM, and the DM's message that shows it once it does. */
async function inDm(): Promise<{ upload: Upload; card: Message }> {
  const upload = await world.until(() => fake.uploads.find((u) => u.channel?.startsWith("D")), 8_000);
  const card = await world.until(
    () => fake.messages(upload.channel!).find((m) => m.ts === upload.threadTs && showsFile(m, upload)),
    8_000,
  );
  return { upload, card };
}

describe("a result's image that Slack is still processing", () => {
  it("shows in its message once files.info says it is ready: no refusal, one file, one message", async () => {
    await start();
    const done = await world.job("image generate a slowly scanned owl");
    const [upload] = fake.uploads;

    expect(headerOf(done)).toBe("✅ Image: a slowly scanned owl");
    expect(showsFile(done, upload!)).toBe(true);
    expect(refusedBlocks()).toEqual([]);
    const asked = fake.calls.filter((c) => c.method === "files.info" && c.args.file === upload!.fileId);
    expect(asked.length).toBeGreaterThan(0);
    expect(world.channelMessages().filter((m) => jobIdOf(m) === jobIdOf(done))).toHaveLength(1);
    expect(fake.uploads).toHaveLength(1);
  });

  it("the usage chart reaches the person's DM, shown once Slack has processed it, not stuck on uploading", async () => {
    await start();
    // Something spent: the chart has a bar to draw.
    await world.job("image generate a spendthrift owl");
    await world.command("usage", fake.users.admin.id);
    const { card } = await inDm();

    expect(uploading(card)).toBe(false);
    expect(refusedBlocks()).toEqual([]);
  });

  it("a list's Show reaches the person's DM, shown once Slack has processed it", async () => {
    await start();
    await world.job("thumbnail generate title slowly");
    const before = world.ephemeralTexts().length;
    await world.command("thumbnail list");
    await world.until(() => world.ephemeralTexts()[before]);
    const list = fake
      .ephemerals()
      .filter((m: EphemeralMessage) => m.user === fake.users.requester.id)
      .at(-1)!;
    const show = /"action_id":"([^"]+)","text":\{[^}]*"text":"Show 1"/.exec(JSON.stringify(list.blocks));
    const uploads = fake.uploads.length;
    await fake.blockAction(world.eventsUrl, {
      actionId: show![1]!,
      message: list.message_ts,
      user: fake.users.requester.id,
    });
    await world.until(() => fake.uploads.length > uploads);
    const { card } = await inDm();

    expect(shown(card)).toContain("title slowly");
    expect(uploading(card)).toBe(false);
    expect(refusedBlocks()).toEqual([]);
  });
});

describe("an image Slack takes longer to process than the bot waits", () => {
  it("stays in the thread: the message says so and links to it, once, and names no unprocessed file", async () => {
    await startSlow();
    const done = await world.job("image generate an owl that takes forever");
    const [upload] = fake.uploads;

    expect(headerOf(done)).toBe("✅ Image: an owl that takes forever");
    expect(showsFile(done, upload!)).toBe(false);
    expect(shown(done)).toContain("in the thread of this message");
    expect(shown(done)).toMatch(/<http[^|]+\|[^>]*owl[^>]*>/);
    expect(refusedBlocks()).toEqual([]);
    expect(
      world
        .replies(done.ts)
        .flatMap((m) => m.files ?? [])
        .map((f) => f.id),
    ).toEqual([upload!.fileId]);
  });
});
