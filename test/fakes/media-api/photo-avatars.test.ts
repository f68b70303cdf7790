import { describe, expect, it } from "vitest";
import { useEmulator } from "./harness.js";

// Design jobs last 40 ms of the manual clock, enhance jobs 30 ms.
const t = useEmulator({ timeScale: 0.001 });

const design = { name: "Nora", design: { gender: "female", age: "30", isPortrait: true } };

async function designReady() {
  const { jobId } = (await t.call("POST", "/api/avatar/design/create", { json: design })).body;
  t.clock.advance(40);
  return jobId as string;
}

const status = async (jobId: string) => (await t.call("GET", `/api/avatar/jobs/${jobId}/status`)).body;
const confirm = (jobId: string, variant: unknown) =>
  t.call("POST", "/api/avatar/design/confirm", { json: { jobId, variant } });
const confirmBoth = (jobId: string) => t.call("POST", "/api/avatar/design/confirm-both", { json: { jobId } });
const photoAvatars = async () =>
  (await t.call("GET", "/api/avatars")).body.avatars.filter((a: { isPhoto: boolean }) => a.isPhoto);

describe("design flow", () => {
  it("goes queued -> inference_started -> inference_working -> variants_ready and stays there", async () => {
    const res = await t.call("POST", "/api/avatar/design/create", { json: design });
    expect(res.body).toEqual({ result: "success", jobId: expect.any(String) });
    const { jobId } = res.body;
    expect((await status(jobId)).status).toBe("queued");
    t.clock.advance(3);
    expect((await status(jobId)).status).toBe("inference_started");
    t.clock.advance(17);
    expect(await status(jobId)).toEqual({
      result: "success",
      status: "inference_working",
      progress: "50%",
      terminal: false,
    });
    t.clock.advance(20);
    const ready = await status(jobId);
    expect(ready).toEqual({
      result: "success",
      status: "variants_ready",
      terminal: false,
      variantPreviewUrls: expect.any(Array),
    });
    t.clock.advance(86_400_000);
    const later = await status(jobId);
    expect(later.status).toBe("variants_ready");

    // Links are signed when the status is read and expire after an hour: use the fresh ones.
    expect((await fetch(ready.variantPreviewUrls[0])).status).toBe(403);
    const [one, two] = later.variantPreviewUrls as string[];
    for (const url of [one!, two!]) {
      const png = await fetch(url);
      expect(png.headers.get("content-type")).toBe("image/png");
      expect(
        Buffer.from(await png.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe("PNG");
    }
    expect(one).not.toBe(two);
  });

  it("refuses to confirm before variants_ready, or with a variant other than 1 or 2", async () => {
    const { jobId } = (await t.call("POST", "/api/avatar/design/create", { json: design })).body;
    const early = await confirm(jobId, 1);
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/job not ready/);
    t.clock.advance(40);
    for (const variant of [0, 3, 1.5]) {
      const res = await confirm(jobId, variant);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/variant/);
    }
  });

  it("confirm keeps one variant, completes the job, and refuses any second confirm", async () => {
    const jobId = await designReady();
    const res = await confirm(jobId, 2);
    expect(res.body).toEqual({
      result: "success",
      avatarId: expect.any(String),
      mediaId: expect.any(String),
    });
    expect(await status(jobId)).toEqual({
      result: "success",
      status: "inference_complete",
      terminal: true,
      avatarId: res.body.avatarId,
      avatarIds: [res.body.avatarId],
    });
    expect(await photoAvatars()).toEqual([
      expect.objectContaining({
        id: res.body.avatarId,
        name: "Nora",
        isPhoto: true,
        mediaId: res.body.mediaId,
      }),
    ]);

    const again = await confirm(jobId, 1);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("job already confirmed");
    const both = await confirmBoth(jobId);
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("job already finalized");
    expect(await photoAvatars()).toHaveLength(1);
  });

  it("confirm-both keeps two avatars named after the job, and excludes confirm afterwards", async () => {
    const jobId = await designReady();
    const res = await confirmBoth(jobId);
    expect(res.body).toEqual({
      result: "success",
      avatarIds: [expect.any(String), expect.any(String)],
      mediaIds: [expect.any(String), expect.any(String)],
    });
    expect((await status(jobId)).avatarIds).toEqual(res.body.avatarIds);
    expect((await photoAvatars()).map((a: { name: string }) => a.name)).toEqual(["Nora - 1", "Nora - 2"]);
    expect((await confirm(jobId, 1)).status).toBe(400);
    expect((await confirmBoth(jobId)).status).toBe(400);
  });

  it("confirms once when two clicks race", async () => {
    const jobId = await designReady();
    const answers = await Promise.all([confirm(jobId, 1), confirmBoth(jobId), confirm(jobId, 2)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
    expect((await photoAvatars()).length).toBeGreaterThanOrEqual(1);
  });

  it("gives a custom voice to avatars made with audio", async () => {
    const audio = await t.upload("audio/wav");
    const { jobId } = (
      await t.call("POST", "/api/avatar/design/create", { json: { ...design, audioMediaId: audio } })
    ).body;
    t.clock.advance(40);
    await confirm(jobId, 1);
    const [avatar] = await photoAvatars();
    const voices = (await t.call("GET", "/api/voices")).body.voices;
    expect(voices).toContainEqual(expect.objectContaining({ id: avatar.voiceId, name: "Nora voice" }));
  });

  it("reports a planned failure as terminal inference_failed", async () => {
    t.em.planNextJob("photo_avatar", { fail: "no face" });
    const jobId = await designReady();
    expect(await status(jobId)).toEqual({
      result: "success",
      status: "inference_failed",
      terminal: true,
      reason: "no face",
    });
    expect((await confirm(jobId, 1)).status).toBe(400);
  });
});

describe("from-selfie", () => {
  it("create makes the avatar at once", async () => {
    const photo = await t.upload("image/jpeg");
    const res = await t.call("POST", "/api/avatar/from-selfie/create", {
      json: { name: "Me", photoMediaId: photo },
    });
    expect(res.body).toEqual({ result: "success", avatarId: expect.any(String) });
    expect((await photoAvatars())[0]).toMatchObject({ id: res.body.avatarId, name: "Me", voiceId: "1" });
    const missing = await t.call("POST", "/api/avatar/from-selfie/create", {
      json: { name: "Me", photoMediaId: "cnope" },
    });
    expect(missing.body).toEqual({ result: "failure", error: "photo media not found: cnope" });
  });

  it("enhance runs a job without variants that ends with the avatar created", async () => {
    t.em.planNextJob("photo_avatar", { durationMs: 300, retrying: true });
    const photo = await t.upload("image/png");
    const res = await t.call("POST", "/api/avatar/from-selfie/enhance", {
      json: { name: "Pro me", prompt: "studio lighting", photoMediaId: photo },
    });
    const { jobId } = res.body;
    t.clock.advance(150);
    expect(await status(jobId)).toMatchObject({
      status: "inference_retrying",
      backendStatus: "inference_error",
      terminal: false,
    });
    expect(await photoAvatars()).toEqual([]);
    t.clock.advance(150);
    const done = await status(jobId);
    expect(done).toEqual({
      result: "success",
      status: "inference_complete",
      terminal: true,
      avatarId: expect.any(String),
      avatarIds: [done.avatarId],
    });
    expect((await photoAvatars()).map((a: { id: string }) => a.id)).toEqual([done.avatarId]);
    expect((await confirm(jobId, 1)).status).toBe(400); // not a design job
  });
});

describe("status endpoint", () => {
  it("answers 404 for an unknown job, 400 for a job of another kind, 403 for another account's", async () => {
    expect((await t.call("GET", "/api/avatar/jobs/cunknown/status")).status).toBe(404);
    const image = await t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } });
    const wrongKind = await t.call("GET", `/api/avatar/jobs/${image.body.jobId}/status`);
    expect(wrongKind.status).toBe(400);
    const jobId = await designReady();
    expect((await t.call("GET", `/api/avatar/jobs/${jobId}/status`, { key: "other-key" })).status).toBe(403);
    const foreignConfirm = await t.call("POST", "/api/avatar/design/confirm", {
      key: "other-key",
      json: { jobId, variant: 1 },
    });
    expect(foreignConfirm.body).toEqual({ result: "failure", error: "photo avatar job not found" });
  });
});
