import { describe, expect, it } from "vitest";
import {
  normalizeImage,
  normalizeMockup,
  normalizePhotoAvatar,
  normalizeThumbnail,
  normalizeVideo,
  progressOf,
} from "../../../src/core/api/normalize.js";
import {
  ImageJob,
  MockupStatus,
  PhotoAvatarStatus,
  ThumbnailJob,
  VideoStatus,
} from "../../../src/core/api/schemas.js";

// Records go through the same schemas as the client's answers, so these are the shapes the poller sees.
const video = (raw: object) => normalizeVideo(VideoStatus.parse({ result: "success", ...raw }));
const photo = (raw: object) => normalizePhotoAvatar(PhotoAvatarStatus.parse({ result: "success", ...raw }));
const image = (raw: object) => normalizeImage(ImageJob.parse({ result: "success", ...raw }));
const mockup = (raw: object) => normalizeMockup(MockupStatus.parse({ result: "success", ...raw }));
const thumbnail = (raw: object) => normalizeThumbnail(ThumbnailJob.parse({ result: "success", ...raw }));

describe("progressOf", () => {
  it.each([
    ["45%", 45],
    ["45", 45],
    [45, 45],
    ["12.5 %", 12.5],
    [140, 100],
    [-3, 0],
    ["soon", null],
    [undefined, null],
  ] as const)("%s -> %s", (raw, expected) => {
    expect(progressOf(raw)).toBe(expected);
  });
});

describe("video jobs", () => {
  it("queued, then working with the progress text as a number", () => {
    expect(video({ status: "inference_started", terminal: false })).toEqual({
      state: "queued",
      progress: null,
      terminal: false,
    });
    expect(video({ status: "inference_working", terminal: false, progress: "45%" })).toEqual({
      state: "working",
      progress: 45,
      terminal: false,
    });
  });

  it("inference_retrying and a non-terminal inference_error are retrying, not failures", () => {
    expect(
      video({
        status: "inference_retrying",
        terminal: false,
        backendStatus: "inference_error",
        reason: "GPU busy",
      }),
    ).toEqual({ state: "retrying", progress: null, terminal: false, message: "GPU busy" });
    expect(video({ status: "inference_error", terminal: false })).toMatchObject({
      state: "retrying",
      terminal: false,
    });
    expect(video({ status: "inference_error" })).toMatchObject({ state: "retrying", terminal: false });
    expect(video({ status: "inference_working", backendStatus: "inference_error" })).toMatchObject({
      state: "retrying",
    });
  });

  it("a terminal inference_error is a failure", () => {
    expect(video({ status: "inference_error", terminal: true, reason: "unknown error" })).toEqual({
      state: "failed",
      progress: null,
      terminal: true,
      message: "unknown error",
    });
  });

  it("complete with a videoId is done with the video as result", () => {
    expect(video({ status: "inference_complete", terminal: true, videoId: "v1" })).toEqual({
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "video", videoId: "v1" },
    });
  });

  it("complete before the video record exists keeps polling", () => {
    expect(video({ status: "inference_complete", terminal: true })).toEqual({
      state: "working",
      progress: 100,
      terminal: false,
    });
  });

  it("failed carries the service's reason", () => {
    expect(video({ status: "inference_failed", terminal: true, reason: "face not found" })).toEqual({
      state: "failed",
      progress: null,
      terminal: true,
      message: "face not found",
    });
  });

  it("terminal decides: a failure marked non-terminal is a retry, an unknown terminal state a failure", () => {
    expect(video({ status: "inference_failed", terminal: false })).toMatchObject({
      state: "retrying",
      terminal: false,
    });
    expect(video({ status: "cancelled_by_admin", terminal: true })).toMatchObject({
      state: "failed",
      terminal: true,
    });
  });

  it("an unknown status is working, not a crash", () => {
    expect(video({ status: "inference_upscaling", progress: 80 })).toEqual({
      state: "working",
      progress: 80,
      terminal: false,
    });
    expect(video({ status: "constructor" })).toMatchObject({ state: "working" });
  });
});

describe("photo avatar jobs", () => {
  it("queued and working", () => {
    expect(photo({ status: "queued", terminal: false })).toMatchObject({ state: "queued" });
    expect(photo({ status: "inference_working", terminal: false })).toMatchObject({ state: "working" });
  });

  it("variants_ready needs a choice and carries both preview URLs", () => {
    expect(
      photo({
        status: "variants_ready",
        terminal: false,
        variantPreviewUrls: ["https://p/1.png", "https://p/2.png"],
      }),
    ).toEqual({
      state: "needs_choice",
      progress: null,
      terminal: false,
      result: { kind: "photo_avatar_variants", previewUrls: ["https://p/1.png", "https://p/2.png"] },
    });
  });

  it("variants_ready without two previews is still working", () => {
    expect(
      photo({ status: "variants_ready", terminal: false, variantPreviewUrls: ["https://p/1.png"] }),
    ).toMatchObject({
      state: "working",
    });
  });

  it("complete yields the avatar ids, one or two", () => {
    expect(
      photo({ status: "inference_complete", terminal: true, avatarId: "a1", avatarIds: ["a1", "a2"] }),
    ).toEqual({
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "photo_avatar", avatarIds: ["a1", "a2"] },
    });
    expect(photo({ status: "inference_complete", terminal: true, avatarId: "a1" })).toMatchObject({
      result: { kind: "photo_avatar", avatarIds: ["a1"] },
    });
  });

  it("retrying while the backend errs, failed when terminal", () => {
    expect(
      photo({ status: "inference_retrying", terminal: false, backendStatus: "inference_error" }),
    ).toMatchObject({ state: "retrying", terminal: false });
    expect(photo({ status: "inference_failed", terminal: true, reason: "no face" })).toMatchObject({
      state: "failed",
      terminal: true,
      message: "no face",
    });
  });
});

describe("image jobs", () => {
  it("the in-progress form", () => {
    expect(image({ status: "inference_started" })).toEqual({
      state: "queued",
      progress: null,
      terminal: false,
    });
    expect(image({ status: "inference_working", progress: "30%" })).toEqual({
      state: "working",
      progress: 30,
      terminal: false,
    });
  });

  it("the completed Image info form is done with the image", () => {
    expect(
      image({
        id: "img1",
        name: "fox",
        prompt: "a red fox",
        createdAt: "2026-01-01T00:00:00Z",
        downloadUrl: "https://cdn/img1.png",
        mediaId: "m1",
      }),
    ).toEqual({
      state: "done",
      progress: 100,
      terminal: true,
      result: {
        kind: "image",
        imageId: "img1",
        name: "fox",
        prompt: "a red fox",
        downloadUrl: "https://cdn/img1.png",
        mediaId: "m1",
      },
    });
  });

  it("failed is terminal, with the reason when given", () => {
    expect(image({ status: "inference_failed", error: "nsfw prompt" })).toEqual({
      state: "failed",
      progress: null,
      terminal: true,
      message: "nsfw prompt",
    });
  });

  it("retrying is not a failure", () => {
    expect(image({ status: "inference_retrying" })).toMatchObject({ state: "retrying", terminal: false });
  });
});

describe("mockup jobs", () => {
  it("waiting, started with a numeric progress, completed, failed", () => {
    expect(mockup({ status: "waiting", progress: 0 })).toEqual({
      state: "queued",
      progress: 0,
      terminal: false,
    });
    expect(mockup({ status: "started", progress: 60 })).toEqual({
      state: "working",
      progress: 60,
      terminal: false,
    });
    expect(
      mockup({ status: "completed", progress: 100, imageUrl: "/api/media/m1/view", mediaId: "m1" }),
    ).toEqual({
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "mockup", imageUrl: "/api/media/m1/view", mediaId: "m1" },
    });
    expect(mockup({ status: "failed", reason: "logo unreadable" })).toEqual({
      state: "failed",
      progress: null,
      terminal: true,
      message: "logo unreadable",
    });
  });
});

describe("thumbnail jobs", () => {
  it("waiting and started while generating", () => {
    expect(thumbnail({ status: "waiting", progress: 0 })).toMatchObject({ state: "queued", terminal: false });
    expect(thumbnail({ status: "started", progress: 40 })).toEqual({
      state: "working",
      progress: 40,
      terminal: false,
    });
  });

  it("the details record once complete is done with those details", () => {
    const details = { id: "t1", imageUrl: "https://cdn/t1.png", name: "intro" };
    expect(thumbnail(details)).toEqual({
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "thumbnail", details: { result: "success", ...details } },
    });
  });

  it("a completed status with the thumbnail nested under `thumbnail` is done with the thumbnail", () => {
    const nested = { id: "t1", imageUrl: "https://cdn/t1.png" };
    expect(thumbnail({ status: "completed", progress: 100, thumbnail: nested })).toEqual({
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "thumbnail", details: nested },
    });
  });

  it("an unknown status is working", () => {
    expect(thumbnail({ status: "upscaling" })).toMatchObject({ state: "working", terminal: false });
  });
});
