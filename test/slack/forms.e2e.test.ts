import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { solidPng } from "../fakes/media-api/png.js";
import type { FakeSlack, SlackView } from "../fakes/slack/index.js";
import { headerOf, type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/** Commands that need files or missing options: the modal, its inline errors, and the files' way to the service. */

let fake: FakeSlack;
let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
  fake = started.fake;
});

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The media the service received, in upload order, with what the bytes hashed to. */
const uploadedMedia = () =>
  world.emu
    .callsTo("POST", "/api/media/finalize")
    .map((c) => world.emu.media((c.json as { mediaId?: string } | undefined)?.mediaId ?? ""))
    .filter(Boolean);

function inputIds(view: SlackView): string[] {
  return view.blocks.flatMap((b) => (b.type === "input" && b.block_id ? [b.block_id] : []));
}

describe("forms in Slack", () => {
  it("opens image edit's form at once and streams the attached images into the service's upload", async () => {
    const view = await world.openForm("image edit put a party hat on the fox --seed 4");
    const images = [world.png("fox.png", [200, 40, 40]), world.png("fox2.png", [40, 200, 40])];

    const answer = await world.submit(view, {
      image: images,
      prompt: "put a party hat on the fox",
      seed: "4",
    });
    const job = await world.jobMessage();
    const done = await world.finished(job.ts);

    expect(fake.calls.find((c) => c.method === "views.open")?.answered.ok).toBe(true);
    expect(inputIds(view)).toEqual([
      "prompt",
      "image",
      "name",
      "aspect_ratio",
      "negative_prompt",
      "seed",
      "delivery",
      "preset",
    ]);
    expect(answer).toMatchObject({ status: 200, body: "" });
    // The person's files, each read once (the result's own file is looked up apart: is it processed?).
    const given = new Set(images.map((f) => f.id));
    expect(
      fake.calls
        .filter((c) => c.method === "files.info" && given.has(String(c.args.file)))
        .map((c) => c.args.file),
    ).toEqual(images.map((f) => f.id));
    const [edit] = world.creations("/api/image/edit");
    expect(edit?.json).toMatchObject({ prompt: "put a party hat on the fox", seed: 4 });
    expect(edit?.json).toMatchObject({ referenceImageMediaIds: [expect.any(String), expect.any(String)] });
    expect(headerOf(done)).toMatch(/^✅ Image: put a party hat/);
    expect(uploadedMedia().map((m) => m?.sha256)).toEqual([
      sha256(solidPng([200, 40, 40])),
      sha256(solidPng([40, 200, 40])),
    ]);
  });

  it("runs inpaint with an image and a mask from its form", async () => {
    const view = await world.openForm("image inpaint");
    const [before, jobs] = [uploadedMedia().length, world.jobCount()];

    await world.submit(view, {
      image: [world.png("room.png", [10, 10, 10])],
      mask: [world.png("mask.png", [255, 255, 255])],
      prompt: "a window with a view of the sea",
    });
    const done = await world.finished((await world.jobMessage(jobs)).ts);

    const [inpaint] = world.creations("/api/image/inpaint");
    expect(inpaint?.json).toMatchObject({ prompt: "a window with a view of the sea" });
    const ids = inpaint?.json as { originalImageMediaId: string; maskImageMediaId: string };
    expect(world.emu.media(ids.originalImageMediaId)?.sha256).toBe(sha256(solidPng([10, 10, 10])));
    expect(world.emu.media(ids.maskImageMediaId)?.sha256).toBe(sha256(solidPng([255, 255, 255])));
    expect(uploadedMedia()).toHaveLength(before + 2);
    expect(headerOf(done)).toMatch(/^✅/);
  });

  it("shows invalid values inline on their fields and keeps the form open, creating nothing", async () => {
    const view = await world.openForm("image edit");
    const edits = world.creations("/api/image/edit").length;
    const infos = fake.calls.filter((c) => c.method === "files.info").length;

    const answer = await world.submit(view, { image: [world.png()], prompt: "   ", seed: "-3" });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      response_action: "errors",
      errors: {
        prompt: expect.stringMatching(/prompt/),
        seed: expect.stringMatching(/seed must be at least 0/),
      },
    });
    expect(fake.views.find((v) => v.id === view.id)?.open).toBe(true);
    expect(world.creations("/api/image/edit")).toHaveLength(edits);
    expect(fake.calls.filter((c) => c.method === "files.info")).toHaveLength(infos);
  });

  it("makes a photo avatar from a selfie given in the form", async () => {
    const view = await world.openForm("photo_avatar selfie Eli");

    const before = world.jobCount();
    await world.submit(view, { photo: [world.png("selfie.png", [180, 140, 120])], name: "Eli" });
    const avatar = await world.finished((await world.jobMessage(before)).ts);

    expect(world.creations("/api/avatar/from-selfie/create")).toHaveLength(1);
    expect(headerOf(avatar)).toContain("Photo avatar: Eli");
    expect(shown(avatar)).toContain("Avatar id");
  });

  it("generates a mockup from a product photo, then animates it from the result's Animate form", async () => {
    const view = await world.openForm("mockup generate logo centered on the mug");
    const before = world.jobCount();
    await world.submit(view, {
      product: [world.png("mug.png", [250, 250, 250])],
      instruction: "logo centered on the mug",
    });
    const mockup = await world.finished((await world.jobMessage(before)).ts);
    const animate = JSON.stringify(mockup.blocks).match(/"action_id":"(media:animate_mockup:[^"]+)"/)?.[1];

    const views = fake.views.length;
    await fake.blockAction(world.eventsUrl, { actionId: animate!, message: mockup.ts });
    await world.submit(await world.until(() => fake.views[views]), { style: "luxury_macro" });
    const video = await world.finished((await world.jobMessage(before + 1)).ts);

    expect(world.creations("/api/mockup/generate")).toHaveLength(1);
    expect(world.creations("/api/mockup/video")[0]?.json).toMatchObject({ animationStyle: "luxury_macro" });
    expect(headerOf(video)).toMatch(/^✅ Mockup video/);
    expect(fake.uploads.filter((u) => u.threadTs === video.ts).map((u) => u.filename)).toEqual([
      expect.stringMatching(/\.mp4$/),
    ]);
  });

  it("edits a mockup asset from the form, with the type chosen in a select", async () => {
    const view = await world.openForm("mockup asset_edit make it blue");
    const before = world.jobCount();

    await world.submit(view, { image: [world.png("logo.png")], prompt: "make it blue", type: "logo" });
    const done = await world.finished((await world.jobMessage(before)).ts);

    expect(world.creations("/api/mockup/asset/edit")[0]?.json).toMatchObject({
      prompt: "make it blue",
      type: "logo",
    });
    expect(headerOf(done)).toMatch(/^✅ Edited logo/);
  });

  it("takes setup's API key only in the form, from admins only", async () => {
    const { admin, requester } = fake.users;
    const refusedView = await world.openForm("setup", requester.id);
    await world.submit(refusedView, { allowed_channels: "none" });
    const refused = await world.until(() =>
      world.ephemeralTexts(requester.id).find((t) => t.includes("Only admins")),
    );

    const view = await world.openForm("setup --api_key typed-in-the-channel", admin.id);
    await world.submit(view, { api_key: "test-key", default_aspect_ratio: "16:9" });
    const saved = await world.until(() =>
      world.ephemeralTexts(admin.id).find((t) => t.includes("Settings saved")),
    );

    expect(refused).toContain("Only admins can use setup");
    expect(JSON.stringify(view)).not.toContain("typed-in-the-channel");
    expect(saved).toContain("This workspace's own key");
  });
});
