import { describe, expect, it } from "vitest";
import {
  QuotaExceededError,
  ServiceUnavailableError,
  UnauthorizedError,
} from "../../../src/core/base/errors.js";
import { AccessError, InputError } from "../../../src/core/commands/errors.js";
import { errorCard } from "../../../src/core/render/errors.js";
import { helpCard } from "../../../src/core/render/help.js";
import {
  failedJobCard,
  progressCard,
  queuedCard,
  readyNotice,
  resultCard,
  variantsCard,
} from "../../../src/core/render/job.js";
import { listCard, pageOf } from "../../../src/core/render/lists.js";
import { usageCard } from "../../../src/core/render/usage.js";

const view = { id: "job123456789", title: "Image: a red fox" };

describe("job cards", () => {
  it("goes from queued to a progress bar to retrying, under one title", () => {
    expect(queuedCard(view)).toMatchObject({
      title: view.title,
      progress: { percent: null, label: "Queued" },
      footer: "Job job123456789",
    });
    const working = progressCard(view, { state: "working", progress: 45, terminal: false });
    expect(working).toMatchObject({
      title: view.title,
      tone: "progress",
      progress: { percent: 45, label: "Working" },
    });
    const retrying = progressCard(view, { state: "retrying", progress: 33, terminal: false });
    expect(retrying.tone).toBe("warning");
    expect(retrying.lines.join(" ")).toMatch(/retrying on its own\. Nothing to do/);
  });

  it("tells that a job whose prompt ended in a full stop is ready with one full stop", () => {
    const test = { id: "J1", title: "Image: a test." };
    expect(readyNotice(test, false)).toEqual({ text: "Image: a test is ready." });
    expect(readyNotice(test, true)).toEqual({ text: "Image: a test: the job failed (details above)." });
    expect(readyNotice({ id: "J2", title: "Image: is it real?" }, false)).toEqual({
      text: "Image: is it real? is ready.",
    });
    expect(readyNotice(view, false)).toEqual({ text: "Image: a red fox is ready." });
  });

  it("says how long a running job has run and, once progress moves, about how long is left", () => {
    const started = progressCard(view, { state: "working", progress: null, terminal: false }, 12_000);
    expect(started.lines).toEqual(["Running for 12 s."]);
    const moving = progressCard(view, { state: "working", progress: 25, terminal: false }, 80_000);
    expect(moving.lines).toEqual(["Running for 1 min 20 s, about 4 min left."]);
    const long = progressCard(view, { state: "working", progress: 50, terminal: false }, 3_900_000);
    expect(long.lines).toEqual(["Running for 1 h 5 min, about 1 h 5 min left."]);
  });

  it("shows both variants with Keep 1 / Keep 2 / Keep both carrying the job id", () => {
    const c = variantsCard(view, ["https://x/1.png", "https://x/2.png"]);
    expect(c.media.map((m) => m.url)).toEqual(["https://x/1.png", "https://x/2.png"]);
    expect(c.actions).toEqual([
      expect.objectContaining({
        type: "button",
        action: "confirm",
        value: "1",
        label: "Keep 1",
        jobId: view.id,
      }),
      expect.objectContaining({
        type: "button",
        action: "confirm",
        value: "2",
        label: "Keep 2",
        jobId: view.id,
      }),
      expect.objectContaining({ type: "button", action: "confirm_both", label: "Keep both", jobId: view.id }),
    ]);
  });

  it("says plainly when a result is too big to attach and links it instead", () => {
    const c = resultCard(view, {
      kind: "video",
      name: "clip",
      url: "https://cdn/clip.mp4",
      oversize: { bytes: 50 * 1024 * 1024, limit: 10 * 1024 * 1024 },
    });
    expect(c.lines.join(" ")).toMatch(
      /is 50 MB, more than the 10 MB this conversation accepts, so it is not attached/,
    );
    expect(c.links).toEqual([{ label: "Download the video", url: "https://cdn/clip.mp4" }]);
    expect(c.media.every((m) => m.file === undefined)).toBe(true);
  });

  it("tells what to do when a job failed", () => {
    const c = failedJobCard(view, { serviceReason: "content policy" });
    expect(c.tone).toBe("error");
    expect(c.lines[0]).toBe("The media service could not finish this job: content policy.");
    expect(c.lines[1]).toMatch(/Try again/);
  });
});

describe("usage and error cards", () => {
  const usage = {
    plan: "pro",
    credits_used: 250,
    credits_limit: 1000,
    credits_remaining: 750,
    usage: { ai_images: { used: 3, limit: "unlimited" }, cinematic_videos: { used: 10, limit: 10 } },
    usage_reset_date: "2026-12-01",
  };

  it("shows a credits bar, per-type quotas and the reset date", () => {
    const c = usageCard(usage);
    const fields = Object.fromEntries(c.fields.map((f) => [f.name, f.value]));
    expect(fields["Credits used"]).toBe("▰▰▰▱▱▱▱▱▱▱ 25% (250 of 1000)");
    expect(fields["Credits left"]).toBe("750");
    expect(fields.Images).toBe("3 used (no limit)");
    expect(fields["Cinematic videos"]).toBe("10 of 10");
    expect(fields["Resets on"]).toBe("2026-12-01");
  });

  it("titles each error by its code and keeps the user message", () => {
    expect(errorCard(new InputError("input.invalid_option", "seed must be a number."))).toMatchObject({
      title: "Check the command",
      lines: ["seed must be a number."],
    });
    expect(errorCard(new AccessError("access.admin_only", "Only admins.")).title).toBe("Not allowed");
    expect(errorCard(new UnauthorizedError()).lines[0]).toMatch(
      /An admin can set one with the setup command/,
    );
    expect(errorCard(new ServiceUnavailableError(503)).title).toBe("The media service is having trouble");
    const quota = errorCard(new QuotaExceededError(400, "not enough credits"), { usage });
    expect(quota.title).toBe("Out of credits or over the plan limit");
    expect(quota.fields.map((f) => f.name)).toContain("Credits left");
  });

  it("hides the details of an unexpected error behind a reference", () => {
    const c = errorCard(new TypeError("x is undefined at line 3"), { reference: "ab12cd34" });
    expect(c.title).toBe("Something went wrong");
    expect(JSON.stringify(c)).not.toMatch(/undefined at line/);
    expect(c.footer).toBe("Reference ab12cd34");
  });
});

describe("lists and help", () => {
  it("pages a long list and says how to see more", () => {
    const items = Array.from({ length: 23 }, (_, i) => ({ title: `Avatar ${i + 1}` }));
    const { items: shown, paging } = pageOf(items, 2);
    const c = listCard("Avatars", shown, paging, { empty: "none" });
    expect(c.fields.map((f) => f.name)).toEqual(items.slice(10, 20).map((i) => i.title));
    expect(c.footer).toBe("Page 2 of 3, 23 in all. Use page 3 for more.");
    expect(pageOf(items, 9).paging.page).toBe(3);
    expect(listCard("Avatars", [], pageOf([], 1).paging, { empty: "No avatars yet." }).lines).toEqual([
      "No avatars yet.",
    ]);
  });

  it("lists everything, or one group", () => {
    const entries = [
      { name: "usage", help: "Show usage" },
      { name: "image.generate", help: "Generate", main: "prompt" },
      { name: "image.edit", help: "Edit", main: "prompt" },
    ];
    // The whole catalogue: one field per group, within Discord's 25 fields per embed.
    expect(helpCard(entries).fields).toEqual([
      { name: "usage", value: "Show usage" },
      { name: "image", value: "image generate <prompt> · image edit <prompt>" },
    ]);
    expect(helpCard(entries, "image").fields.map((f) => f.name)).toEqual([
      "image generate <prompt>",
      "image edit <prompt>",
    ]);
    expect(helpCard(entries, "nothing").lines[0]).toMatch(/no command or group called "nothing"/);
  });
});
