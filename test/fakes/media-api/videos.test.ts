import { describe, expect, it } from "vitest";
import { formOf, useEmulator } from "./harness.js";

// timeScale 0.001: an avatar video takes 180 ms of the manual clock, a cinematic one 120 ms.
const t = useEmulator({ timeScale: 0.001 });

const AVATAR = "cm2yaz9j10008l0qg9npyjgs3";
const script = { avatarId: AVATAR, name: "Launch", voiceId: "1", text: "Hello there", im2vid_full: false };

async function createVideo() {
  const res = await t.call("POST", "/api/video/create", { json: script });
  expect(res.body).toMatchObject({ result: "success", jobId: expect.any(String), usage: expect.any(Object) });
  return res.body.jobId as string;
}

const status = async (jobId: string) => (await t.call("GET", `/api/video/${jobId}/status`)).body;

describe("avatar video jobs", () => {
  it("walks inference_started -> inference_working -> inference_complete and lists the video then", async () => {
    const jobId = await createVideo();
    expect(await status(jobId)).toEqual({ result: "success", status: "inference_started", terminal: false });
    expect((await t.call("GET", "/api/videos")).body.videos).toEqual([]);

    t.clock.advance(90);
    expect(await status(jobId)).toEqual({
      result: "success",
      status: "inference_working",
      terminal: false,
      progress: "50%",
    });

    t.clock.advance(90);
    const done = await status(jobId);
    expect(done).toEqual({
      result: "success",
      status: "inference_complete",
      terminal: true,
      videoId: expect.any(String),
    });
    expect(done.videoId).not.toBe(jobId);

    const videos = (await t.call("GET", "/api/videos")).body.videos;
    expect(videos).toEqual([
      { id: done.videoId, name: "Launch", sourceAvatarId: AVATAR, createdAt: expect.any(String) },
    ]);

    const meta = (await t.call("GET", `/api/video/${done.videoId}`)).body;
    expect(meta).toMatchObject({
      id: done.videoId,
      name: "Launch",
      downloadUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
    });
    const signed = await fetch(meta.downloadUrl); // no key: the link is the credential
    expect(signed.status).toBe(200);
    expect(signed.headers.get("content-type")).toBe("video/mp4");
    expect(Buffer.from(await signed.arrayBuffer()).toString("latin1", 4, 8)).toBe("ftyp");

    const download = await fetch(`${t.em.url}/api/video/${done.videoId}/download`, {
      headers: { "x-api-key": "test-key" },
    });
    expect(download.headers.get("content-type")).toBe("video/mp4");
    expect((await download.arrayBuffer()).byteLength).toBe(Number(download.headers.get("content-length")));
    expect((await t.call("GET", `/api/video/${done.videoId}/download`, { key: null })).status).toBe(401);
  });

  it("spends the middle third in inference_retrying when planned", async () => {
    t.em.planNextJob("video", { durationMs: 300, retrying: true });
    const jobId = await createVideo();
    t.clock.advance(150);
    expect(await status(jobId)).toEqual({
      result: "success",
      status: "inference_retrying",
      terminal: false,
      backendStatus: "inference_error",
      reason: expect.any(String),
    });
    t.clock.advance(100);
    expect((await status(jobId)).status).toBe("inference_working");
    t.clock.advance(50);
    expect((await status(jobId)).status).toBe("inference_complete");
  });

  it("ends in inference_failed with the planned reason, and lists nothing", async () => {
    t.em.planNextJob("video", { fail: "face not detected" });
    const jobId = await createVideo();
    t.clock.advance(10_000);
    expect(await status(jobId)).toEqual({
      result: "success",
      status: "inference_failed",
      terminal: true,
      reason: "face not detected",
    });
    expect((await t.call("GET", "/api/videos")).body.videos).toEqual([]);
  });

  it("stalls forever at the planned progress", async () => {
    t.em.planNextJob("video", { stallAt: 42 });
    const jobId = await createVideo();
    t.clock.advance(3_600_000);
    expect(await status(jobId)).toMatchObject({
      status: "inference_working",
      progress: "42%",
      terminal: false,
    });
  });

  it("takes the audio variant as multipart with a speechFile", async () => {
    const form = formOf({ avatarId: AVATAR, name: "Voiced", im2vid_full: "true" }, [
      { field: "speechFile", name: "speech.mp3", type: "audio/mpeg", size: 2048 },
    ]);
    const res = await t.call("POST", "/api/video/create", { form });
    expect(res.body.result).toBe("success");
    const call = t.em.callsTo("POST", "/api/video/create")[0]!;
    expect(call.fields).toEqual({ avatarId: AVATAR, name: "Voiced", im2vid_full: "true" });
    expect(call.files).toEqual([
      {
        field: "speechFile",
        filename: "speech.mp3",
        contentType: "audio/mpeg",
        size: 2048,
        sha256: expect.any(String),
      },
    ]);

    const noFile = await t.call("POST", "/api/video/create", {
      form: formOf({ avatarId: AVATAR, name: "x" }),
    });
    expect(noFile.status).toBe(400);
    expect(noFile.body.error).toMatch(/speechFile is required/);
  });

  it("answers an unknown avatar with the failure envelope and a bad body with 400", async () => {
    const unknown = await t.call("POST", "/api/video/create", { json: { ...script, avatarId: "cnope" } });
    expect(unknown.body).toEqual({ result: "failure", error: "unknown avatar" });
    const bad = await t.call("POST", "/api/video/create", {
      json: { avatarId: AVATAR, name: "x", voiceId: "1" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("text is required");
    expect(t.em.account("test-key").creditsUsed).toBe(0);
  });

  it("answers an unknown status id with the failure envelope", async () => {
    expect(await status("cnothing")).toEqual({ result: "failure", error: "video job not found" });
    expect((await t.call("GET", "/api/video/nothing")).status).toBe(404);
  });
});

describe("cinematic videos", () => {
  it("checks the image media, runs a video job and yields a video", async () => {
    const frame = await t.upload("image/png");
    const refused = await t.call("POST", "/api/video/cinematic/create", {
      json: { name: "c", prompt: "waves", firstFrameImageMediaId: "cmissing" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/media permission error/);

    const res = await t.call("POST", "/api/video/cinematic/create", {
      json: {
        name: "Waves",
        prompt: "waves at dusk",
        aspectRatio: "16:9",
        durationSeconds: 8,
        resolution: "1080p",
        firstFrameImageMediaId: frame,
        referenceImageMediaIds: [frame],
      },
    });
    expect(res.body).toMatchObject({
      result: "success",
      usage: { usage: { cinematic_videos: { used: 1 } } },
    });
    t.clock.advance(120);
    const done = await status(res.body.jobId);
    expect(done.status).toBe("inference_complete");
    expect((await t.call("GET", `/api/video/${done.videoId}`)).body.sourceAvatarId).toBe("");
  });
});
