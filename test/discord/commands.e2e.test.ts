import type { APIMessage } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/core/commands/catalogue.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * Every command of the catalogue used through Discord (photo-avatar design is in
 * variants.e2e, setup in errors.e2e): the real discord.js client, the fake Discord checking each
 * body, the emulator behind. Each test ends with no request Discord would have refused.
 */

let world: DiscordWorld;
const used = new Set<string>();

discordWorldPerFile((started) => {
  world = started;
});

async function run(
  name: string,
  subcommand: string | undefined,
  input: Parameters<DiscordWorld["run"]>[0] = { name },
) {
  used.add(subcommand ? `${name}.${subcommand}` : name);
  return world.run({ ...input, name, ...(subcommand && { subcommand }) });
}

/** Runs a command that starts a job and resolves with its message once finished, and the notice. */
async function job(
  name: string,
  subcommand: string,
  input: Omit<Parameters<DiscordWorld["run"]>[0], "name"> = {},
) {
  used.add(`${name}.${subcommand}`);
  const notices = world.notices().length;
  const interaction = await world.command({ ...input, name, subcommand });
  const message = await world.jobMessage(interaction);
  const notice = await world.until(() => world.notices()[notices]);
  return { interaction, message, notice };
}

const attachedNames = (m: APIMessage) => m.attachments.map((a) => a.filename);

describe("account, lists and help", () => {
  it("answers help, usage, avatars, voices and jobs only to the person who asked", async () => {
    const help = await run("help", undefined, { name: "help", options: { topic: "image" } });
    expect(shown(help)).toContain("image inpaint");
    const usage = await run("usage", undefined);
    expect(shown(usage)).toMatch(/Credits left/);
    const avatars = await run("avatars", undefined, { name: "avatars", options: { search: "emm" } });
    expect(shown(avatars)).toContain("cm2yaz9j10008l0qg9npyjgs3");
    expect(shown(avatars)).not.toContain("James");
    const voices = await run("voices", undefined, { name: "voices", options: { page: 1 } });
    expect(shown(voices)).toContain("Noah");
    const jobs = await run("jobs", undefined);
    expect(shown(jobs)).toContain("Your jobs");
    for (const answer of [help, usage, avatars, voices, jobs]) expect(isEphemeral(answer)).toBe(true);
    expect(world.fake.messages().filter((m) => !isEphemeral(m))).toEqual([]);
  });

  it("offers avatars, voices and mockups as autocomplete choices from the cached lists", async () => {
    const typed = await world.fake.sendAutocomplete({
      name: "video",
      subcommand: "avatar",
      focused: "avatar",
      value: "so",
      options: { script: "hi" },
    });
    const callback = await world.firstResponse(typed);
    expect(callback).toMatchObject({ type: 8 });
    const choices = (callback.data as { choices: { name: string; value: string }[] }).choices;
    expect(choices.map((c) => c.value)).toEqual(["cm2yb1p8e000cl0qg5t9r4kxm"]);
    expect(callback.at - world.fake.interaction(typed.id)!.createdAt).toBeLessThan(3000);

    const voices = await world.fake.sendAutocomplete({
      name: "video",
      subcommand: "avatar",
      focused: "voice",
      value: "",
      options: { avatar: "x" },
    });
    const voiceAnswer = await world.firstResponse(voices);
    expect((voiceAnswer.data as { choices: unknown[] }).choices.length).toBeGreaterThanOrEqual(4);
  });
});

describe("videos", () => {
  it("makes an avatar video from a script and posts the MP4, then finds and posts it again", async () => {
    const { message, notice } = await job("video", "avatar", {
      options: { avatar: "cm2yaz9j10008l0qg9npyjgs3", script: "Hello from Discord" },
    });
    expect(attachedNames(message)).toEqual([expect.stringMatching(/\.mp4$/)]);
    expect(message.embeds[0]?.image).toBeUndefined();
    expect(notice.content).toContain(`<@${world.fake.users.requester.id}>`);
    expect(notice.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
    const [create] = world.creations("/api/video/create");
    expect(create?.json).toMatchObject({
      avatarId: "cm2yaz9j10008l0qg9npyjgs3",
      voiceId: "1",
      text: "Hello from Discord",
    });

    const list = await run("video", "list");
    const videoId = /id (\w+)/.exec(shown(list))?.[1];
    expect(videoId).toBeDefined();
    const got = await run("video", "get", { name: "video", options: { video_id: videoId! } });
    expect(attachedNames(got)).toEqual([expect.stringMatching(/\.mp4$/)]);
  });

  it("makes a cinematic clip from a prompt and a first frame uploaded from Discord", async () => {
    const frame = world.png("frame.png");
    const { message } = await job("video", "cinematic", {
      options: { prompt: "waves at dusk", duration: 5, resolution: "720p" },
      attachments: [{ ...frame, option: "first_frame" }],
    });
    expect(attachedNames(message)).toEqual([expect.stringMatching(/\.mp4$/)]);
    const create = world.creations("/api/video/cinematic/create")[0]!.json as {
      firstFrameImageMediaId: string;
    };
    expect(create).toMatchObject({ prompt: "waves at dusk", durationSeconds: 5, resolution: "720p" });
    const mediaId = create.firstFrameImageMediaId;
    expect(world.emu.media(mediaId)).toMatchObject({ receivedBytes: frame.data.length, finalized: true });
  });
});

describe("images", () => {
  it("generates an image shown inside its embed, with a Regenerate button that starts a new job", async () => {
    const { message } = await job("image", "generate", {
      options: { prompt: "a red fox", seed: 7, aspect_ratio: "16:9" },
    });
    const [file] = message.attachments;
    expect(file?.content_type).toBe("image/png");
    expect(message.embeds[0]?.image?.url).toBe(file?.url);
    expect(world.creations("/api/image/generate")[0]?.json).toMatchObject({
      prompt: "a red fox",
      seed: 7,
      aspectRatio: "16:9",
    });

    const before = world.fake.messages().length;
    await world.fake.clickButton(message, world.controlId(message, "regenerate"));
    const fresh = await world.until(() =>
      world.fake
        .messages()
        .slice(before)
        .find((m) => m.embeds[0]?.title === message.embeds[0]?.title && m.attachments.length),
    );
    expect(fresh.id).not.toBe(message.id);
    expect(world.creations("/api/image/generate")).toHaveLength(2);
  });

  it("edits two attached images as one request, and inpaints with a mask", async () => {
    await job("image", "edit", {
      options: { prompt: "make it snow" },
      attachments: [
        { ...world.png("a.png"), option: "image" },
        { ...world.png("b.png", [0, 0, 200]), option: "image_2" },
      ],
    });
    const edit = world.creations("/api/image/edit")[0]?.json as { referenceImageMediaIds?: string[] };
    expect(edit.referenceImageMediaIds).toHaveLength(2);

    const { message } = await job("image", "inpaint", {
      options: { prompt: "a hat" },
      attachments: [
        { ...world.png("photo.png"), option: "image" },
        { ...world.png("mask.png", [255, 255, 255]), option: "mask" },
      ],
    });
    expect(message.attachments).toHaveLength(1);
    expect(world.creations("/api/image/inpaint")[0]?.json).toMatchObject({
      originalImageMediaId: expect.any(String),
      maskImageMediaId: expect.any(String),
    });
  });
});

describe("photo avatars", () => {
  it("makes an avatar from a selfie at once", async () => {
    const { message } = await job("photo_avatar", "selfie", {
      options: { name: "Me" },
      attachments: [{ ...world.png("me.png"), option: "photo" }],
    });
    expect(shown(message)).toContain("Avatar id");
    // Announced like any finished job (an earlier test's notice may arrive in between).
    await world.until(() => world.notices().find((n) => n.content.includes("Photo avatar: Me is ready")));
    expect(world.creations("/api/avatar/from-selfie/create")).toHaveLength(1);
    expect(world.emu.callsTo("GET", /\/api\/avatar\/jobs\//)).toHaveLength(0);
  });
});

describe("mockups", () => {
  it("generates a mockup, animates it from its Animate form, and lists mockups and videos", async () => {
    const { message } = await job("mockup", "generate", {
      options: { instruction: "logo centered on the mug" },
      attachments: [
        { ...world.png("mug.png"), option: "product" },
        { ...world.png("logo.png", [0, 120, 0]), option: "logos" },
      ],
    });
    expect(message.attachments).toHaveLength(1);
    const before = world.fake.messages().length;
    const click = await world.fake.clickButton(message, world.controlId(message, "animate_mockup"));
    const modal = (await world.firstResponse(click)).data as { custom_id: string };
    await world.fake.submitModal(modal.custom_id, { style: ["film_35mm_editorial"], prompt: "" });
    const video = await world.until(() =>
      world.fake
        .messages()
        .slice(before)
        .find((m) => m.attachments.some((a) => a.filename.endsWith(".mp4"))),
    );
    expect(video.embeds[0]?.title).toContain("Film 35mm editorial");
    expect(world.creations("/api/mockup/video")[0]?.json).toMatchObject({
      animationStyle: "film_35mm_editorial",
    });

    const list = await run("mockup", "list");
    const mockupId = /id (\w+)/.exec(shown(list))?.[1];
    expect(mockupId).toBeDefined();
    expect(shown(await run("mockup", "videos"))).toContain(mockupId!);
  });

  it("animates a mockup picked by command, and makes and edits assets", async () => {
    const [mockup] = await world.media.as("test-key").mockups.list();
    const { message } = await job("mockup", "video", {
      options: { mockup: mockup!.id, style: "custom", prompt: "slow orbit", aspect_ratio: "16:9" },
    });
    expect(attachedNames(message)).toEqual([expect.stringMatching(/\.mp4$/)]);

    await job("mockup", "asset", { options: { prompt: "a fox logo", type: "logo" } });
    await job("mockup", "asset_edit", {
      options: { prompt: "make it blue", type: "logo" },
      attachments: [{ ...world.png("logo.png"), option: "image" }],
    });
    const assets = await run("mockup", "assets");
    expect(shown(assets)).toContain("a fox logo");
  });
});

describe("thumbnails", () => {
  it("generates a thumbnail with a reference and lists it", async () => {
    const { message } = await job("thumbnail", "generate", {
      options: { prompt: "big bold title", aspect_ratio: "16:9" },
      attachments: [{ ...world.png("face.png"), option: "references" }],
    });
    expect(message.attachments).toHaveLength(1);
    expect(shown(await run("thumbnail", "list"))).toContain("big bold title");
  });
});

describe("the catalogue", () => {
  it("has been used whole (design, setup, budget, preset and settings in their own files)", () => {
    const rest = COMMANDS.map((c) => c.name).filter((n) => !used.has(n));
    expect(rest.sort()).toEqual([
      "budget",
      "photo_avatar.design",
      "preset.delete",
      "preset.list",
      "preset.publish",
      "preset.rename",
      "preset.save",
      "settings",
      "setup",
    ]);
  });
});
