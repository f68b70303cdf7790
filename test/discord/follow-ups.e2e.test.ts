import { setTimeout as sleep } from "node:timers/promises";
import type { APIMessage } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { decodeControlId } from "../../src/discord/custom-id.js";
import type { FakeFile, InjectedInteraction } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, shown } from "./harness.js";

/**
 * Follow-ups on Discord: a result's button opens its form as the click's first response, the form
 * starts a new job for whoever filled it in, and the service gets the result's own ids (no upload).
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

interface ModalData {
  custom_id: string;
  title: string;
  components: {
    label: string;
    component: {
      custom_id: string;
      type: number;
      value?: string;
      options?: { value: string; default?: boolean }[];
    };
  }[];
}

const uploads = () => world.emu.callsTo("POST", "/api/media/initialize").length;

/** Runs a command and resolves with its finished job message. */
async function result(input: Parameters<DiscordWorld["command"]>[0]): Promise<APIMessage> {
  return world.jobMessage(await world.command(input));
}

/** The job record behind a result message (its buttons carry the job id). */
async function jobOf(message: APIMessage) {
  const [, customId] = JSON.stringify(message.components).match(/"custom_id":"([^"]+)"/) ?? [];
  const job = await world.stores.jobs.get(decodeControlId(customId!)!.jobId);
  return job!;
}

/** Clicks `action` as `user` and resolves with the modal Discord was asked to show. */
async function open(message: APIMessage, action: string, user = world.fake.users.other, value?: string) {
  const click = await world.fake.clickButton(message, world.controlId(message, action, value), user);
  const response = await world.firstResponse(click);
  expect(response.type).toBe(9);
  return response.data as ModalData;
}

/** Submits the modal and resolves with the new job's finished message. */
async function submit(
  modal: ModalData,
  fields: Record<string, string | string[] | FakeFile[]>,
): Promise<{ submitted: InjectedInteraction; message: APIMessage }> {
  const submitted = await world.fake.submitModal(modal.custom_id, fields);
  return { submitted, message: await world.jobMessage(submitted) };
}

/** The media id a delivered result keeps; the job's record takes it just after the message shows it. */
async function storedMediaId(message: APIMessage): Promise<string> {
  for (let tries = 0; tries < 400; tries++) {
    const { mediaId } = ((await jobOf(message)).result ?? {}) as { mediaId?: string };
    if (mediaId) return mediaId;
    await sleep(20);
  }
  throw new Error("the result kept no media id");
}

const inputs = (modal: ModalData) => modal.components.map((c) => c.component.custom_id);

describe("follow-ups on an image", () => {
  it("Edit: another member edits the result; image.edit gets its media id, nothing is uploaded", async () => {
    const image = await result({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a red fox", seed: 7 },
    });
    const { mediaId } = (await jobOf(image)).result as { mediaId: string };
    const before = uploads();

    const modal = await open(image, "edit");
    expect(modal.title).toBe("Edit image");
    expect(inputs(modal)).toEqual(["prompt"]);
    const { message } = await submit(modal, { prompt: "make it a watercolor" });

    expect(world.creations("/api/image/edit").map((c) => c.json)).toEqual([
      { prompt: "make it a watercolor", name: "make it a watercolor", referenceImageMediaId: mediaId },
    ]);
    expect(uploads()).toBe(before);
    expect(shown(message)).toContain("Image: make it a watercolor");
    // The new job is theirs: they are the one told it is ready.
    const notice = await world.until(() => world.notices(world.fake.users.other.id).at(-1));
    expect(shown(notice)).toContain("make it a watercolor");
  });

  it("Animate: a cinematic clip starts from the result, with the prompt, duration and shape of the form", async () => {
    const image = await result({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a lighthouse" },
    });
    const { mediaId } = (await jobOf(image)).result as { mediaId: string };
    const before = uploads();

    const modal = await open(image, "animate_image");
    expect(inputs(modal)).toEqual(["prompt", "duration", "aspect_ratio", "resolution"]);
    const { message } = await submit(modal, { prompt: "waves crash", duration: "5", aspect_ratio: ["9:16"] });

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
    expect(shown(message)).toContain("Cinematic video: waves crash");
  });

  it("Remix: the form shows the result's settings; the same command runs with what was changed", async () => {
    const image = await result({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a castle", negative_prompt: "people", aspect_ratio: "16:9", seed: 42 },
    });
    // The result says how it was made.
    expect(image.embeds[0]?.fields).toEqual(
      expect.arrayContaining([
        { name: "Prompt", value: "a castle", inline: true },
        { name: "Negative prompt", value: "people", inline: true },
        { name: "Aspect ratio", value: "16:9", inline: true },
        { name: "Seed", value: "42", inline: true },
      ]),
    );
    const modal = await open(image, "remix", world.fake.users.requester);
    const shownValues = Object.fromEntries(
      modal.components.map((c) => [
        c.component.custom_id,
        c.component.value ?? c.component.options?.find((o) => o.default)?.value,
      ]),
    );
    expect(shownValues).toEqual({
      prompt: "a castle",
      negative_prompt: "people",
      aspect_ratio: "16:9",
      seed: "42",
    });

    const before = world.creations("/api/image/generate").length;
    await submit(modal, {
      prompt: "a castle at night",
      negative_prompt: "",
      aspect_ratio: ["16:9"],
      seed: "42",
    });
    expect(
      world
        .creations("/api/image/generate")
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ prompt: "a castle at night", name: "a castle at night", aspectRatio: "16:9", seed: 42 }]);
  });
});

describe("follow-ups on videos, avatars and mockups", () => {
  it("Regenerate under a cinematic video sends the same request again", async () => {
    const video = await result({
      name: "video",
      subcommand: "cinematic",
      options: { prompt: "a drone shot of hills", duration: 4 },
    });
    const before = world.creations("/api/video/cinematic/create");
    await world.fake.clickButton(video, world.controlId(video, "regenerate"), world.fake.users.other);
    await world.until(() => world.creations("/api/video/cinematic/create").length > before.length);
    const [first, again] = world.creations("/api/video/cinematic/create").slice(-2);
    expect(again?.json).toEqual(first?.json);
    expect(again?.json).toMatchObject({ prompt: "a drone shot of hills", durationSeconds: 4 });
  });
});

describe("follow-ups on photo avatars and mockups", () => {
  it("Make a video: the avatar kept speaks the script in its own voice", async () => {
    const command = await world.command({
      name: "photo_avatar",
      subcommand: "design",
      options: { name: "Vera" },
    });
    const form = (await world.firstResponse(command)).data as { custom_id: string };
    const designed = await world.fake.submitModal(form.custom_id, {
      gender: "female",
      age: "30s",
      ethnicity: "",
      outfit: "",
      background: "",
    });
    const variants = await world.jobMessage(designed, (m) =>
      JSON.stringify(m.components ?? []).includes("confirm"),
    );
    await world.fake.clickButton(variants, world.controlId(variants, "confirm", "1"));
    const kept = await world.jobMessage(designed, (m) =>
      JSON.stringify(m.components ?? []).includes("avatar_video"),
    );
    const [avatarId] = ((await jobOf(kept)).result as { avatarIds: string[] }).avatarIds;
    const avatar = (await world.media.as("test-key").avatars.list()).find((a) => a.id === avatarId);

    const modal = await open(kept, "avatar_video", world.fake.users.other, "1");
    expect(modal.title).toBe("Make a video");
    expect(inputs(modal)).toEqual(["script", "voice"]);
    // The voice is picked from the account's voices, the avatar's own first and chosen.
    const voices = await world.media.as("test-key").voices.list();
    const picker = modal.components[1]!.component;
    expect(picker.type).toBe(3);
    expect(picker.options?.map((o) => o.value).sort()).toEqual(voices.map((v) => v.id).sort());
    expect(picker.options?.[0]).toMatchObject({ value: avatar?.voiceId, default: true });
    const { message } = await submit(modal, { script: "Hello from Vera" });

    expect(world.creations("/api/video/create").map((c) => c.json)).toEqual([
      { avatarId, voiceId: avatar?.voiceId, name: "Hello from Vera", text: "Hello from Vera" },
    ]);
    expect(shown(message)).toContain("Avatar video: Hello from Vera");

    // Another voice of the list, chosen in the picker.
    const other = voices.find((v) => v.id !== avatar?.voiceId)!;
    const again = await open(kept, "avatar_video", world.fake.users.other, "1");
    await submit(again, { script: "Hello again", voice: [other.id] });
    expect(world.creations("/api/video/create").at(-1)?.json).toEqual({
      avatarId,
      voiceId: other.id,
      name: "Hello again",
      text: "Hello again",
    });
  });

  it("Animate under a mockup: the custom style takes the prompt of the form, in the shape chosen", async () => {
    const mockup = await result({
      name: "mockup",
      subcommand: "generate",
      options: { instruction: "logo on the mug" },
      attachments: [{ ...world.png("mug.png"), option: "product" }],
    });
    const { mockupId } = (await jobOf(mockup)).inputs as { mockupId: string };
    const modal = await open(mockup, "animate_mockup");
    expect(inputs(modal)).toEqual(["style", "prompt", "aspect_ratio"]);
    const before = world.creations("/api/mockup/video").length;
    await submit(modal, { style: ["custom"], prompt: "the mug turns slowly", aspect_ratio: ["16:9"] });
    expect(
      world
        .creations("/api/mockup/video")
        .slice(before)
        .map((c) => c.json),
    ).toEqual([
      { mockupId, animationStyle: "custom", userPrompt: "the mug turns slowly", aspectRatio: "16:9" },
    ]);
  });

  it("Use in mockup: a product asset becomes the product of a new mockup, without an upload", async () => {
    const asset = await result({
      name: "mockup",
      subcommand: "asset",
      options: { prompt: "a plain white mug", type: "product" },
    });
    const { mediaId } = (await jobOf(asset)).result as { mediaId: string };
    const before = uploads();
    const modal = await open(asset, "use_in_mockup");
    const { message } = await submit(modal, { instruction: "on a marble table" });
    expect(world.creations("/api/mockup/generate").at(-1)?.json).toEqual({
      productMediaId: mediaId,
      logoMediaIds: [],
      instruction: "on a marble table",
    });
    expect(uploads()).toBe(before);
    expect(shown(message)).toContain("Mockup: on a marble table");
  });
});

describe("follow-ups that take a file again", () => {
  it("Use in mockup under a logo asset: the logo goes on the product photo of the form, the logo by its media id", async () => {
    const asset = await result({
      name: "mockup",
      subcommand: "asset",
      options: { prompt: "a fox head logo", type: "logo" },
    });
    const { mediaId } = (await jobOf(asset)).result as { mediaId: string };
    const before = world.emu.callsTo("POST", "/api/media/initialize").length;
    const modal = await open(asset, "use_in_mockup");
    expect(modal.title).toBe("Use in a mockup");
    expect(inputs(modal)).toEqual(["instruction", "product"]);
    const product = world.png("mug.png", [250, 250, 250]);
    const { message } = await submit(modal, { instruction: "logo on the mug", product: [product] });

    // One upload: the product photo; the logo is the asset the service already holds.
    const uploaded = world.emu.callsTo("POST", "/api/media/initialize").slice(before);
    expect(uploaded.map((c) => c.json)).toEqual([
      { fileName: "mug.png", contentType: "image/png", fileSize: product.data.length },
    ]);
    const generate = world.creations("/api/mockup/generate").at(-1)?.json as { productMediaId: string };
    expect(generate).toEqual({
      productMediaId: expect.any(String),
      logoMediaIds: [mediaId],
      instruction: "logo on the mug",
    });
    expect(world.emu.media(generate.productMediaId)).toMatchObject({ receivedBytes: product.data.length });
    expect(shown(message)).toContain("Mockup: logo on the mug");
  });

  it("Regenerate under an avatar video made from audio asks for the audio again, saying why, and keeps the rest", async () => {
    const [avatar] = await world.media.as("test-key").avatars.list();
    const speech = { name: "hello.mp3", contentType: "audio/mpeg", data: new Uint8Array(3000).fill(7) };
    const video = await result({
      name: "video",
      subcommand: "avatar",
      options: { avatar: avatar!.id, name: "Greeting", full_body: true },
      attachments: [{ ...speech, option: "audio" }],
    });
    // A script's Regenerate repeats at once; this one needs the file, so its button opens a form.
    expect(() => world.controlId(video, "regenerate")).toThrow();
    const modal = await open(video, "regenerate_spoken");
    expect(modal.title).toBe("Regenerate");
    expect(inputs(modal)).toEqual(["audio"]);
    expect(JSON.stringify(modal.components)).toContain("keeps no copy of this video's audio");

    const again = { name: "hello-again.mp3", contentType: "audio/mpeg", data: new Uint8Array(2500).fill(9) };
    const { message } = await submit(modal, { audio: [again] });
    const [first, second] = world.creations("/api/video/create").slice(-2);
    expect(second?.fields).toEqual(first?.fields);
    expect(second?.fields).toEqual({ avatarId: avatar!.id, name: "Greeting", im2vid_full: "true" });
    expect(second?.files).toEqual([
      expect.objectContaining({ field: "speechFile", filename: "hello-again.mp3", size: 2500 }),
    ]);
    expect(shown(message)).toContain("Avatar video: Greeting");
  });
});

describe("follow-ups on a thumbnail", () => {
  it("Edit, Animate and Remix start from the thumbnail's media id; Remix runs thumbnail generate again", async () => {
    const thumbnail = await result({
      name: "thumbnail",
      subcommand: "generate",
      options: { prompt: "a cooking show title", aspect_ratio: "9:16", negative_prompt: "text", seed: 11 },
    });
    const mediaId = await storedMediaId(thumbnail);
    const before = uploads();

    const edit = await open(thumbnail, "edit");
    await submit(edit, { prompt: "warmer colours" });
    expect(world.creations("/api/image/edit").at(-1)?.json).toEqual({
      prompt: "warmer colours",
      name: "warmer colours",
      referenceImageMediaId: mediaId,
    });

    const animate = await open(thumbnail, "animate_image");
    await submit(animate, { prompt: "steam rises", duration: "3", aspect_ratio: ["9:16"] });
    expect(world.creations("/api/video/cinematic/create").at(-1)?.json).toEqual({
      name: "steam rises",
      prompt: "steam rises",
      firstFrameImageMediaId: mediaId,
      aspectRatio: "9:16",
      durationSeconds: 3,
    });

    const remix = await open(thumbnail, "remix");
    expect(inputs(remix)).toEqual(["prompt", "negative_prompt", "aspect_ratio", "seed"]);
    const { message } = await submit(remix, { prompt: "a baking show title" });
    expect(world.creations("/api/thumbnail/generate").at(-1)?.json).toEqual({
      prompt: "a baking show title",
      name: "a baking show title",
      aspectRatio: "9:16",
      negativePrompt: "text",
      seed: 11,
    });
    expect(shown(message)).toContain("Thumbnail: a baking show title");
    expect(uploads()).toBe(before);
  });
});
