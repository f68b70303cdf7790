import { describe, expect, it } from "vitest";
import { useEmulator } from "./harness.js";

const t = useEmulator({ timeScale: 0.001 });

const image = { name: "fox", prompt: "a red fox" };

describe("auth", () => {
  it("answers 401 JSON to a missing or unknown key", async () => {
    for (const key of [null, "nope"]) {
      const res = await t.call("GET", "/api/usage", { key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "invalid or missing API key" });
    }
  });

  it("keeps accounts apart: 403 on another account's image and photo-avatar job, 404 on its video", async () => {
    const img = await t.call("POST", "/api/image/generate", { json: image });
    expect((await t.call("GET", `/api/image/${img.body.jobId}`, { key: "other-key" })).status).toBe(403);

    const design = await t.call("POST", "/api/avatar/design/create", { json: { name: "a", design: {} } });
    expect(
      (await t.call("GET", `/api/avatar/jobs/${design.body.jobId}/status`, { key: "other-key" })).status,
    ).toBe(403);

    const video = await t.call("POST", "/api/video/create", {
      json: { avatarId: "cm2yaz9j10008l0qg9npyjgs3", name: "v", voiceId: "1", text: "hi" },
    });
    t.clock.advance(1_000);
    const { videoId } = (await t.call("GET", `/api/video/${video.body.jobId}/status`)).body;
    expect((await t.call("GET", `/api/video/${videoId}`)).status).toBe(200);
    expect((await t.call("GET", `/api/video/${videoId}`, { key: "other-key" })).status).toBe(404);
    expect((await t.call("GET", `/api/video/${video.body.jobId}/status`, { key: "other-key" })).body).toEqual(
      {
        result: "failure",
        error: "video job not found",
      },
    );
  });
});

describe("usage and credits", () => {
  it("reports plan, credits, per-type usage and the reset date", async () => {
    const { status, body } = await t.call("GET", "/api/usage");
    expect(status).toBe(200);
    expect(body).toEqual({
      plan: "pro",
      credits_used: 0,
      credits_limit: 1000,
      credits_remaining: 1000,
      usage: {
        ai_actor_videos: { used: 0, limit: 50 },
        ai_images: { used: 0, limit: "unlimited" },
        cinematic_videos: { used: 0, limit: 10 },
      },
      usage_reset_date: "2025-02-01",
    });
  });

  it("takes credits and quota on every creation and returns the usage object", async () => {
    const res = await t.call("POST", "/api/image/generate", { json: image });
    expect(res.body.result).toBe("success");
    expect(res.body.usage.credits_used).toBe(1);
    expect(res.body.usage.usage.ai_images.used).toBe(1);
    await t.call("POST", "/api/video/create", {
      json: { avatarId: "cm2yaz9j10008l0qg9npyjgs3", name: "v", voiceId: "1", text: "hello" },
    });
    const usage = (await t.call("GET", "/api/usage")).body;
    expect(usage.credits_used).toBe(11);
    expect(usage.credits_remaining).toBe(989);
    expect(usage.usage.ai_actor_videos.used).toBe(1);
    expect(t.em.account("test-key").creditsUsed).toBe(11);
  });

  it("refuses when credits run out, in each endpoint's declared form", async () => {
    const account = t.em.account("test-key");
    account.creditsUsed = account.creditsLimit;

    const img = await t.call("POST", "/api/image/generate", { json: image });
    expect(img.status).toBe(400);
    expect(img.body.error).toBe("not enough credits");

    const design = await t.call("POST", "/api/avatar/design/create", { json: { name: "a", design: {} } });
    expect(design.status).toBe(200);
    expect(design.body).toEqual({
      result: "failure",
      error: "not enough credits",
      details: { required: 1, remaining: 0 },
    });

    const thumb = await t.call("POST", "/api/thumbnail/generate", { json: image });
    expect(thumb.body).toMatchObject({ result: "failure", error: "not enough credits" });
    expect((await t.call("GET", "/api/usage")).body.credits_remaining).toBe(0);
  });

  it("answers the cinematic monthly limit with the failure envelope and the image quota with 400", async () => {
    t.em.addAccount({ apiKey: "tiny", plan: "free", quotas: { cinematic_videos: 1, ai_images: 1 } });
    const first = await t.call("POST", "/api/video/cinematic/create", { key: "tiny", json: image });
    expect(first.body.result).toBe("success");
    const second = await t.call("POST", "/api/video/cinematic/create", { key: "tiny", json: image });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ result: "failure", error: "monthly cinematic video limit reached" });

    await t.call("POST", "/api/image/generate", { key: "tiny", json: image });
    const over = await t.call("POST", "/api/image/generate", { key: "tiny", json: image });
    expect(over.status).toBe(400);
    expect(over.body.error).toBe("monthly AI image limit reached");
  });

  it("puts accounts back to their seeds on reset, in place", async () => {
    const account = t.em.account("other-key");
    account.creditsUsed = 49;
    t.em.reset();
    expect(account.creditsUsed).toBe(0);
    expect(account.usage.ai_images).toEqual({ used: 0, limit: 25 });
  });
});

describe("voices wrapper key", () => {
  const avatarsKey = useEmulator({ voicesKey: "avatars" });

  it("can carry the voices under `avatars`, as the spec's sample does", async () => {
    const { body } = await avatarsKey.call("GET", "/api/voices");
    expect(Object.keys(body)).toEqual(["avatars"]);
    expect(body.avatars[0]).toEqual({ id: "1", name: "Ava", createdAt: expect.any(String) });
  });
});

describe("catalogue", () => {
  it("lists stock avatars and voices (short stock voice ids)", async () => {
    const avatars = (await t.call("GET", "/api/avatars")).body.avatars;
    expect(avatars[0]).toEqual({
      id: "cm2yaz9j10008l0qg9npyjgs3",
      name: "Emma",
      createdAt: expect.any(String),
      voiceId: "1",
      isPhoto: false,
    });
    const voices = (await t.call("GET", "/api/voices")).body.voices;
    expect(voices.map((v: { id: string }) => v.id)).toContain("1");
  });

  it("answers 400 for a missing path id and 404 JSON for unknown paths", async () => {
    expect((await t.call("GET", "/api/video/")).status).toBe(400);
    const res = await t.call("GET", "/api/nothing");
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/no route/);
  });
});
