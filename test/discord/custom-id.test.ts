import { describe, expect, it } from "vitest";
import { decodeControlId, encodeControlId } from "../../src/discord/custom-id.js";

describe("custom_id codec", () => {
  it("round-trips an action, our job id and a value", () => {
    const id = encodeControlId({ action: "confirm", jobId: "Ab3_x-9QzK1w", value: "2" });
    expect(id).toBe("mb1:confirm:Ab3_x-9QzK1w:2");
    expect(decodeControlId(id)).toEqual({ action: "confirm", jobId: "Ab3_x-9QzK1w", value: "2" });
    expect(decodeControlId(encodeControlId({ action: "animate", jobId: "J1" }))).toEqual({
      action: "animate",
      jobId: "J1",
    });
  });

  it("stays within Discord's 100 characters: parts that together are longer are refused", () => {
    const id = encodeControlId({ action: "a".repeat(24), jobId: "j".repeat(32), value: "v".repeat(38) });
    expect(id).toHaveLength(100);
    expect(decodeControlId(id)).toBeDefined();
    // A list's page value is longer (it carries the search); its list name is short.
    const page = encodeControlId({ action: "page", jobId: "mockup_videos", value: "v".repeat(64) });
    expect(decodeControlId(page)).toEqual({ action: "page", jobId: "mockup_videos", value: "v".repeat(64) });
    expect(() => encodeControlId({ action: "a".repeat(25), jobId: "j" })).toThrow(RangeError);
    expect(() => encodeControlId({ action: "a", jobId: "j".repeat(33) })).toThrow(RangeError);
    expect(() => encodeControlId({ action: "a", jobId: "j", value: "v".repeat(65) })).toThrow(RangeError);
    expect(() =>
      encodeControlId({ action: "a".repeat(24), jobId: "j".repeat(32), value: "v".repeat(39) }),
    ).toThrow(RangeError);
  });

  it("refuses to encode parts that would make the id ambiguous", () => {
    expect(() => encodeControlId({ action: "Confirm", jobId: "j" })).toThrow(RangeError);
    expect(() => encodeControlId({ action: "confirm", jobId: "a:b" })).toThrow(RangeError);
    expect(() => encodeControlId({ action: "confirm", jobId: "j", value: "1:2" })).toThrow(RangeError);
    expect(() => encodeControlId({ action: "confirm", jobId: "" })).toThrow(RangeError);
  });

  it("rejects foreign, garbled and other-version ids", () => {
    for (const id of [
      "",
      "confirm",
      "other-bot:confirm:123",
      "mb2:confirm:Ab3:1",
      "mb1:confirm",
      "mb1::Ab3",
      "mb1:confirm:Ab3:1:extra",
      "mb1:confirm:Ab 3",
      "mb1:CONFIRM:Ab3",
      `mb1:confirm:${"x".repeat(100)}`,
    ]) {
      expect(decodeControlId(id), id).toBeUndefined();
    }
  });
});
