import { describe, expect, it } from "vitest";
import { actor, type Harness, harnessPerFile, png, text } from "../bot/harness.js";
import { isMp4, isPng } from "../fake-adapter.js";

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

async function generated() {
  const ref = await h.startJob(
    "mockup.generate",
    { instruction: "logo centered on the mug" },
    { attachments: { product: [png("mug.png")], logos: [png("logo.png", [0, 0, 200])] } },
  );
  return { ref, card: await h.finished(ref) };
}

describe("mockups", () => {
  it("mockup.generate (synchronous) posts the image with Animate, whose form asks style, prompt and shape", async () => {
    const { card } = await generated();
    expect(card).toMatchObject({ title: "Mockup: logo centered on the mug", tone: "success" });
    expect(isPng(h.chat.files()[0]!.bytes)).toBe(true);
    expect(card.actions.map((a) => [a.action, a.type === "button" && a.label])).toEqual([
      ["animate_mockup", "Animate"],
      ["delete_result", "Delete"],
    ]);
    const form = await h.bot.actionForm({
      action: "animate_mockup",
      jobId: card.actions[0]!.jobId,
      actor: actor(),
      conversation: { channelId: "C1" },
    });
    expect(form?.title).toBe("Animate mockup");
    expect(Object.keys(form!.form.options.shape)).toEqual(["style", "prompt", "aspect_ratio"]);
    expect(form?.initial).toEqual({});
    const [call] = h.creations("/api/mockup/generate");
    expect(call?.json).toMatchObject({
      instruction: "logo centered on the mug",
      logoMediaIds: [expect.any(String)],
    });
    // Synchronous: nothing to poll.
    expect(h.emu.callsTo("GET", /\/api\/mockup\/.*\/status/)).toHaveLength(0);
  });

  it("animating a mockup makes an 8-second video from the list of mockup videos", async () => {
    const { ref } = await generated();
    const before = h.chat.posts.length;
    await h.submit(ref, "animate_mockup", { style: "neo_noir_night", aspect_ratio: "16:9" });
    const videoRef = h.chat.posts.slice(before).find((p) => !p.options.ephemeral)!.ref;
    const video = await h.finished(videoRef);
    expect(video.title).toBe("Mockup video: Neo noir night");
    expect(isMp4(h.chat.files().at(-1)!.bytes)).toBe(true);
    expect(h.creations("/api/mockup/video")[0]?.json).toEqual({
      mockupId: expect.any(String),
      animationStyle: "neo_noir_night",
      aspectRatio: "16:9",
    });
    expect(h.emu.callsTo("GET", "/api/mockup/videos").length).toBeGreaterThan(0);
  });

  it("the custom style animates with the prompt typed in the form, and is refused without one", async () => {
    const { ref } = await generated();
    await h.submit(ref, "animate_mockup", { style: "custom" });
    expect(text(h.lastEphemeral())).toContain("prompt is required with the custom style");
    expect(h.creations("/api/mockup/video")).toHaveLength(0);

    const before = h.chat.posts.length;
    await h.submit(ref, "animate_mockup", { style: "custom", prompt: "the mug spins slowly" });
    await h.finished(h.chat.posts.slice(before).find((p) => !p.options.ephemeral)!.ref);
    expect(h.creations("/api/mockup/video")[0]?.json).toMatchObject({
      animationStyle: "custom",
      userPrompt: "the mug spins slowly",
    });
  });

  it("mockup.video animates a mockup picked from the list; mockup.list, mockup.videos list them", async () => {
    await generated();
    await h.command("mockup.list");
    const listed = text(h.lastEphemeral());
    const mockupId = /id (\S+)/.exec(listed)![1]!;
    const ref = await h.startJob("mockup.video", {
      mockup: mockupId,
      style: "custom",
      prompt: "slow spin",
      aspect_ratio: "16:9",
    });
    await h.finished(ref);
    expect(h.creations("/api/mockup/video")[0]?.json).toEqual({
      mockupId,
      animationStyle: "custom",
      userPrompt: "slow spin",
      aspectRatio: "16:9",
    });
    await h.command("mockup.videos");
    expect(text(h.lastEphemeral())).toContain(`mockup ${mockupId}`);
  });

  it("mockup.asset and mockup.asset_edit resolve their image from the asset list", async () => {
    const ref = await h.startJob("mockup.asset", { prompt: "a minimalist fox logo", type: "logo" });
    expect((await h.finished(ref)).title).toBe("Mockup logo: a minimalist fox logo");
    const edit = await h.startJob(
      "mockup.asset_edit",
      { prompt: "make it blue", type: "logo" },
      { attachments: { image: [png("logo.png")] } },
    );
    expect((await h.finished(edit)).title).toBe("Edited logo: make it blue");
    expect(h.chat.files().filter((f) => isPng(f.bytes))).toHaveLength(2);
    expect(h.emu.callsTo("GET", "/api/mockup/assets").length).toBeGreaterThanOrEqual(2);
    await h.command("mockup.assets");
    expect(text(h.lastEphemeral())).toMatch(/a minimalist fox logo/);
  });
});

describe("thumbnails", () => {
  it("thumbnail.generate posts the image from its details; Regenerate uses a new seed; thumbnail.list pages", async () => {
    const ref = await h.startJob(
      "thumbnail.generate",
      { prompt: "shocked face next to a giant burger", aspect_ratio: "9:16", seed: 3 },
      { attachments: { references: [png("face.png")] } },
    );
    const card = await h.finished(ref);
    expect(card.title).toBe("Thumbnail: shocked face next to a giant burger");
    expect(isPng(h.chat.files()[0]!.bytes)).toBe(true);
    const before = h.chat.posts.length;
    await h.click(ref, "regenerate");
    await h.finished(h.chat.posts.slice(before).find((p) => !p.options.ephemeral)!.ref);
    const seeds = h.creations("/api/thumbnail/generate").map((c) => (c.json as { seed: number }).seed);
    expect(seeds[0]).toBe(3);
    expect(seeds[1]).not.toBe(3);

    await h.command("thumbnail.list");
    expect(h.lastEphemeral().title).toBe("Thumbnails");
    expect(h.lastEphemeral().footer).toMatch(/^Page 1 of 1/);
  });
});
