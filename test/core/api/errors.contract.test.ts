import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createMediaClient } from "../../../src/core/api/index.js";
import {
  BadRequestError,
  ForbiddenError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  QuotaExceededError,
  RateLimitedError,
  ServiceFailureError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
} from "../../../src/core/base/errors.js";
import { KEY, OTHER_KEY, pollUntil, rejectionOf, useEmulator } from "./support.js";

/** Every answer the spec names, as the typed error the bot gets; natural emulator behaviour first, injected faults otherwise. */

const ctx = useEmulator();
const generate = () => ctx.api.images.generate({ prompt: "a fox", name: "fox" });

describe("the 200 failure envelope", () => {
  it("becomes a ServiceFailureError with the service's message", async () => {
    const error = await rejectionOf(
      ctx.api.videos.create({ avatarId: "no-such-avatar", name: "x", voiceId: "1", text: "hi" }),
    );
    expect(error).toBeInstanceOf(ServiceFailureError);
    expect(error).toMatchObject({
      code: "service.failure",
      status: 200,
      serviceMessage: "unknown avatar",
      userMessage: "The media service could not do that: unknown avatar. Check the options and try again.",
    });
  });

  it("keeps `details` where the service sends them", async () => {
    ctx.emu.inject({
      method: "POST",
      path: "/api/avatar/design/create",
      body: { result: "failure", error: "design rejected", details: { field: "design.outfit" } },
    });
    const error = await rejectionOf(
      ctx.api.photoAvatars.createDesign({ name: "A", design: { outfit: "?" } }),
    );
    expect(error).toBeInstanceOf(ServiceFailureError);
    expect(error).toMatchObject({ serviceMessage: "design rejected", details: { field: "design.outfit" } });
  });

  it("on a status endpoint too (video job not found)", async () => {
    const error = await rejectionOf(ctx.api.videos.status("no-such-job"));
    expect(error).toBeInstanceOf(ServiceFailureError);
    expect((error as ServiceFailureError).serviceMessage).toMatch(/not found/);
  });

  it("not enough credits in the envelope is a QuotaExceededError with the details", async () => {
    ctx.emu.account(KEY).creditsUsed = ctx.emu.account(KEY).creditsLimit;
    const error = await rejectionOf(ctx.api.photoAvatars.createDesign({ name: "A", design: {} }));
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({
      code: "service.quota_exceeded",
      status: 200,
      serviceMessage: "not enough credits",
      details: { remaining: 0 },
    });
    expect((error as QuotaExceededError).userMessage).toMatch(/usage command/);
  });

  it("a monthly limit reached in the envelope is a QuotaExceededError", async () => {
    ctx.emu.account(KEY).usage.cinematic_videos = { used: 10, limit: 10 };
    const error = await rejectionOf(ctx.api.videos.createCinematic({ name: "c", prompt: "waves" }));
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect((error as QuotaExceededError).serviceMessage).toMatch(/limit reached/);
  });
});

describe("HTTP statuses", () => {
  it("400 is a BadRequestError with the service's message", async () => {
    const error = await rejectionOf(ctx.api.images.generate({ prompt: "a fox", name: "fox", seed: 1.5 }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({
      code: "service.bad_request",
      status: 400,
      serviceMessage: expect.stringMatching(/seed/),
    });
  });

  it("400 not enough credits is a QuotaExceededError", async () => {
    ctx.emu.account(KEY).creditsUsed = ctx.emu.account(KEY).creditsLimit;
    const error = await rejectionOf(generate());
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({ status: 400, serviceMessage: "not enough credits" });
  });

  it("401 is an UnauthorizedError that tells an admin to set the key", async () => {
    const error = await rejectionOf(ctx.client.as("not-a-key").usage.get());
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ code: "service.unauthorized", status: 401 });
    expect((error as UnauthorizedError).userMessage).toBe(
      "The media service API key for this server or workspace is missing or invalid. An admin can set one with the setup command.",
    );
  });

  it("a missing key is the same UnauthorizedError, without asking the service", async () => {
    const error = await rejectionOf(ctx.client.as(undefined).images.generate({ prompt: "p", name: "n" }));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).status).toBeUndefined();
    expect(ctx.emu.calls).toHaveLength(0);
  });

  it("403 is a ForbiddenError (another account's image job)", async () => {
    ctx.emu.planNextJob("image", { durationMs: 10_000 });
    const { jobId } = await ctx.client.as(OTHER_KEY).images.generate({ prompt: "p", name: "n" });
    const error = await rejectionOf(ctx.api.images.get(jobId));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ code: "service.forbidden", status: 403 });
  });

  it("404 is a NotFoundError", async () => {
    const error = await rejectionOf(ctx.api.videos.get("no-such-video"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      code: "service.not_found",
      status: 404,
      serviceMessage: "video not found",
    });
  });

  it("429 is a RateLimitedError with Retry-After in ms", async () => {
    ctx.emu.inject({
      method: "POST",
      path: "/api/image/generate",
      status: 429,
      body: { error: "slow down" },
      headers: { "retry-after": "7" },
    });
    const error = await rejectionOf(generate());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      code: "service.rate_limited",
      status: 429,
      retryAfterMs: 7_000,
      retryable: true,
    });
    expect((error as RateLimitedError).userMessage).toContain("Wait 7 seconds");
  });

  it.each([500, 502, 503, 504])("%i is a ServiceUnavailableError", async (status) => {
    ctx.emu.inject({ method: "POST", path: "/api/image/generate", status, body: { error: "internal" } });
    const error = await rejectionOf(generate());
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ code: "service.unavailable", status, retryable: true });
  });

  it("an HTML error page from a proxy still maps by status, without quoting the page", async () => {
    ctx.emu.inject({
      method: "POST",
      path: "/api/image/generate",
      status: 502,
      raw: "<html><body>Bad gateway</body></html>",
    });
    const error = await rejectionOf(generate());
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).serviceMessage).toBeUndefined();
  });
});

describe("answers the bot cannot use", () => {
  it("malformed JSON is an InvalidResponseError", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/usage", raw: "{not json" });
    const error = await rejectionOf(ctx.api.usage.get());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ code: "service.invalid_response", status: 200 });
  });

  it("a success without a jobId is an InvalidResponseError naming the field", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/image/generate", body: { result: "success" } });
    const error = await rejectionOf(generate());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toMatch(/jobId/);
  });

  it("a voice list under neither wrapper key is an InvalidResponseError", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/voices", body: { items: [] } });
    await expect(ctx.api.voices.list()).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("JSON where the MP4 was due is an InvalidResponseError", async () => {
    ctx.emu.inject({ method: "GET", path: /\/download$/, body: { result: "success" } });
    await expect(ctx.api.videos.download("v1")).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("unknown extra fields and open values are accepted and kept", async () => {
    ctx.emu.inject({
      method: "POST",
      path: "/api/image/generate",
      body: {
        result: "success",
        jobId: "j1",
        queuePosition: 3,
        usage: { plan: "pro", usage: { ai_images: { used: 1, limit: "unlimited" } }, extra: true },
      },
    });
    await expect(generate()).resolves.toMatchObject({
      jobId: "j1",
      queuePosition: 3,
      usage: { extra: true },
    });
  });

  it("a malformed usage block does not turn a started (paid) job into an error", async () => {
    ctx.emu.inject({
      method: "POST",
      path: "/api/image/generate",
      body: { result: "success", jobId: "j1", usage: "n/a" },
    });
    await expect(generate()).resolves.toEqual({ result: "success", jobId: "j1", usage: undefined });
  });
});

describe("no answer", () => {
  it("a refused connection is a NetworkError", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const client = createMediaClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retries: { maxRetries: 1, minDelayMs: 1 },
    });
    try {
      const error = await rejectionOf(client.as(KEY).usage.get());
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({ code: "service.network", retryable: true });
      expect((error as NetworkError).message).toMatch(/ECONNREFUSED/);
      expect((error as NetworkError).userMessage).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    } finally {
      await client.close();
    }
  });

  it("a slow answer is a TimeoutError", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/media/initialize", delayMs: 1_000 });
    const started = Date.now();
    const error = await rejectionOf(
      ctx.api.media.initialize(
        { fileName: "a.png", contentType: "image/png", fileSize: 10 },
        { timeoutMs: 100 },
      ),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: "service.timeout", timeoutMs: 100 });
    expect(Date.now() - started).toBeLessThan(900);
  });

  it("a paid creation answered too late may have gone through: OutcomeUnknownError, naming where to look", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/video/create", delayMs: 300 });
    const error = await rejectionOf(
      ctx.api.videos.create({ avatarId: "a1", name: "x", voiceId: "1", text: "hi" }, { timeoutMs: 100 }),
    );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ code: "service.outcome_unknown", retryable: false });
    expect((error as OutcomeUnknownError).userMessage).toMatch(/may have been created and charged/);
    expect((error as OutcomeUnknownError).userMessage).toContain("the video list command");
  });

  it("a paid creation whose success was cut off mid-answer is an OutcomeUnknownError", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/image/generate", hangUp: "mid-body" });
    const error = await rejectionOf(ctx.api.images.generate({ prompt: "p", name: "n" }));
    expect(error).toMatchObject({ code: "service.outcome_unknown" });
    expect(ctx.emu.account(KEY).creditsUsed).toBe(1);
  });

  it("a creation that never left (connection refused) is a plain NetworkError: trying again is safe", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const client = createMediaClient({ baseUrl: `http://127.0.0.1:${port}`, retries: { maxRetries: 0 } });
    try {
      const error = await rejectionOf(client.as(KEY).images.generate({ prompt: "p", name: "n" }));
      expect(error).toBeInstanceOf(NetworkError);
    } finally {
      await client.close();
    }
  });

  it("a job that fails on the service is a normalized failure, not an error", async () => {
    ctx.emu.planNextJob("image", { durationMs: 10, fail: "prompt rejected by the safety filter" });
    const { jobId } = await generate();
    await expect(pollUntil(ctx.api, "image", jobId)).resolves.toMatchObject({
      state: "failed",
      terminal: true,
      message: "prompt rejected by the safety filter",
    });
  });
});
