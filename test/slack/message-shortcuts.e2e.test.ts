import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Message, SlackView } from "../fakes/slack/index.js";
import { postSigned } from "../fakes/slack/signing.js";
import { capturingLogger } from "../store/backends.js";
import { headerOf, jobIdOf, type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * Images already in the channel as inputs: the message shortcuts "Edit image", "Animate image" and
 * "Use as thumbnail reference" open the follow-up's form with the shortcut's trigger_id; its
 * submission uploads the message's image through the normal flow, or, on one of the bot's own
 * results, hands the service the result's media id and uploads nothing.
 */

let world: SlackWorld;
/** The bot's log: it says when it drops a gesture Slack delivered again. */
const log = capturingLogger("info");
slackWorldPerFile(
  (started) => {
    world = started;
  },
  { logger: log.logger },
);

const manifest = JSON.parse(readFileSync(new URL("../../slack-manifest.json", import.meta.url), "utf8"));
const uploads = () => world.emu.callsTo("POST", "/api/media/initialize");

/** Uses the shortcut `callbackId` on `message` as `user`; resolves with the form Slack shows. */
async function open(message: Message, callbackId: string, user = world.fake.users.other.id) {
  const before = world.fake.views.length;
  await world.fake.messageShortcut(world.eventsUrl, { callbackId, message: message.ts, user });
  return world.until(() => world.fake.views[before]);
}

async function submit(view: SlackView, values: Record<string, string>): Promise<Message> {
  const before = world.jobCount();
  await world.submit(view, values);
  return world.finished((await world.jobMessage(before)).ts);
}

const inputIds = (view: SlackView) =>
  view.blocks.flatMap((b) => (b.type === "input" && b.block_id ? [b.block_id] : []));

describe("message shortcuts", () => {
  it("are declared in the manifest, one per image input", () => {
    expect(manifest.features.shortcuts).toEqual([
      expect.objectContaining({ name: "Edit image", type: "message", callback_id: "edit_image" }),
      expect.objectContaining({ name: "Animate image", type: "message", callback_id: "animate_image" }),
      expect.objectContaining({
        name: "Use as thumbnail reference",
        type: "message",
        callback_id: "thumbnail_reference",
      }),
    ]);
    for (const shortcut of manifest.features.shortcuts) {
      expect(shortcut.description.length).toBeLessThanOrEqual(150);
    }
  });

  it("Edit image on a member's shared picture uploads it and edits it with the form's prompt", async () => {
    const picture = world.png("cat.png", [10, 120, 200]);
    const posted = world.fake.postAsUser({ text: "look", files: [picture] });
    const before = uploads().length;

    const view = await open(posted, "edit_image");
    expect((view.title as { text: string }).text).toBe("Edit image");
    expect(inputIds(view)).toEqual(["prompt"]);
    const edited = await submit(view, { prompt: "give the cat a hat" });

    expect(
      uploads()
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ fileName: "cat.png", contentType: "image/png", fileSize: picture.size }]);
    const edit = world.creations("/api/image/edit").at(-1)?.json as { referenceImageMediaId: string };
    expect(edit).toEqual({
      prompt: "give the cat a hat",
      name: "give the cat a hat",
      referenceImageMediaId: expect.any(String),
    });
    expect(world.emu.media(edit.referenceImageMediaId)).toMatchObject({
      receivedBytes: picture.size,
      finalized: true,
    });
    expect(headerOf(edited)).toMatch(/^✅ Image: give the cat a hat/);
    // The job is the one who used the shortcut.
    expect((await world.stores.jobs.get(jobIdOf(edited)!))?.requester.userId).toBe(world.fake.users.other.id);
  });

  it("Animate image on one of the bot's own results starts from its media id, uploading nothing", async () => {
    const result = await world.job("image generate a lighthouse");
    const { mediaId } = (await world.stores.jobs.get(jobIdOf(result)!))!.result as { mediaId: string };
    const before = uploads().length;

    const view = await open(result, "animate_image");
    expect(inputIds(view)).toEqual(["prompt", "duration", "aspect_ratio", "resolution"]);
    const video = await submit(view, { prompt: "the beam sweeps", duration: "4", aspect_ratio: "16:9" });

    expect(world.creations("/api/video/cinematic/create").at(-1)?.json).toEqual({
      name: "the beam sweeps",
      prompt: "the beam sweeps",
      firstFrameImageMediaId: mediaId,
      aspectRatio: "16:9",
      durationSeconds: 4,
    });
    expect(uploads().length).toBe(before);
    expect(headerOf(video)).toMatch(/^✅ Cinematic video: the beam sweeps/);
  });

  it("Use as thumbnail reference makes a thumbnail with the picture as its reference", async () => {
    const picture = world.png("face.png", [240, 200, 10]);
    const posted = world.fake.postAsUser({ files: [picture] });
    const before = uploads().length;

    const view = await open(posted, "thumbnail_reference");
    expect((view.title as { text: string }).text).toBe("Thumbnail from image");
    expect(inputIds(view)).toEqual(["prompt", "aspect_ratio", "negative_prompt", "seed"]);
    const thumbnail = await submit(view, { prompt: "a cooking channel intro", aspect_ratio: "9:16" });

    expect(uploads().slice(before)).toHaveLength(1);
    const generate = world.creations("/api/thumbnail/generate").at(-1)?.json as {
      referenceImageMediaIds: string[];
    };
    expect(generate).toEqual({
      prompt: "a cooking channel intro",
      name: "a cooking channel intro",
      aspectRatio: "9:16",
      referenceImageMediaIds: [expect.any(String)],
    });
    expect(world.emu.media(generate.referenceImageMediaIds[0]!)).toMatchObject({
      receivedBytes: picture.size,
    });
    expect(headerOf(thumbnail)).toMatch(/^✅ Thumbnail: a cooking channel intro/);
  });

  it("delivered twice by Slack (x-slack-retry-num) opens its form once, with no error", async () => {
    const posted = world.fake.postAsUser({ text: "twice", files: [world.png("twice.png", [1, 2, 3])] });
    const before = world.fake.views.length;
    const { payload } = world.fake.payloads.messageShortcut({
      callbackId: "edit_image",
      message: posted.ts,
      user: world.fake.users.other.id,
    });

    const form = { payload: JSON.stringify(payload) };
    const answers = await Promise.all([
      postSigned(world.eventsUrl, form, world.fake.signingSecret),
      postSigned(world.eventsUrl, form, world.fake.signingSecret, {
        retryNum: 1,
        retryReason: "http_timeout",
      }),
    ]);
    await world.until(() => world.fake.views[before]);
    // One of the two is dropped, and says so, once the other took the gesture: a second form
    // would be open by then. A copy that ran shows as a second form or a form that did not open.
    const didNotOpen = () => world.fake.ephemerals().filter((m) => m.text.includes("did not open"));
    await world.until(
      () =>
        log.lines.some(
          (l) =>
            l.msg === "Slack delivered a gesture again: the copy is dropped" &&
            l.deliveryId === `trigger:${payload.trigger_id}`,
        ) ||
        world.fake.views.length - before > 1 ||
        didNotOpen().length > 0,
    );

    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(world.fake.views.length - before).toBe(1);
    // The copy must not try the spent trigger again: that tells the person the form did not open.
    expect(didNotOpen()).toEqual([]);
  });

  it("on a message without an image: a private answer that says so, no form and no service call", async () => {
    const posted = world.fake.postAsUser({ text: "just words" });
    const views = world.fake.views.length;
    const calls = world.emu.calls.length;
    const before = world.ephemeralTexts(world.fake.users.other.id).length;
    await world.fake.messageShortcut(world.eventsUrl, {
      callbackId: "edit_image",
      message: posted.ts,
      user: world.fake.users.other.id,
    });
    const notice = await world.until(() => world.ephemeralTexts(world.fake.users.other.id)[before]);
    expect(notice).toContain("No image in that message");
    expect(notice).toContain("Edit image works on a message with an image");
    expect(world.fake.views.length).toBe(views);
    expect(world.emu.calls.length).toBe(calls);
  });

  it("goes through the tenant's allow-lists: refused privately in a channel the bot is not enabled in", async () => {
    const tenant = { platform: "slack" as const, tenantId: world.fake.teamId };
    const elsewhere = world.fake.addChannel(`elsewhere-${Date.now()}`);
    await world.stores.tenants.update(tenant, { allowedChannelIds: [elsewhere] });
    try {
      const posted = world.fake.postAsUser({ files: [world.png("dog.png")] });
      const before = uploads().length;
      const edits = world.creations("/api/image/edit").length;
      const user = world.fake.users.other.id;
      const answers = world.ephemeralTexts(user).length;
      const view = await open(posted, "edit_image", user);
      await world.submit(view, { prompt: "a hat" });
      const answer = await world.until(() => world.ephemeralTexts(user)[answers]);
      expect(answer).toContain("The bot is not enabled in this channel");
      expect(uploads().length).toBe(before);
      expect(world.creations("/api/image/edit").length).toBe(edits);
    } finally {
      await world.stores.tenants.update(tenant, { allowedChannelIds: [] });
    }
  });
});
