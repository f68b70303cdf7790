import { describe, expect, it } from "vitest";
import { formOf, useEmulator } from "./harness.js";

// Image jobs take 20 ms of the manual clock.
const t = useEmulator({ timeScale: 0.001 });

const common = {
  name: "Fox",
  prompt: "a red fox in snow",
  aspectRatio: "16:9",
  negativePrompt: "blur",
  seed: 7,
};
const status = async (jobId: string, key = "test-key") => t.call("GET", `/api/image/${jobId}`, { key });

describe("image jobs", () => {
  it("reports progress, then the bare Image info with a signed PNG link", async () => {
    const res = await t.call("POST", "/api/image/generate", { json: common });
    expect(res.body).toMatchObject({
      result: "success",
      jobId: expect.any(String),
      usage: { credits_used: 1 },
    });
    const { jobId } = res.body;
    expect((await status(jobId)).body).toEqual({ result: "success", status: "inference_started" });
    t.clock.advance(10);
    expect((await status(jobId)).body).toEqual({
      result: "success",
      status: "inference_working",
      progress: "50%",
    });
    t.clock.advance(10);
    const info = (await status(jobId)).body;
    expect(info).toEqual({
      id: expect.any(String),
      name: "Fox",
      prompt: "a red fox in snow",
      createdAt: expect.any(String),
      downloadUrl: expect.stringContaining(t.em.url),
      mediaId: expect.any(String),
    });
    const png = await fetch(info.downloadUrl);
    expect(png.headers.get("content-type")).toBe("image/png");
    await png.arrayBuffer();

    // The result is a media of the account: usable as a reference for an edit.
    const edit = await t.call("POST", "/api/image/edit", {
      json: { ...common, referenceImageMediaId: info.mediaId },
    });
    expect(edit.body.result).toBe("success");
  });

  it("reports a planned failure", async () => {
    t.em.planNextJob("image", { fail: "unsafe prompt" });
    const { jobId } = (await t.call("POST", "/api/image/generate", { json: common })).body;
    t.clock.advance(20);
    expect((await status(jobId)).body).toEqual({
      result: "success",
      status: "inference_failed",
      reason: "unsafe prompt",
    });
  });

  it("answers 404 unknown, 403 another account's, 400 another kind of job", async () => {
    expect((await status("cnope")).status).toBe(404);
    const { jobId } = (await t.call("POST", "/api/image/generate", { json: common })).body;
    expect((await status(jobId, "other-key")).status).toBe(403);
    const thumb = await t.call("POST", "/api/thumbnail/generate", { json: { name: "t", prompt: "p" } });
    expect((await status(thumb.body.jobId)).status).toBe(400);
  });
});

describe("image creation bodies", () => {
  it("requires name and prompt and a known aspect ratio", async () => {
    const noName = await t.call("POST", "/api/image/generate", { json: { prompt: "p" } });
    expect(noName.status).toBe(400);
    expect(noName.body.error).toBe("name is required");
    const ratio = await t.call("POST", "/api/image/generate", { json: { ...common, aspectRatio: "2:1" } });
    expect(ratio.status).toBe(400);
    expect(ratio.body.error).toMatch(/^aspectRatio:/);
    const text = await t.call("POST", "/api/image/generate", { headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(400);
    expect(t.em.account("test-key").creditsUsed).toBe(0);
  });

  it("generates from a multipart form", async () => {
    const res = await t.call("POST", "/api/image/generate", {
      form: formOf({ name: "F", prompt: "p", seed: "12" }),
    });
    expect(res.body.result).toBe("success");
    const bad = await t.call("POST", "/api/image/generate", {
      form: formOf({ name: "F", prompt: "p", seed: "x" }),
    });
    expect(bad.body.error).toBe("seed: must be an integer");
  });

  it("edits with one media id, several, or multipart files", async () => {
    const a = await t.upload("image/png");
    const b = await t.upload("image/jpeg");
    const several = await t.call("POST", "/api/image/edit", {
      json: { ...common, referenceImageMediaIds: [a, b] },
    });
    expect(several.body.result).toBe("success");
    const both = await t.call("POST", "/api/image/edit", {
      json: { ...common, referenceImageMediaId: a, referenceImageMediaIds: [b] },
    });
    expect(both.status).toBe(400);
    const missing = await t.call("POST", "/api/image/edit", {
      json: { ...common, referenceImageMediaIds: [a, "cgone"] },
    });
    expect(missing.status).toBe(404);

    const one = formOf({ name: "F", prompt: "p", aspectRatio: "1:1" }, [
      { field: "referenceImage", name: "a.png", type: "image/png" },
    ]);
    expect((await t.call("POST", "/api/image/edit", { form: one })).body.result).toBe("success");
    const files = formOf({ name: "F", prompt: "p" }, [
      { field: "referenceImages", name: "a.png", type: "image/png" },
      { field: "referenceImages", name: "b.png", type: "image/png" },
    ]);
    expect((await t.call("POST", "/api/image/edit", { form: files })).body.result).toBe("success");
    expect(
      t.em
        .callsTo("POST", "/api/image/edit")
        .at(-1)
        ?.files?.map((f) => f.filename),
    ).toEqual(["a.png", "b.png"]);
    const none = await t.call("POST", "/api/image/edit", { form: formOf({ name: "F", prompt: "p" }) });
    expect(none.status).toBe(400);
  });

  it("inpaints with media ids or multipart files", async () => {
    const original = await t.upload("image/png");
    const mask = await t.upload("image/png");
    const json = await t.call("POST", "/api/image/inpaint", {
      json: { ...common, originalImageMediaId: original, maskImageMediaId: mask },
    });
    expect(json.body).toMatchObject({ result: "success", usage: { credits_used: 2 } });
    const noMask = await t.call("POST", "/api/image/inpaint", {
      json: { ...common, originalImageMediaId: original },
    });
    expect(noMask.body.error).toBe("maskImageMediaId is required");
    const unknown = await t.call("POST", "/api/image/inpaint", {
      json: { ...common, originalImageMediaId: original, maskImageMediaId: "cgone" },
    });
    expect(unknown.status).toBe(400);

    const form = formOf({ name: "F", prompt: "p" }, [
      { field: "originalImage", name: "o.png", type: "image/png" },
      { field: "maskImage", name: "m.png", type: "image/png" },
    ]);
    expect((await t.call("POST", "/api/image/inpaint", { form })).body.result).toBe("success");
    const textMask = formOf({ name: "F", prompt: "p" }, [
      { field: "originalImage", name: "o.png", type: "image/png" },
      { field: "maskImage", name: "m.txt", type: "text/plain" },
    ]);
    expect((await t.call("POST", "/api/image/inpaint", { form: textMask })).status).toBe(400);
  });
});
