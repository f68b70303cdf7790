import { describe, expect, it } from "vitest";
import { formOf, useEmulator } from "./harness.js";

// Mockup assets take 20 ms of the manual clock, mockup videos 60 ms.
const t = useEmulator({ timeScale: 0.001 });

async function mockup() {
  const product = await t.upload("image/png");
  const logo = await t.upload("image/png");
  const res = await t.call("POST", "/api/mockup/generate", {
    json: {
      productMediaId: product,
      logoMediaIds: [logo],
      layers: [{ x: 0.5, y: 0.4, scale: 0.3 }],
      instruction: "logo on the mug",
    },
  });
  return res.body;
}

const status = async (jobId: string) => (await t.call("GET", `/api/mockup/${jobId}/status`)).body;

describe("mockup generation (synchronous)", () => {
  it("returns the image reference at once, serves it, and lists the mockup", async () => {
    const body = await mockup();
    expect(body).toEqual({
      result: "success",
      jobId: expect.any(String),
      imageUrl: `/api/media/${body.mediaId}/view`,
      mediaId: expect.any(String),
      usage: expect.objectContaining({ credits_used: 2 }),
    });
    const view = await fetch(`${t.em.url}${body.imageUrl}`, { headers: { "x-api-key": "test-key" } });
    expect(view.headers.get("content-type")).toBe("image/png");
    await view.arrayBuffer();
    expect(await status(body.jobId)).toEqual({
      result: "success",
      status: "completed",
      progress: 100,
      imageUrl: body.imageUrl,
      mediaId: body.mediaId,
    });
    const { mockups } = (await t.call("GET", "/api/mockups")).body;
    expect(mockups).toEqual([
      expect.objectContaining({ id: body.jobId, imageUrl: body.imageUrl, prompt: "logo on the mug" }),
    ]);
  });

  it("answers 404 for a missing product media and 400 without an instruction", async () => {
    const missing = await t.call("POST", "/api/mockup/generate", {
      json: { productMediaId: "cgone", instruction: "x" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("product media not found: cgone");
    const product = await t.upload("image/png");
    expect((await t.call("POST", "/api/mockup/generate", { json: { productMediaId: product } })).status).toBe(
      400,
    );
  });
});

describe("mockup videos", () => {
  it("runs waiting -> started (numeric progress) -> completed, then lists the video", async () => {
    const { jobId: mockupId } = await mockup();
    const res = await t.call("POST", "/api/mockup/video", {
      json: { mockupId, animationStyle: "luxury_macro" },
    });
    expect(res.body).toEqual({ result: "success", jobId: expect.any(String) });
    const { jobId } = res.body;
    expect(await status(jobId)).toEqual({ result: "success", status: "waiting", progress: 0 });
    t.clock.advance(30);
    expect(await status(jobId)).toEqual({ result: "success", status: "started", progress: 50 });
    expect((await t.call("GET", "/api/mockup/videos")).body.videos).toEqual([]);
    t.clock.advance(30);
    const done = await status(jobId);
    expect(done).toMatchObject({ status: "completed", progress: 100, mediaId: expect.any(String) });
    const { videos } = (await t.call("GET", "/api/mockup/videos")).body;
    expect(videos).toEqual([
      expect.objectContaining({
        jobId,
        mockupId,
        animationStyle: "luxury_macro",
        aspectRatio: "9:16",
        durationSeconds: 8,
        mediaId: done.mediaId,
      }),
    ]);
    const mp4 = await fetch(`${t.em.url}${videos[0].videoUrl}`, { headers: { "x-api-key": "test-key" } });
    expect(mp4.headers.get("content-type")).toBe("video/mp4");
    await mp4.arrayBuffer();
  });

  it("validates the style, the custom prompt and the mockup", async () => {
    const { jobId: mockupId } = await mockup();
    const custom = await t.call("POST", "/api/mockup/video", {
      json: { mockupId, animationStyle: "custom" },
    });
    expect(custom.status).toBe(400);
    expect(custom.body.error).toBe("userPrompt: userPrompt is required when animationStyle is custom");
    const ok = await t.call("POST", "/api/mockup/video", {
      json: { mockupId, animationStyle: "custom", userPrompt: "spin", aspectRatio: "16:9" },
    });
    expect(ok.body.result).toBe("success");
    expect(
      (await t.call("POST", "/api/mockup/video", { json: { mockupId, animationStyle: "disco" } })).status,
    ).toBe(400);
    const gone = await t.call("POST", "/api/mockup/video", {
      json: { mockupId: "cgone", animationStyle: "nature_premium" },
    });
    expect(gone.status).toBe(404);
  });
});

describe("mockup assets", () => {
  it("generates an asset that is listed once the job completes", async () => {
    const { jobId } = (
      await t.call("POST", "/api/mockup/asset/generate", { json: { prompt: "fox logo", type: "logo" } })
    ).body;
    expect((await t.call("GET", "/api/mockup/assets")).body).toEqual({ result: "success", assets: [] });
    t.clock.advance(20);
    const done = await status(jobId);
    expect(done.status).toBe("completed");
    const { assets } = (await t.call("GET", "/api/mockup/assets")).body;
    expect(assets).toEqual([
      expect.objectContaining({
        jobId,
        type: "logo",
        prompt: "fox logo",
        mediaId: done.mediaId,
        imageUrl: done.imageUrl,
      }),
    ]);
  });

  it("edits from exactly one of imageMediaId, imageBase64 or an image file", async () => {
    const image = await t.upload("image/png");
    const edit = (json: object) =>
      t.call("POST", "/api/mockup/asset/edit", { json: { prompt: "p", type: "product", ...json } });
    expect((await edit({ imageMediaId: image })).body.result).toBe("success");
    expect((await edit({ imageBase64: "iVBORw0KGgo=" })).body.result).toBe("success");
    expect((await edit({})).status).toBe(400);
    expect((await edit({ imageMediaId: image, imageBase64: "iVBORw0KGgo=" })).status).toBe(400);
    expect((await edit({ imageBase64: "not base64!" })).status).toBe(400);
    expect((await edit({ imageMediaId: "cgone" })).status).toBe(404);

    const form = formOf({ prompt: "p", type: "logo" }, [
      { field: "image", name: "logo.png", type: "image/png" },
    ]);
    expect((await t.call("POST", "/api/mockup/asset/edit", { form })).body.result).toBe("success");
    const twice = formOf({ prompt: "p", type: "logo", imageMediaId: image }, [
      { field: "image", name: "l.png", type: "image/png" },
    ]);
    expect((await t.call("POST", "/api/mockup/asset/edit", { form: twice })).status).toBe(400);
  });

  it("reports a planned failure with its reason, and 404 for unknown jobs", async () => {
    t.em.planNextJob("mockup_asset", { fail: "logo unreadable" });
    const { jobId } = (
      await t.call("POST", "/api/mockup/asset/generate", { json: { prompt: "p", type: "product" } })
    ).body;
    t.clock.advance(20);
    expect(await status(jobId)).toEqual({
      result: "success",
      status: "failed",
      progress: 100,
      reason: "logo unreadable",
    });
    expect((await t.call("GET", "/api/mockup/cgone/status")).status).toBe(404);
    expect((await t.call("GET", `/api/mockup/${jobId}/status`, { key: "other-key" })).status).toBe(404);
  });
});
