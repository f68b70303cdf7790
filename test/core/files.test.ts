import { describe, expect, it } from "vitest";
import { fileName } from "../../src/core/media/files.js";

/** The names results are uploaded under, as people see them in the chat's file list. */

describe("fileName", () => {
  it("adds the type's extension once, also to a name that ends in a full stop", () => {
    expect(fileName("My fox", "image/png")).toBe("My fox.png");
    expect(fileName("test.", "video/mp4")).toBe("test.mp4");
    expect(fileName("a test...", "video/mp4; codecs=avc1")).toBe("a test.mp4");
    expect(fileName("clip.mp4", "video/mp4")).toBe("clip.mp4");
  });

  it("keeps names safe for every platform, and never empty", () => {
    expect(fileName("a/b: c?", "image/jpeg")).toBe("a_b_ c_.jpg");
    expect(fileName("...", "image/png")).toBe("result.png");
    expect(fileName("x".repeat(100), "image/png")).toBe(`${"x".repeat(80)}.png`);
  });

  it("keeps the letters of every language: a Japanese or German prompt names its file", () => {
    expect(fileName("雪の中のキツネ", "image/png")).toBe("雪の中のキツネ.png");
    expect(fileName("ein Bär im Schnee", "video/mp4")).toBe("ein Bär im Schnee.mp4");
    expect(fileName("café crème", "image/png")).toBe("café crème.png");
  });
});
