import { describe, expect, it } from "vitest";
import {
  AbortedError,
  AttachmentReadError,
  BadRequestError,
  BotError,
  ForbiddenError,
  InvalidResponseError,
  isQuotaMessage,
  LinkRefusedError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  QuotaExceededError,
  RateLimitedError,
  ServiceFailureError,
  ServiceUnavailableError,
  serviceErrorFor,
  TimeoutError,
  UnauthorizedError,
  UploadFailedError,
  userMessageOf,
} from "../../src/core/base/errors.js";

const all: BotError[] = [
  new ServiceFailureError("Unknown avatar", { field: "avatarId" }, "POST /api/video/create"),
  new QuotaExceededError(400, "Not enough credits"),
  new BadRequestError(400, "name is required"),
  new UnauthorizedError("Invalid API key"),
  new ForbiddenError("not your job"),
  new NotFoundError("video not found"),
  new RateLimitedError(2_000),
  new ServiceUnavailableError(503),
  new NetworkError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })),
  new TimeoutError(30_000),
  new InvalidResponseError("jobId: expected string", 200),
  new AbortedError(),
  new AttachmentReadError("photo.png: ended after 10 of 20 declared bytes"),
  new OutcomeUnknownError("the video list command", new TimeoutError(30_000, "POST /api/video/create")),
  new LinkRefusedError(403, "Request has expired", "PUT /storage/uploads/m1"),
  new UploadFailedError(
    "photo.png",
    new ServiceUnavailableError(503, undefined, "POST /api/media/initialize"),
  ),
];

describe("errors", () => {
  it("each has its own stable code and a chat sentence apart from the log detail", () => {
    expect(all.map((e) => e.code)).toEqual([
      "service.failure",
      "service.quota_exceeded",
      "service.bad_request",
      "service.unauthorized",
      "service.forbidden",
      "service.not_found",
      "service.rate_limited",
      "service.unavailable",
      "service.network",
      "service.timeout",
      "service.invalid_response",
      "service.aborted",
      "upload.source_failed",
      "service.outcome_unknown",
      "service.link_refused",
      "upload.failed",
    ]);
    for (const error of all) {
      expect(error).toBeInstanceOf(BotError);
      expect(error.name).toBe(error.constructor.name);
      expect(error.userMessage).toMatch(/^[A-Z].*\.$/);
      expect(error.userMessage).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\n\s*at |HTTP \d/);
    }
  });

  it("401 says the key of this server or workspace is missing or invalid and an admin can set one", () => {
    const error = new UnauthorizedError("bad key", "GET /api/usage");
    expect(error.status).toBe(401);
    expect(error.userMessage).toMatch(/API key for this server or workspace is missing or invalid/);
    expect(error.userMessage).toMatch(/admin can set one/);
    expect(error.message).toBe("GET /api/usage: HTTP 401 bad key");
  });

  it("the failure envelope keeps the service's words and details", () => {
    const error = new ServiceFailureError("Unknown avatar.", { field: "avatarId" }, "POST /api/video/create");
    expect(error.status).toBe(200);
    expect(error.serviceMessage).toBe("Unknown avatar.");
    expect(error.details).toEqual({ field: "avatarId" });
    expect(error.userMessage).toBe(
      "The media service could not do that: Unknown avatar. Check the options and try again.",
    );
  });

  it("only transient trouble is retryable", () => {
    expect(all.filter((e) => e.retryable).map((e) => e.code)).toEqual([
      "service.rate_limited",
      "service.unavailable",
      "service.network",
      "service.timeout",
      "service.link_refused",
      "upload.failed",
    ]);
  });

  it("says how long to wait when the service said so", () => {
    expect(new RateLimitedError(2_000).userMessage).toContain("Wait 2 seconds");
    expect(new RateLimitedError().userMessage).toContain("Wait a minute");
  });

  it.each([
    ["Not enough credits", true],
    ["Insufficient credits for this operation", true],
    ["Monthly cinematic limit reached", true],
    ["Quota exceeded for ai_images", true],
    ["This request exceeds your plan limit", true],
    ["Unknown avatar", false],
    ["name is required", false],
  ])("quota wording: %s -> %s", (text, expected) => {
    expect(isQuotaMessage(text)).toBe(expected);
  });

  it("anything else reads as a generic sentence that leaks nothing", () => {
    expect(userMessageOf(new NotFoundError())).toMatch(/could not find that/);
    expect(userMessageOf(new Error("secret stack detail"))).not.toContain("secret");
  });

  it("maps each answer of the service to one class, the failure envelope and quota wording first", () => {
    const of = (status: number, said?: string, more: { presigned?: boolean; retryAfterMs?: number } = {}) =>
      serviceErrorFor({ status, said, ...more }, "GET /api/x");
    expect(
      [
        of(200, "Unknown avatar"),
        of(200, "Not enough credits"),
        of(200),
        of(400, "name is required"),
        of(400, "Monthly cinematic limit reached"),
        of(402),
        of(401),
        of(403, "not yours"),
        of(403, "Request has expired", { presigned: true }),
        of(404),
        of(429, undefined, { retryAfterMs: 3_000 }),
        of(418),
        of(503),
        of(302),
      ].map((e) => e.code),
    ).toEqual([
      "service.failure",
      "service.quota_exceeded",
      "service.failure",
      "service.bad_request",
      "service.quota_exceeded",
      "service.quota_exceeded",
      "service.unauthorized",
      "service.forbidden",
      "service.link_refused",
      "service.not_found",
      "service.rate_limited",
      "service.bad_request",
      "service.unavailable",
      "service.invalid_response",
    ]);
    expect(of(200).message).toBe("GET /api/x: HTTP 200 no reason given");
    expect((of(429, undefined, { retryAfterMs: 3_000 }) as RateLimitedError).retryAfterMs).toBe(3_000);
  });

  it("long service messages are cut for the chat", () => {
    const error = new BadRequestError(400, "x".repeat(1000));
    expect(error.userMessage.length).toBeLessThan(300);
    expect(error.serviceMessage).toHaveLength(1000);
  });
});
