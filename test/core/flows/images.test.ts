import { describe, expect, it } from "vitest";
import { isCard } from "../../../src/core/base/cards.js";
import { type Harness, harnessPerFile, png, text } from "../bot/harness.js";
import { isPng } from "../fake-adapter.js";

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

describe("image commands", () => {
  it("image.generate: one message goes from queued to the image, with Regenerate, and the requester is told", async () => {
    const ref = await h.startJob("image.generate", {
      prompt: "a red fox in snow",
      aspect_ratio: "16:9",
      seed: "7",
    });
    const result = await h.finished(ref);

    const history = h.chat.history(ref).filter(isCard);
    expect(history[0]).toMatchObject({ title: "Image: a red fox in snow", progress: { label: "Queued" } });
    expect(result).toMatchObject({ title: "Image: a red fox in snow", tone: "success" });
    // How it was made: the whole prompt and each setting it was made with.
    expect(result.recipe).toEqual([
      { name: "Prompt", value: "a red fox in snow" },
      { name: "Aspect ratio", value: "16:9" },
      { name: "Seed", value: "7" },
    ]);
    expect(result.actions.map((a) => [a.action, a.type === "button" && a.label])).toEqual([
      ["edit", "Edit"],
      ["animate_image", "Animate"],
      ["remix", "Remix"],
      ["regenerate", "Regenerate"],
      ["save_preset", "Save as preset"],
      ["delete_result", "Delete"],
    ]);
    const [image] = h.chat.files();
    expect(image?.contentType).toBe("image/png");
    expect(isPng(image!.bytes)).toBe(true);

    const notice = h.chat.posts.find((p) => p.options.mentionUserId === "user-1");
    expect(notice?.message).toEqual({ text: "Image: a red fox in snow is ready." });

    const [create] = h.creations("/api/image/generate");
    expect(create?.json).toMatchObject({
      prompt: "a red fox in snow",
      name: "a red fox in snow",
      aspectRatio: "16:9",
      seed: 7,
    });
  });

  it("a running job's card says how long it has run and, once progress moves, how long is left", async () => {
    h.emu.planNextJob("image", { durationMs: 3_000 });
    const ref = await h.startJob("image.generate", { prompt: "a slow fox" });
    await h.finished(ref);
    const running = h.chat
      .history(ref)
      .filter(isCard)
      .filter((c) => c.progress?.label === "Working" && c.progress.percent !== null);
    expect(running.length).toBeGreaterThan(0);
    for (const c of running)
      expect(c.lines.at(-1)).toMatch(/^Running for \d+ s, about \d+ (s|min)( \d+ s)? left\.$/);
  });

  it("Regenerate sends the same inputs with a new seed, as a new job", async () => {
    const ref = await h.startJob("image.generate", { prompt: "a lighthouse", seed: 1 });
    await h.finished(ref);
    const before = h.chat.posts.length;
    await h.click(ref, "regenerate");
    const second = h.chat.posts.slice(before).find((p) => !p.options.ephemeral)!.ref;
    expect(second.messageId).not.toBe(ref.messageId);
    await h.finished(second);
    const [first, again] = h
      .creations("/api/image/generate")
      .map((c) => c.json as { prompt: string; seed: number });
    expect(again?.prompt).toBe(first?.prompt);
    expect(again?.seed).not.toBe(first?.seed);
  });

  it("Animate asks the clip's resolution, which reaches the request and the clip's recipe", async () => {
    const ref = await h.startJob("image.generate", { prompt: "a harbour" });
    await h.finished(ref);
    const before = h.chat.posts.length;
    const form = await h.submit(ref, "animate_image", { prompt: "boats sway", resolution: "1080p" });
    expect(Object.keys(form.form.options.shape)).toEqual([
      "prompt",
      "duration",
      "aspect_ratio",
      "resolution",
    ]);
    const clip = h.chat.posts.slice(before).find((p) => !p.options.ephemeral)!.ref;
    const made = await h.finished(clip, 15_000);
    expect(h.creations("/api/video/cinematic/create").at(-1)?.json).toMatchObject({
      prompt: "boats sway",
      resolution: "1080p",
    });
    expect(made.recipe).toContainEqual({ name: "Resolution", value: "1080p" });
  });

  it("image.edit streams the attachment through the upload flow and edits it", async () => {
    const photo = png("cat.png");
    const ref = await h.startJob(
      "image.edit",
      { prompt: "make it a watercolor" },
      { attachments: { image: [photo] } },
    );
    const result = await h.finished(ref);
    expect(result.tone).toBe("success");
    const [init] = h.emu.callsTo("POST", "/api/media/initialize");
    expect(init?.json).toEqual({ fileName: "cat.png", contentType: "image/png", fileSize: photo.size });
    const [edit] = h.creations("/api/image/edit");
    const mediaId = (edit!.json as { referenceImageMediaId: string }).referenceImageMediaId;
    expect(h.emu.media(mediaId)).toMatchObject({ receivedBytes: photo.size, finalized: true });
  });

  it("image.inpaint uploads the image and its mask", async () => {
    const ref = await h.startJob(
      "image.inpaint",
      { prompt: "a red door" },
      { attachments: { image: [png("house.png")], mask: [png("mask.png", [255, 255, 255])] } },
    );
    expect((await h.finished(ref)).tone).toBe("success");
    const [call] = h.creations("/api/image/inpaint");
    expect(call?.json).toMatchObject({
      originalImageMediaId: expect.any(String),
      maskImageMediaId: expect.any(String),
    });
    expect(text(h.chat.card(ref))).toContain("Image: a red door");
  });
});
