import { createServer, type Server } from "node:http";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createMediaClient } from "../../../src/core/api/index.js";
import { backoffMs, DEFAULT_RETRY_POLICY, retryAfterMs } from "../../../src/core/api/retry.js";
import {
  AbortedError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ServiceUnavailableError,
  TimeoutError,
} from "../../../src/core/base/errors.js";
import { createLogger } from "../../../src/core/base/log.js";
import { KEY, pollUntil, rejectionOf, sha256Of, useEmulator } from "./support.js";

/** GETs retry (network errors, 429 with Retry-After, 5xx) with bounded backoff; creation and confirm POSTs never do. */

const ctx = useEmulator({}, { retries: { maxRetries: 3, minDelayMs: 5, maxDelayMs: 2_000 } });
const generate = () => ctx.api.images.generate({ prompt: "a fox", name: "fox" });

describe("GETs are retried", () => {
  it("after a 503", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/usage", status: 503, body: { error: "down" } });
    await expect(ctx.api.usage.get()).resolves.toMatchObject({ plan: "pro" });
    expect(ctx.emu.callsTo("GET", "/api/usage").map((c) => c.status)).toEqual([503, 200]);
  });

  it("after a 429, waiting as long as Retry-After says", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/avatars", status: 429, headers: { "retry-after": "1" } });
    const started = Date.now();
    await expect(ctx.api.avatars.list()).resolves.not.toHaveLength(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(ctx.emu.callsTo("GET", "/api/avatars").map((c) => c.status)).toEqual([429, 200]);
  });

  it("a status poll rides out 500s", async () => {
    ctx.emu.planNextJob("image", { durationMs: 10 });
    const { jobId } = await generate();
    ctx.emu.inject({ method: "GET", path: `/api/image/${jobId}`, status: 500, times: 2 });
    await expect(pollUntil(ctx.api, "image", jobId)).resolves.toMatchObject({ state: "done" });
    expect(ctx.emu.callsTo("GET", `/api/image/${jobId}`).filter((c) => c.status === 500)).toHaveLength(2);
  });

  it("a download after a 502", async () => {
    ctx.emu.planNextJob("video", { durationMs: 10 });
    const [avatar] = await ctx.api.avatars.list();
    const { jobId } = await ctx.api.videos.create({
      avatarId: avatar!.id,
      name: "v",
      voiceId: "1",
      text: "hi",
    });
    const done = await pollUntil(ctx.api, "video", jobId);
    const videoId = done.result?.kind === "video" ? done.result.videoId : "";
    ctx.emu.inject({ method: "GET", path: `/api/video/${videoId}/download`, status: 502 });
    const file = await ctx.api.videos.download(videoId);
    expect((await sha256Of(file.body)).bytes).toBe(file.size);
  });

  it("a bounded number of times, then the typed error", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/videos", status: 503, times: 10 });
    await expect(ctx.api.videos.list()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(ctx.emu.callsTo("GET", "/api/videos")).toHaveLength(1 + 3);
  });

  it("not when Retry-After asks for longer than the longest wait: the caller gets it to schedule", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/usage", status: 429, headers: { "retry-after": "120" } });
    const error = await rejectionOf(ctx.api.usage.get());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(120_000);
    expect(ctx.emu.callsTo("GET", "/api/usage")).toHaveLength(1);
  });

  it("not after a 4xx other than 429", async () => {
    await expect(ctx.api.videos.get("missing")).rejects.toMatchObject({ status: 404 });
    expect(ctx.emu.callsTo("GET", "/api/video/missing")).toHaveLength(1);
  });

  it("after a dropped connection", async () => {
    let requests = 0;
    const server: Server = createServer((req, res) => {
      requests += 1;
      if (requests === 1) {
        req.socket.destroy();
        return;
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ avatars: [{ id: "a1" }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const client = createMediaClient({ baseUrl: `http://127.0.0.1:${port}`, retries: { minDelayMs: 1 } });
    try {
      await expect(client.as(KEY).avatars.list()).resolves.toEqual([{ id: "a1" }]);
      expect(requests).toBe(2);
    } finally {
      await client.close();
      server.close();
    }
  });
});

describe("creation and confirm POSTs are never retried", () => {
  it("a create answered 503: exactly one call", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/image/generate", status: 503 });
    await expect(generate()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(ctx.emu.callsTo("POST", "/api/image/generate")).toHaveLength(1);
  });

  it("a create answered 429 with Retry-After: exactly one call", async () => {
    ctx.emu.inject({
      method: "POST",
      path: "/api/video/cinematic/create",
      status: 429,
      headers: { "retry-after": "0" },
    });
    await expect(ctx.api.videos.createCinematic({ name: "c", prompt: "p" })).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    expect(ctx.emu.callsTo("POST", "/api/video/cinematic/create")).toHaveLength(1);
  });

  it("a confirm answered 500: exactly one call", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/avatar/design/confirm-both", status: 500 });
    await expect(ctx.api.photoAvatars.confirmBoth({ jobId: "j1" })).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(ctx.emu.callsTo("POST", "/api/avatar/design/confirm-both")).toHaveLength(1);
  });

  it("a create that times out: exactly one call, and an answer that says it may have gone through", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/thumbnail/generate", delayMs: 500 });
    const error = await rejectionOf(
      ctx.api.thumbnails.generate({ prompt: "p", name: "n" }, { timeoutMs: 50 }),
    );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(TimeoutError);
    expect(ctx.emu.callsTo("POST", "/api/thumbnail/generate")).toHaveLength(1);
  });

  it("a create whose connection drops after the service acted: exactly one call", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/thumbnail/generate", hangUp: "applied" });
    const error = await rejectionOf(ctx.api.thumbnails.generate({ prompt: "p", name: "n" }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(NetworkError);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ctx.emu.callsTo("POST", "/api/thumbnail/generate")).toHaveLength(1);
  });
});

describe("timeouts and AbortSignal", () => {
  it("the timeout bounds a GET with its retries", async () => {
    ctx.emu.inject({ method: "GET", path: "/api/usage", delayMs: 1_000, times: 5 });
    const started = Date.now();
    await expect(ctx.api.usage.get({ timeoutMs: 80 })).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(800);
  });

  it("an already aborted signal sends nothing", async () => {
    const error = await rejectionOf(ctx.api.usage.get({ signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(AbortedError);
    expect(ctx.emu.callsTo("GET", "/api/usage")).toHaveLength(0);
  });

  it("aborting during a call ends it at once", async () => {
    ctx.emu.inject({ method: "POST", path: "/api/image/generate", delayMs: 2_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const started = Date.now();
    const error = await rejectionOf(
      ctx.api.images.generate({ prompt: "p", name: "n" }, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ code: "service.aborted" });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("aborting while a GET waits to retry ends it without another attempt", async () => {
    ctx.emu.inject({
      method: "GET",
      path: "/api/usage",
      status: 503,
      headers: { "retry-after": "1" },
      times: 5,
    });
    const controller = new AbortController();
    const outcome = ctx.api.usage.get({ signal: controller.signal }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // Aborted once the first attempt was answered 503, within the second the client waits.
    while (ctx.emu.callsTo("GET", "/api/usage")[0]?.status !== 503)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const abortedAt = Date.now();
    controller.abort();
    expect(await outcome).toBeInstanceOf(AbortedError);
    // Well before the retry was due (Retry-After: 1 s): it did not wait for it.
    expect(Date.now() - abortedAt).toBeLessThan(700);
    expect(ctx.emu.callsTo("GET", "/api/usage")).toHaveLength(1);
  });

  it("aborting a download stops its body with an AbortedError", async () => {
    ctx.emu.planNextJob("video", { durationMs: 10, large: true });
    const [avatar] = await ctx.api.avatars.list();
    const { jobId } = await ctx.api.videos.create({
      avatarId: avatar!.id,
      name: "v",
      voiceId: "1",
      text: "hi",
    });
    const done = await pollUntil(ctx.api, "video", jobId);
    const controller = new AbortController();
    const file = await ctx.api.videos.download(done.result?.kind === "video" ? done.result.videoId : "", {
      signal: controller.signal,
    });
    let bytes = 0;
    const error = await rejectionOf(
      (async () => {
        for await (const chunk of file.body) {
          bytes += chunk.length;
          if (bytes > 1_000_000) controller.abort();
        }
      })(),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(bytes).toBeLessThan(file.size!);
  });
});

describe("the retry policy", () => {
  it("backs off exponentially with jitter, within the bounds", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, minDelayMs: 100, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 1))).toEqual([100, 200, 400, 800, 1_000]);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3_000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe("logging", () => {
  it("the client's own log lines never carry the API key, through retries and failures", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: "trace",
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const secret = "sk-tenant-secret-123";
    ctx.emu.addAccount({ apiKey: secret, plan: "pro" });
    const client = createMediaClient({ baseUrl: ctx.emu.url, logger, retries: { minDelayMs: 1 } });
    try {
      ctx.emu.inject({ method: "GET", path: "/api/usage", status: 503 });
      await client.as(secret).usage.get();
      ctx.emu.inject({ method: "POST", path: "/api/image/generate", status: 500 });
      await expect(client.as(secret).images.generate({ prompt: "p", name: "n" })).rejects.toThrow();
      await expect(client.as(`${secret}-wrong`).usage.get()).rejects.toThrow();
    } finally {
      await client.close();
    }
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines.join("")).not.toContain(secret);
  });
});
