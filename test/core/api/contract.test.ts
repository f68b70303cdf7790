import { describe, expect, it } from "vitest";
import { createMediaClient, fetchStatus, type NormalizedStatus } from "../../../src/core/api/index.js";
import { startEmulator } from "../../fakes/media-api/index.js";
import { filePart, KEY, LONG_JOB_MS, pollUntil, sha256Of, useEmulator } from "./support.js";

/**
 * One test per endpoint of spec section 4, through the client against the emulator, with both
 * content types where the spec has two. Each checks what went over the wire (the emulator's
 * recorded call) and what the client made of the answer.
 */

const ctx = useEmulator();
const image = (name = "photo.png") => ctx.emu.seedMedia(KEY, { contentType: "image/png", fileName: name });

async function finishedVideo() {
  ctx.emu.planNextJob("video", { durationMs: 20 });
  const [avatar] = await ctx.api.avatars.list();
  const { jobId } = await ctx.api.videos.create({
    avatarId: avatar!.id,
    name: "clip",
    voiceId: "1",
    text: "Hi",
  });
  const status = await pollUntil(ctx.api, "video", jobId);
  if (status.result?.kind !== "video") throw new Error(`video job ended ${status.state}`);
  return status.result.videoId;
}

async function readyDesignJob() {
  ctx.emu.planNextJob("photo_avatar", { durationMs: 20 });
  const { jobId } = await ctx.api.photoAvatars.createDesign({
    name: "Ada",
    design: { gender: "female", age: "30", outfit: "suit", isPortrait: true },
  });
  await pollUntil(ctx.api, "photo_avatar", jobId, (s) => s.state === "needs_choice");
  return jobId;
}

async function savedMockup() {
  return ctx.api.mockups.generate({ productMediaId: image("mug.png"), instruction: "logo on the mug" });
}

describe("4.1 usage", () => {
  it("GET /api/usage -> usage.get: plan, credits and per-type quotas", async () => {
    const usage = await ctx.api.usage.get();
    expect(usage).toMatchObject({ plan: "pro", credits_limit: 1000, credits_remaining: 1000 });
    expect(usage.usage?.ai_images).toEqual({ used: 0, limit: "unlimited" });
    expect(ctx.emu.callsTo("GET", "/api/usage")[0]).toMatchObject({ apiKey: KEY, status: 200 });
  });
});

describe("4.2 media upload", () => {
  it("POST /api/media/initialize -> media.initialize: a mediaId and a presigned uploadUrl", async () => {
    const upload = await ctx.api.media.initialize({
      fileName: "a.png",
      contentType: "image/png",
      fileSize: 10,
    });
    expect(upload.mediaId).toEqual(expect.any(String));
    expect(upload.uploadUrl).toMatch(/^http/);
    expect(ctx.emu.callsTo("POST", "/api/media/initialize")[0]?.json).toEqual({
      fileName: "a.png",
      contentType: "image/png",
      fileSize: 10,
    });
  });

  it("PUT {uploadUrl} -> media.put: raw bytes with the declared type and length, without the API key", async () => {
    const upload = await ctx.api.media.initialize({
      fileName: "a.png",
      contentType: "image/png",
      fileSize: 5_000,
    });
    await ctx.api.media.put(upload.uploadUrl, filePart("a.png", "image/png", 5_000));
    const put = ctx.emu.calls.find((call) => call.method === "PUT");
    expect(put).toMatchObject({ status: 200, contentType: "image/png" });
    expect(put?.apiKey).toBeUndefined();
    expect(ctx.emu.media(upload.mediaId)?.receivedBytes).toBe(5_000);
  });

  it("POST /api/media/finalize -> media.finalize", async () => {
    const upload = await ctx.api.media.initialize({
      fileName: "a.png",
      contentType: "image/png",
      fileSize: 64,
    });
    await ctx.api.media.put(upload.uploadUrl, filePart("a.png", "image/png", 64));
    await expect(ctx.api.media.finalize(upload.mediaId)).resolves.toMatchObject({ success: true });
    expect(ctx.emu.media(upload.mediaId)?.finalized).toBe(true);
  });

  it("media.upload streams initialize -> PUT -> finalize and returns a usable mediaId", async () => {
    const expected = await sha256Of(filePart("x", "image/png", 300_000, 3).stream);
    const mediaId = await ctx.api.media.upload(filePart("x", "image/png", 300_000, 3).stream, {
      fileName: "selfie.png",
      contentType: "image/png",
      size: 300_000,
    });
    expect(ctx.emu.media(mediaId)).toMatchObject({
      fileName: "selfie.png",
      receivedBytes: 300_000,
      sha256: expected.sha256,
      finalized: true,
    });
    const avatar = await ctx.api.photoAvatars.createFromSelfie({ name: "Me", photoMediaId: mediaId });
    expect(avatar.avatarId).toEqual(expect.any(String));
  });

  it("GET /api/media/{id}/view (a mockup's imageUrl) -> media.download", async () => {
    const mockup = await savedMockup();
    const file = await ctx.api.media.download(mockup.imageUrl);
    expect(file.contentType).toBe("image/png");
    const { bytes } = await sha256Of(file.body);
    expect(bytes).toBe(file.size);
    expect(ctx.emu.callsTo("GET", `/api/media/${mockup.mediaId}/view`)[0]?.apiKey).toBe(KEY);
  });
});

describe("4.3 avatar videos", () => {
  it("GET /api/avatars -> avatars.list", async () => {
    const avatars = await ctx.api.avatars.list();
    expect(avatars.length).toBeGreaterThan(0);
    expect(avatars[0]).toMatchObject({ id: expect.any(String), name: expect.any(String) });
  });

  it("GET /api/voices -> voices.list, with the `voices` wrapper key", async () => {
    const voices = await ctx.api.voices.list();
    expect(voices[0]).toMatchObject({ id: expect.any(String), name: expect.any(String) });
  });

  it("GET /api/voices -> voices.list, with the `avatars` wrapper key of the spec's sample", async () => {
    const emu = await startEmulator({ voicesKey: "avatars" });
    const client = createMediaClient({ baseUrl: emu.url });
    try {
      const voices = await client.as(KEY).voices.list();
      expect(voices.length).toBeGreaterThan(0);
      expect(voices[0]).toMatchObject({ id: expect.any(String) });
    } finally {
      await client.close();
      await emu.close();
    }
  });

  it("POST /api/video/create (JSON: voice + script) -> videos.create", async () => {
    const [avatar] = await ctx.api.avatars.list();
    const created = await ctx.api.videos.create({
      avatarId: avatar!.id,
      name: "hello",
      voiceId: "1",
      text: "Hello there",
      im2vid_full: true,
    });
    expect(created.jobId).toEqual(expect.any(String));
    expect(created.usage?.credits_used).toBeGreaterThan(0);
    expect(ctx.emu.callsTo("POST", "/api/video/create")[0]).toMatchObject({
      contentType: expect.stringMatching(/^application\/json/),
      json: { avatarId: avatar!.id, name: "hello", voiceId: "1", text: "Hello there", im2vid_full: true },
    });
  });

  it("POST /api/video/create (multipart: speechFile) -> videos.create", async () => {
    const [avatar] = await ctx.api.avatars.list();
    const created = await ctx.api.videos.create({
      avatarId: avatar!.id,
      name: "spoken",
      speechFile: filePart("speech.mp3", "audio/mpeg", 40_000),
      im2vid_full: false,
    });
    expect(created.jobId).toEqual(expect.any(String));
    const call = ctx.emu.callsTo("POST", "/api/video/create")[0];
    expect(call?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(call?.fields).toEqual({ avatarId: avatar!.id, name: "spoken", im2vid_full: "false" });
    expect(call?.files).toEqual([
      expect.objectContaining({
        field: "speechFile",
        filename: "speech.mp3",
        contentType: "audio/mpeg",
        size: 40_000,
      }),
    ]);
  });

  it("GET /api/video/{id}/status -> videos.status: from started to complete with a videoId", async () => {
    ctx.emu.planNextJob("video", { durationMs: LONG_JOB_MS });
    const [avatar] = await ctx.api.avatars.list();
    const { jobId } = await ctx.api.videos.create({
      avatarId: avatar!.id,
      name: "s",
      voiceId: "1",
      text: "x",
    });
    const first = await ctx.api.videos.status(jobId);
    expect(first).toMatchObject({ status: expect.stringMatching(/^inference_/), terminal: false });
    ctx.advanceService();
    const done = await pollUntil(ctx.api, "video", jobId);
    expect(done).toMatchObject({ state: "done", result: { kind: "video", videoId: expect.any(String) } });
  });

  it("GET /api/video/{id}/status -> videos.status: inference_retrying is followed as retrying to the end", async () => {
    ctx.emu.planNextJob("video", { durationMs: LONG_JOB_MS, retrying: true });
    const [avatar] = await ctx.api.avatars.list();
    const { jobId } = await ctx.api.videos.create({
      avatarId: avatar!.id,
      name: "r",
      voiceId: "1",
      text: "x",
    });
    const seen = new Set<string>();
    const follow = (s: NormalizedStatus) => {
      seen.add(s.state);
      return s.terminal;
    };
    follow(await fetchStatus(ctx.api, "video", jobId));
    // Into the middle third, where the service retries, then past the end.
    ctx.advanceService(LONG_JOB_MS / 2);
    follow(await fetchStatus(ctx.api, "video", jobId));
    ctx.advanceService();
    const done = await pollUntil(ctx.api, "video", jobId, follow);
    expect(seen).toContain("retrying");
    expect(done.state).toBe("done");
  });

  it("GET /api/videos -> videos.list: completed videos only", async () => {
    const videoId = await finishedVideo();
    const videos = await ctx.api.videos.list();
    expect(videos.map((v) => v.id)).toEqual([videoId]);
  });

  it("GET /api/video/{id} -> videos.get: the metadata with its downloadUrl", async () => {
    const videoId = await finishedVideo();
    const video = await ctx.api.videos.get(videoId);
    expect(video).toMatchObject({ id: videoId, name: "clip", downloadUrl: expect.stringMatching(/^http/) });
    // The signed downloadUrl works without the key, through the same client.
    const file = await ctx.api.media.download(video.downloadUrl);
    expect(file.contentType).toBe("video/mp4");
    await sha256Of(file.body);
  });

  it("GET /api/video/{id}/download -> videos.download: the MP4 as a stream with its size", async () => {
    const videoId = await finishedVideo();
    const file = await ctx.api.videos.download(videoId);
    expect(file.contentType).toBe("video/mp4");
    expect(file.size).toBeGreaterThan(0);
    const { bytes } = await sha256Of(file.body);
    expect(bytes).toBe(file.size);
  });

  it("a download dropped unread (only its size was wanted) ends quietly and frees the connection", async () => {
    const videoId = await finishedVideo();
    const probe = await ctx.api.videos.download(videoId);
    probe.body.destroy();
    await new Promise((resolve) => probe.body.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The same client still downloads: the dropped body did not leave a socket or an error behind.
    const again = await ctx.api.videos.download(videoId);
    expect((await sha256Of(again.body)).bytes).toBe(again.size);
  });
});

describe("4.4 cinematic videos", () => {
  it("POST /api/video/cinematic/create -> videos.createCinematic, polled on the video status", async () => {
    ctx.emu.planNextJob("cinematic", { durationMs: 20 });
    const firstFrame = image("first.png");
    const created = await ctx.api.videos.createCinematic({
      name: "waves",
      prompt: "waves at dusk",
      aspectRatio: "16:9",
      durationSeconds: 5,
      firstFrameImageMediaId: firstFrame,
      referenceImageMediaIds: [image("ref.png")],
    });
    expect(created.usage?.usage?.cinematic_videos?.used).toBe(1);
    expect(ctx.emu.callsTo("POST", "/api/video/cinematic/create")[0]?.json).toMatchObject({
      firstFrameImageMediaId: firstFrame,
    });
    const done = await pollUntil(ctx.api, "video", created.jobId);
    expect(done.result).toEqual({ kind: "video", videoId: expect.any(String) });
  });
});

describe("4.5 photo avatars", () => {
  it("POST /api/avatar/design/create -> photoAvatars.createDesign", async () => {
    const { jobId } = await ctx.api.photoAvatars.createDesign({ name: "Ada", design: { gender: "female" } });
    expect(jobId).toEqual(expect.any(String));
    expect(ctx.emu.callsTo("POST", "/api/avatar/design/create")[0]?.json).toEqual({
      name: "Ada",
      design: { gender: "female" },
    });
  });

  it("GET /api/avatar/jobs/{jobId}/status -> photoAvatars.status: variants_ready with two previews", async () => {
    const jobId = await readyDesignJob();
    const raw = await ctx.api.photoAvatars.status(jobId);
    expect(raw).toMatchObject({ status: "variants_ready", terminal: false });
    const status = await pollUntil(ctx.api, "photo_avatar", jobId, () => true);
    expect(status).toMatchObject({
      state: "needs_choice",
      result: { kind: "photo_avatar_variants", previewUrls: [expect.any(String), expect.any(String)] },
    });
  });

  it("POST /api/avatar/design/confirm -> photoAvatars.confirm: one avatar", async () => {
    const jobId = await readyDesignJob();
    const confirmed = await ctx.api.photoAvatars.confirm({ jobId, variant: 2 });
    expect(confirmed).toMatchObject({ avatarId: expect.any(String), mediaId: expect.any(String) });
    const status = await pollUntil(ctx.api, "photo_avatar", jobId);
    expect(status.result).toEqual({ kind: "photo_avatar", avatarIds: [confirmed.avatarId] });
  });

  it("POST /api/avatar/design/confirm-both -> photoAvatars.confirmBoth: two avatars", async () => {
    const jobId = await readyDesignJob();
    const both = await ctx.api.photoAvatars.confirmBoth({ jobId });
    expect(both.avatarIds).toHaveLength(2);
    expect(both.mediaIds).toHaveLength(2);
  });

  it("POST /api/avatar/from-selfie/create -> photoAvatars.createFromSelfie: the avatar at once", async () => {
    const { avatarId } = await ctx.api.photoAvatars.createFromSelfie({ name: "Me", photoMediaId: image() });
    expect((await ctx.api.avatars.list()).some((a) => a.id === avatarId && a.isPhoto)).toBe(true);
  });

  it("POST /api/avatar/from-selfie/enhance -> photoAvatars.enhanceSelfie, polled to the avatar", async () => {
    ctx.emu.planNextJob("photo_avatar", { durationMs: 20 });
    const { jobId } = await ctx.api.photoAvatars.enhanceSelfie({
      name: "Me",
      prompt: "studio light",
      photoMediaId: image(),
    });
    const done = await pollUntil(ctx.api, "photo_avatar", jobId);
    expect(done).toMatchObject({
      state: "done",
      result: { kind: "photo_avatar", avatarIds: [expect.any(String)] },
    });
  });
});

describe("4.6 AI images", () => {
  const common = { prompt: "a red fox in snow", name: "fox", aspectRatio: "16:9" as const, seed: 7 };

  it("POST /api/image/generate (JSON) -> images.generate", async () => {
    const created = await ctx.api.images.generate({ ...common, negativePrompt: "blur" });
    expect(created).toMatchObject({ jobId: expect.any(String), usage: { plan: "pro" } });
    expect(ctx.emu.callsTo("POST", "/api/image/generate")[0]).toMatchObject({
      contentType: expect.stringMatching(/^application\/json/),
      json: { ...common, negativePrompt: "blur" },
    });
  });

  it("POST /api/image/generate (multipart) -> images.generate with encoding multipart", async () => {
    const created = await ctx.api.images.generate(common, { encoding: "multipart" });
    expect(created.jobId).toEqual(expect.any(String));
    const call = ctx.emu.callsTo("POST", "/api/image/generate")[0];
    expect(call?.contentType).toMatch(/^multipart\/form-data/);
    expect(call?.fields).toEqual({ prompt: common.prompt, name: "fox", aspectRatio: "16:9", seed: "7" });
  });

  it("POST /api/image/edit (JSON, one image: referenceImageMediaId) -> images.edit", async () => {
    const ref = image();
    await expect(ctx.api.images.edit({ ...common, referenceImageMediaId: ref })).resolves.toMatchObject({
      jobId: expect.any(String),
    });
    expect(ctx.emu.callsTo("POST", "/api/image/edit")[0]?.json).toMatchObject({ referenceImageMediaId: ref });
  });

  it("POST /api/image/edit (JSON, several images: referenceImageMediaIds) -> images.edit", async () => {
    const refs = [image("a.png"), image("b.png")];
    await ctx.api.images.edit({ ...common, referenceImageMediaIds: refs });
    expect(ctx.emu.callsTo("POST", "/api/image/edit")[0]?.json).toMatchObject({
      referenceImageMediaIds: refs,
    });
  });

  it("POST /api/image/edit (multipart, referenceImage) -> images.edit", async () => {
    await ctx.api.images.edit({ ...common, referenceImage: filePart("ref.png", "image/png", 10_000) });
    const call = ctx.emu.callsTo("POST", "/api/image/edit")[0];
    expect(call?.files).toEqual([
      expect.objectContaining({
        field: "referenceImage",
        filename: "ref.png",
        contentType: "image/png",
        size: 10_000,
      }),
    ]);
    expect(call?.fields).toMatchObject({ prompt: common.prompt, name: "fox", aspectRatio: "16:9" });
  });

  it("POST /api/image/edit (multipart, referenceImages) -> images.edit", async () => {
    await ctx.api.images.edit({
      ...common,
      referenceImages: [filePart("a.png", "image/png", 1_000), filePart("b.jpg", "image/jpeg", 2_000, 9)],
    });
    const files = ctx.emu.callsTo("POST", "/api/image/edit")[0]?.files ?? [];
    expect(files.map((f) => [f.field, f.filename, f.size])).toEqual([
      ["referenceImages", "a.png", 1_000],
      ["referenceImages", "b.jpg", 2_000],
    ]);
  });

  it("POST /api/image/inpaint (JSON) -> images.inpaint", async () => {
    const original = image("room.png");
    const mask = image("mask.png");
    await ctx.api.images.inpaint({ ...common, originalImageMediaId: original, maskImageMediaId: mask });
    expect(ctx.emu.callsTo("POST", "/api/image/inpaint")[0]?.json).toMatchObject({
      originalImageMediaId: original,
      maskImageMediaId: mask,
    });
  });

  it("POST /api/image/inpaint (multipart) -> images.inpaint", async () => {
    await ctx.api.images.inpaint({
      ...common,
      originalImage: filePart("room.png", "image/png", 3_000),
      maskImage: filePart("mask.png", "image/png", 1_500, 1),
    });
    const files = ctx.emu.callsTo("POST", "/api/image/inpaint")[0]?.files ?? [];
    expect(files.map((f) => [f.field, f.size])).toEqual([
      ["originalImage", 3_000],
      ["maskImage", 1_500],
    ]);
  });

  it("GET /api/image/{jobId} -> images.get: the in-progress form, then the Image info form", async () => {
    ctx.emu.planNextJob("image", { durationMs: LONG_JOB_MS });
    const { jobId } = await ctx.api.images.generate(common);
    const running = await ctx.api.images.get(jobId);
    expect(running).toMatchObject({ form: "pending", status: expect.stringMatching(/^inference_/) });
    ctx.advanceService();
    await pollUntil(ctx.api, "image", jobId);
    const info = await ctx.api.images.get(jobId);
    expect(info).toMatchObject({
      form: "image",
      id: expect.any(String),
      name: "fox",
      prompt: common.prompt,
      downloadUrl: expect.stringMatching(/^http/),
      mediaId: expect.any(String),
    });
  });
});

describe("4.7 product mockups", () => {
  it("POST /api/mockup/generate -> mockups.generate: synchronous, with the image", async () => {
    const logo = image("logo.png");
    const mockup = await ctx.api.mockups.generate({
      productMediaId: image("mug.png"),
      logoMediaIds: [logo],
      layers: [{ mediaId: logo, x: 0.5, y: 0.4, scale: 0.3 }],
      instruction: "centre the logo",
    });
    expect(mockup).toMatchObject({
      imageUrl: expect.stringMatching(/^\/api\/media\/.+\/view$/),
      mediaId: expect.any(String),
    });
    expect(ctx.emu.callsTo("POST", "/api/mockup/generate")[0]?.json).toMatchObject({ logoMediaIds: [logo] });
  });

  it("POST /api/mockup/video -> mockups.video, then GET /api/mockup/videos", async () => {
    ctx.emu.planNextJob("mockup_video", { durationMs: 20 });
    await savedMockup();
    const [mockup] = await ctx.api.mockups.list();
    const { jobId } = await ctx.api.mockups.video({
      mockupId: mockup!.id,
      animationStyle: "custom",
      userPrompt: "slow orbit",
      aspectRatio: "16:9",
    });
    const done = await pollUntil(ctx.api, "mockup", jobId);
    expect(done.state).toBe("done");
    expect(await ctx.api.mockups.listVideos()).toHaveLength(1);
  });

  it("POST /api/mockup/asset/generate -> mockups.generateAsset", async () => {
    ctx.emu.planNextJob("mockup_asset", { durationMs: 20 });
    const { jobId } = await ctx.api.mockups.generateAsset({ prompt: "a fox logo", type: "logo" });
    await pollUntil(ctx.api, "mockup", jobId);
    expect(await ctx.api.mockups.listAssets()).toHaveLength(1);
  });

  it("POST /api/mockup/asset/edit (JSON: imageMediaId) -> mockups.editAsset", async () => {
    const source = image("logo.png");
    await expect(
      ctx.api.mockups.editAsset({ prompt: "make it blue", type: "logo", imageMediaId: source }),
    ).resolves.toMatchObject({ jobId: expect.any(String) });
    expect(ctx.emu.callsTo("POST", "/api/mockup/asset/edit")[0]?.json).toEqual({
      prompt: "make it blue",
      type: "logo",
      imageMediaId: source,
    });
  });

  it("POST /api/mockup/asset/edit (JSON: imageBase64) -> mockups.editAsset", async () => {
    const imageBase64 = Buffer.from("not really a png").toString("base64");
    await ctx.api.mockups.editAsset({ prompt: "make it blue", type: "product", imageBase64 });
    expect(ctx.emu.callsTo("POST", "/api/mockup/asset/edit")[0]?.json).toMatchObject({ imageBase64 });
  });

  it("POST /api/mockup/asset/edit (multipart: image) -> mockups.editAsset", async () => {
    await ctx.api.mockups.editAsset({
      prompt: "make it blue",
      type: "logo",
      image: filePart("logo.png", "image/png"),
    });
    const call = ctx.emu.callsTo("POST", "/api/mockup/asset/edit")[0];
    expect(call?.fields).toEqual({ prompt: "make it blue", type: "logo" });
    expect(call?.files?.[0]).toMatchObject({ field: "image", filename: "logo.png", size: 2_048 });
  });

  it("mockups.editAsset refuses anything but exactly one image source, before any request", async () => {
    const both = { prompt: "p", type: "logo", imageMediaId: "m", imageBase64: "aGk=" } as never;
    await expect(ctx.api.mockups.editAsset(both)).rejects.toThrow(TypeError);
    expect(ctx.emu.calls).toHaveLength(0);
  });

  it("GET /api/mockups -> mockups.list", async () => {
    const mockup = await savedMockup();
    const list = await ctx.api.mockups.list();
    expect(list).toEqual([expect.objectContaining({ imageUrl: mockup.imageUrl, prompt: "logo on the mug" })]);
  });

  it("GET /api/mockup/assets -> mockups.listAssets", async () => {
    await expect(ctx.api.mockups.listAssets()).resolves.toEqual([]);
    expect(ctx.emu.callsTo("GET", "/api/mockup/assets")).toHaveLength(1);
  });

  it("GET /api/mockup/videos -> mockups.listVideos", async () => {
    await expect(ctx.api.mockups.listVideos()).resolves.toEqual([]);
    expect(ctx.emu.callsTo("GET", "/api/mockup/videos")).toHaveLength(1);
  });

  it("GET /api/mockup/{id}/status -> mockups.status: waiting/started, then completed with the image", async () => {
    ctx.emu.planNextJob("mockup_asset", { durationMs: LONG_JOB_MS });
    const { jobId } = await ctx.api.mockups.generateAsset({ prompt: "a mug", type: "product" });
    expect((await ctx.api.mockups.status(jobId)).status).toMatch(/^(waiting|started)$/);
    ctx.advanceService();
    await pollUntil(ctx.api, "mockup", jobId);
    expect(await ctx.api.mockups.status(jobId)).toMatchObject({
      status: "completed",
      progress: 100,
      imageUrl: expect.any(String),
      mediaId: expect.any(String),
    });
  });
});

describe("4.8 thumbnails", () => {
  it("POST /api/thumbnail/generate -> thumbnails.generate", async () => {
    const ref = image();
    const created = await ctx.api.thumbnails.generate({
      prompt: "a bold title card",
      name: "intro",
      aspectRatio: "9:16",
      referenceImageMediaIds: [ref],
    });
    expect(created.jobId).toEqual(expect.any(String));
    expect(ctx.emu.callsTo("POST", "/api/thumbnail/generate")[0]?.json).toMatchObject({
      referenceImageMediaIds: [ref],
    });
  });

  it("GET /api/thumbnail/{id} -> thumbnails.get: status while generating, the details once complete", async () => {
    ctx.emu.planNextJob("thumbnail", { durationMs: LONG_JOB_MS });
    const { jobId } = await ctx.api.thumbnails.generate({ prompt: "title", name: "intro" });
    expect(await ctx.api.thumbnails.get(jobId)).toMatchObject({
      status: expect.stringMatching(/^(waiting|started)$/),
    });
    ctx.advanceService();
    const done = await pollUntil(ctx.api, "thumbnail", jobId);
    expect(done).toMatchObject({
      state: "done",
      result: { kind: "thumbnail", details: { name: "intro", imageUrl: expect.stringMatching(/^http/) } },
    });
  });

  it("GET {thumbnails list} -> thumbnails.list: paged, at the default path /api/thumbnails", async () => {
    ctx.emu.planNextJob("thumbnail", { durationMs: 1 });
    const { jobId } = await ctx.api.thumbnails.generate({ prompt: "title", name: "intro" });
    await pollUntil(ctx.api, "thumbnail", jobId);
    const page = await ctx.api.thumbnails.list({ page: 1 });
    expect(page).toMatchObject({ page: 1, totalPages: 1, totalCount: 1 });
    expect(page.thumbnails).toHaveLength(1);
    expect(ctx.emu.callsTo("GET", "/api/thumbnails")[0]?.query).toEqual({ page: "1" });
  });

  it("GET {thumbnails list} -> thumbnails.list at a configured path", async () => {
    // Not under /api/thumbnail/: the emulator routes that to GET /api/thumbnail/{id} (see the report).
    const emu = await startEmulator({ thumbnailsListPath: "/api/thumbnails/all" });
    const client = createMediaClient({
      baseUrl: `${emu.url}/api/`,
      thumbnailsListPath: "/api/thumbnails/all",
    });
    try {
      await expect(client.as(KEY).thumbnails.list()).resolves.toMatchObject({ thumbnails: [] });
      expect(emu.callsTo("GET", "/api/thumbnails/all")).toHaveLength(1);
    } finally {
      await client.close();
      await emu.close();
    }
  });
});
