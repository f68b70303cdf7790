import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createMediaClient } from "../../src/core/api/client.js";
import type { Message, SlackView } from "../fakes/slack/index.js";
import { actionIds, headerOf, jobIdOf, type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * Follow-ups in Slack: a result's button opens its form with the click's trigger_id, the form
 * starts a new job for whoever submitted it, and the service gets the result's own ids (no upload).
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

const uploads = () => world.emu.callsTo("POST", "/api/media/initialize").length;

async function jobOf(message: Message) {
  return (await world.stores.jobs.get(jobIdOf(message)!))!;
}

/** Clicks the follow-up `action` of a result as `user` and resolves with the form Slack shows. */
async function open(message: Message, action: string, user = world.fake.users.other.id, value?: string) {
  const actionId = actionIds(message).find(
    (id) => id.startsWith(`media:${action}:`) && (value === undefined || id.endsWith(`:${value}`)),
  );
  expect(actionId).toBeDefined();
  const before = world.fake.views.length;
  await world.fake.blockAction(world.eventsUrl, { actionId: actionId!, message: message.ts, user });
  return world.until(() => world.fake.views[before]);
}

/** Submits a follow-up's form and resolves with the new job's message once finished. */
async function submit(view: SlackView, values: Record<string, string>) {
  const before = world.jobCount();
  await world.submit(view, values);
  return world.finished((await world.jobMessage(before)).ts);
}

const inputIds = (view: SlackView) =>
  view.blocks.flatMap((b) => (b.type === "input" && b.block_id ? [b.block_id] : []));

describe("follow-ups on an image in Slack", () => {
  it("Edit: another member edits the result; image.edit gets its media id, nothing is uploaded", async () => {
    const image = await world.job("image generate a red fox --seed 7");
    const { mediaId } = (await jobOf(image)).result as { mediaId: string };
    const before = uploads();

    const view = await open(image, "edit");
    expect((view.title as { text: string }).text).toBe("Edit image");
    expect(inputIds(view)).toEqual(["prompt"]);
    const edited = await submit(view, { prompt: "make it a watercolor" });

    expect(world.creations("/api/image/edit").map((c) => c.json)).toEqual([
      { prompt: "make it a watercolor", name: "make it a watercolor", referenceImageMediaId: mediaId },
    ]);
    expect(uploads()).toBe(before);
    expect(headerOf(edited)).toMatch(/^✅ Image: make it a watercolor/);
    // The new job is theirs: the ready notice mentions them.
    const notice = await world.until(() =>
      world.channelMessages().find((m) => m.text.includes(`<@${world.fake.users.other.id}>`)),
    );
    expect(notice.text).toContain("make it a watercolor");
  });

  it("Animate: a cinematic clip starts from the result with the form's prompt, duration and shape", async () => {
    const image = await world.job("image generate a lighthouse");
    const { mediaId } = (await jobOf(image)).result as { mediaId: string };
    const before = uploads();
    const view = await open(image, "animate_image");
    const video = await submit(view, { prompt: "waves crash", duration: "5", aspect_ratio: "9:16" });
    expect(world.creations("/api/video/cinematic/create").map((c) => c.json)).toEqual([
      {
        name: "waves crash",
        prompt: "waves crash",
        firstFrameImageMediaId: mediaId,
        aspectRatio: "9:16",
        durationSeconds: 5,
      },
    ]);
    expect(uploads()).toBe(before);
    expect(headerOf(video)).toMatch(/^✅ Cinematic video: waves crash/);
  });

  it("Remix: the form shows the result's settings; the same command runs with what was changed", async () => {
    const image = await world.job(
      "image generate a castle --negative-prompt people --aspect-ratio 16:9 --seed 42",
    );
    // The result says how it was made, in a context block.
    const context = image.blocks.find((b) => b.type === "context" && JSON.stringify(b).includes("Prompt"));
    expect((context as { elements: { text: string }[] }).elements.map((e) => e.text)).toEqual([
      "*Prompt:* a castle",
      "*Negative prompt:* people",
      "*Aspect ratio:* 16:9",
      "*Seed:* 42",
    ]);
    const view = await open(image, "remix", world.fake.users.requester.id);
    const initial = Object.fromEntries(
      view.blocks.flatMap((b) => {
        if (b.type !== "input") return [];
        const element = (b as { element: { initial_value?: string; initial_option?: { value: string } } })
          .element;
        return [[b.block_id, element.initial_value ?? element.initial_option?.value]];
      }),
    );
    expect(initial).toEqual({
      prompt: "a castle",
      negative_prompt: "people",
      aspect_ratio: "16:9",
      seed: "42",
    });

    const before = world.creations("/api/image/generate").length;
    await submit(view, { prompt: "a castle at night", aspect_ratio: "16:9", seed: "42" });
    expect(
      world
        .creations("/api/image/generate")
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ prompt: "a castle at night", name: "a castle at night", aspectRatio: "16:9", seed: 42 }]);
  });
});

describe("follow-ups on videos and mockups in Slack", () => {
  it("Regenerate under a cinematic video sends the same request again", async () => {
    const video = await world.job("video cinematic a drone shot of hills --duration 4");
    const before = world.creations("/api/video/cinematic/create").length;
    const jobs = world.jobCount();
    const actionId = actionIds(video).find((id) => id.startsWith("media:regenerate:"));
    await world.fake.blockAction(world.eventsUrl, {
      actionId: actionId!,
      message: video.ts,
      user: world.fake.users.other.id,
    });
    await world.finished((await world.jobMessage(jobs)).ts);
    expect(world.creations("/api/video/cinematic/create")).toHaveLength(before + 1);
    const [first, again] = world.creations("/api/video/cinematic/create").slice(-2);
    expect(again?.json).toEqual(first?.json);
    expect(again?.json).toMatchObject({ prompt: "a drone shot of hills", durationSeconds: 4 });
  });

  it("Use in mockup: a product asset becomes the product of a new mockup, without an upload", async () => {
    const asset = await world.job("mockup asset a plain white mug --type product");
    const { mediaId } = (await jobOf(asset)).result as { mediaId: string };
    const before = uploads();
    const view = await open(asset, "use_in_mockup");
    await submit(view, { instruction: "on a marble table" });
    expect(world.creations("/api/mockup/generate").at(-1)?.json).toEqual({
      productMediaId: mediaId,
      logoMediaIds: [],
      instruction: "on a marble table",
    });
    expect(uploads()).toBe(before);
  });
});

describe("follow-ups on photo avatars and mockups in Slack", () => {
  it("Make a video: the avatar kept speaks the script in its own voice", async () => {
    const jobs = world.jobCount();
    await world.command("photo_avatar design Vera --gender female");
    const job = await world.jobMessage(jobs);
    const variants = await world.shows(job.ts, (m) =>
      actionIds(m).some((id) => id.startsWith("media:confirm:")),
    );
    const keep = actionIds(variants).find((id) => id.startsWith("media:confirm:") && id.endsWith(":1"));
    await world.fake.blockAction(world.eventsUrl, { actionId: keep!, message: job.ts });
    const kept = await world.shows(job.ts, (m) =>
      actionIds(m).some((id) => id.startsWith("media:avatar_video:")),
    );
    const [avatarId] = ((await jobOf(kept)).result as { avatarIds: string[] }).avatarIds;
    const service = createMediaClient({
      baseUrl: world.emu.url,
      timeoutMs: 5_000,
      logger: pino({ level: "silent" }),
    });
    const avatar = (await service.as("test-key").avatars.list()).find((a) => a.id === avatarId);
    const voice = (await service.as("test-key").voices.list()).find((v) => v.id === avatar?.voiceId);
    await service.close();

    const view = await open(kept, "avatar_video", world.fake.users.other.id, "1");
    expect((view.title as { text: string }).text).toBe("Make a video");
    expect(inputIds(view)).toEqual(["script", "voice"]);
    // The voice picker opens on the avatar's own voice, by its name.
    const picker = view.blocks.find((b) => b.block_id === "voice") as {
      element: { type: string; initial_option?: { text: { text: string }; value: string } };
    };
    expect(picker.element.type).toBe("external_select");
    expect(picker.element.initial_option).toEqual({
      text: { type: "plain_text", text: voice?.name },
      value: avatar?.voiceId,
    });
    const video = await submit(view, { script: "Hello from Vera" });
    expect(world.creations("/api/video/create").map((c) => c.json)).toEqual([
      { avatarId, voiceId: avatar?.voiceId, name: "Hello from Vera", text: "Hello from Vera" },
    ]);
    expect(headerOf(video)).toMatch(/^✅ Avatar video: Hello from Vera/);
  });

  it("Animate under a mockup: the custom style takes the prompt of the form, in the shape chosen", async () => {
    const form = await world.openForm("mockup generate logo on the mug");
    const jobs = world.jobCount();
    await world.submit(form, { product: [world.png("mug.png")], instruction: "logo on the mug" });
    const mockup = await world.finished((await world.jobMessage(jobs)).ts);
    const { mockupId } = (await jobOf(mockup)).inputs as { mockupId: string };

    const view = await open(mockup, "animate_mockup");
    expect(inputIds(view)).toEqual(["style", "prompt", "aspect_ratio"]);
    const before = world.creations("/api/mockup/video").length;
    await submit(view, { style: "custom", prompt: "the mug turns slowly", aspect_ratio: "16:9" });
    expect(
      world
        .creations("/api/mockup/video")
        .slice(before)
        .map((c) => c.json),
    ).toEqual([
      { mockupId, animationStyle: "custom", userPrompt: "the mug turns slowly", aspectRatio: "16:9" },
    ]);
  });
});

describe("follow-ups that take a file again, in Slack", () => {
  it("Use in mockup under a logo asset: the logo goes on the product photo of the form, the logo by its media id", async () => {
    const asset = await world.job("mockup asset a fox head logo --type logo");
    const { mediaId } = (await jobOf(asset)).result as { mediaId: string };
    const before = world.emu.callsTo("POST", "/api/media/initialize").length;
    const view = await open(asset, "use_in_mockup");
    expect(inputIds(view)).toEqual(["instruction", "product"]);
    const product = world.png("mug.png", [250, 250, 250]);
    const jobs = world.jobCount();
    await world.submit(view, { instruction: "logo on the mug", product: [product] });
    const mockup = await world.finished((await world.jobMessage(jobs)).ts);

    // One upload: the product photo; the logo is the asset the service already holds.
    const uploaded = world.emu.callsTo("POST", "/api/media/initialize").slice(before);
    expect(uploaded.map((c) => c.json)).toEqual([
      { fileName: "mug.png", contentType: "image/png", fileSize: product.size },
    ]);
    const generate = world.creations("/api/mockup/generate").at(-1)?.json as { productMediaId: string };
    expect(generate).toEqual({
      productMediaId: expect.any(String),
      logoMediaIds: [mediaId],
      instruction: "logo on the mug",
    });
    expect(world.emu.media(generate.productMediaId)).toMatchObject({ receivedBytes: product.size });
    expect(headerOf(mockup)).toMatch(/^✅ Mockup: logo on the mug/);
  });

  it("Regenerate under an avatar video made from audio asks for the audio again, saying why, and keeps the rest", async () => {
    const service = createMediaClient({
      baseUrl: world.emu.url,
      timeoutMs: 5_000,
      logger: pino({ level: "silent" }),
    });
    const [avatar] = await service.as("test-key").avatars.list();
    await service.close();
    const speech = world.fake.addUserFile(Buffer.alloc(3000, 7), {
      name: "hello.mp3",
      mimetype: "audio/mpeg",
    });
    const form = await world.openForm("video avatar");
    let jobs = world.jobCount();
    await world.submit(form, { avatar: avatar!.id, name: "Greeting", full_body: ["true"], audio: [speech] });
    const video = await world.finished((await world.jobMessage(jobs)).ts);
    expect(actionIds(video).some((id) => id.startsWith("media:regenerate:"))).toBe(false);

    const view = await open(video, "regenerate_spoken");
    expect((view.title as { text: string }).text).toBe("Regenerate");
    expect(inputIds(view)).toEqual(["audio"]);
    expect(JSON.stringify(view.blocks)).toContain("keeps no copy of the audio");

    const again = world.fake.addUserFile(Buffer.alloc(2500, 9), {
      name: "hello-again.mp3",
      mimetype: "audio/mpeg",
    });
    jobs = world.jobCount();
    await world.submit(view, { audio: [again] });
    const regenerated = await world.finished((await world.jobMessage(jobs)).ts);
    const [first, second] = world.creations("/api/video/create").slice(-2);
    expect(second?.fields).toEqual(first?.fields);
    expect(second?.fields).toEqual({ avatarId: avatar!.id, name: "Greeting", im2vid_full: "true" });
    expect(second?.files).toEqual([
      expect.objectContaining({ field: "speechFile", filename: "hello-again.mp3", size: 2500 }),
    ]);
    expect(headerOf(regenerated)).toMatch(/^✅ Avatar video: Greeting/);
  });
});

describe("follow-ups on a thumbnail in Slack", () => {
  /** The media id a delivered result keeps; the job's record takes it just after the message shows it. */
  async function storedMediaId(message: Message): Promise<string> {
    for (let tries = 0; tries < 400; tries++) {
      const { mediaId } = ((await jobOf(message)).result ?? {}) as { mediaId?: string };
      if (mediaId) return mediaId;
      await sleep(20);
    }
    throw new Error("the result kept no media id");
  }

  it("Edit, Animate and Remix start from the thumbnail's media id; Remix runs thumbnail generate again", async () => {
    const thumbnail = await world.job(
      "thumbnail generate a cooking show title --aspect-ratio 9:16 --negative-prompt text --seed 11",
    );
    const mediaId = await storedMediaId(thumbnail);
    const before = uploads();

    await submit(await open(thumbnail, "edit"), { prompt: "warmer colours" });
    expect(world.creations("/api/image/edit").at(-1)?.json).toEqual({
      prompt: "warmer colours",
      name: "warmer colours",
      referenceImageMediaId: mediaId,
    });

    await submit(await open(thumbnail, "animate_image"), {
      prompt: "steam rises",
      duration: "3",
      aspect_ratio: "9:16",
    });
    expect(world.creations("/api/video/cinematic/create").at(-1)?.json).toEqual({
      name: "steam rises",
      prompt: "steam rises",
      firstFrameImageMediaId: mediaId,
      aspectRatio: "9:16",
      durationSeconds: 3,
    });

    const remix = await open(thumbnail, "remix");
    expect(inputIds(remix)).toEqual(["prompt", "negative_prompt", "aspect_ratio", "seed"]);
    const remixed = await submit(remix, {
      prompt: "a baking show title",
      negative_prompt: "text",
      aspect_ratio: "9:16",
      seed: "11",
    });
    expect(world.creations("/api/thumbnail/generate").at(-1)?.json).toEqual({
      prompt: "a baking show title",
      name: "a baking show title",
      aspectRatio: "9:16",
      negativePrompt: "text",
      seed: 11,
    });
    expect(headerOf(remixed)).toMatch(/^✅ Thumbnail: a baking show title/);
    expect(uploads()).toBe(before);
  });
});
