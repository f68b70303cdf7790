import { afterEach, describe, expect, it } from "vitest";
import { isCard } from "../../../src/core/base/cards.js";
import { until } from "../../main-process.js";
import { jobsSettled } from "../../settled.js";
import { isMp4 } from "../fake-adapter.js";
import { actor, Harness, text } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const EMMA = "cm2yaz9j10008l0qg9npyjgs3";

/** Until every job is delivered on record and owned by no one: a second delivery would show by then. */
const settled = (harness: Harness) =>
  until(
    () => jobsSettled(harness.stores, [actor()]),
    15_000,
    () => "every job delivered and released",
  );

describe("jobs over time", () => {
  it("a restart mid-job delivers the result exactly once", async () => {
    h = await Harness.start();
    h.emu.planNextJob("video", { durationMs: 600 });
    const ref = await h.startJob("video.avatar", { avatar: EMMA, script: "Survive a restart" });
    await h.shows(ref, (card) => card.progress?.label === "Working");
    await h.shutdown();

    await h.restart();
    const result = await h.finished(ref);
    expect(result.tone).toBe("success");
    await settled(h);
    expect(h.chat.posts.filter((p) => p.options.mentionUserId === "user-1")).toHaveLength(1);
    expect(h.chat.edits.filter((e) => e.ref.messageId === ref.messageId && e.files.length > 0)).toHaveLength(
      1,
    );
    expect(isMp4(h.chat.files()[0]!.bytes)).toBe(true);
    expect(h.creations("/api/video/create")).toHaveLength(1);
  });

  it("a chat outage in the middle of a delivery is retried, and the requester is told once", async () => {
    h = await Harness.start();
    const ref = await h.startJob("image.generate", { prompt: "patience" });
    // The job message is posted; the next post is the delivery's notice, after the result edit.
    h.chat.failNext("post", 1);
    const result = await h.finished(ref);
    expect(result.tone).toBe("success");
    await settled(h);
    expect(h.chat.posts.filter((p) => p.options.mentionUserId === "user-1")).toHaveLength(1);
    const resultEdits = h.chat.edits.filter((e) => e.ref.messageId === ref.messageId && e.files.length > 0);
    expect(resultEdits.length).toBe(2);
  });

  it("variants survive a restart: the buttons still work", async () => {
    h = await Harness.start();
    const ref = await h.startJob("photo_avatar.design", { name: "Later" });
    await h.shows(ref, (card) => card.actions.length === 3);
    await h.restart();
    await h.click(ref, "confirm", "2");
    expect((await h.finished(ref)).fields[0]).toMatchObject({ name: "Avatar id" });
    expect(h.creations("/api/avatar/design/confirm")).toHaveLength(1);
  });

  it("variants stored but not yet shown when the process died are shown by the restart", async () => {
    h = await Harness.start();
    const ref = await h.startJob("photo_avatar.design", { name: "Unseen" });
    const variants = await h.shows(ref, (card) => card.actions.length === 3);
    // The process died after storing the choice and before its buttons reached the chat.
    await h.chat.edit(ref, { ...variants, actions: [], lines: ["Working…"] });
    await h.restart();
    await h.shows(ref, (card) => card.actions.length === 3);
    await h.click(ref, "confirm", "1");
    expect((await h.finished(ref)).fields[0]).toMatchObject({ name: "Avatar id" });
  });

  it("a 500 and inference_retrying while polling do not stop the job", async () => {
    h = await Harness.start();
    // The 500s come early (the client's own retries absorb some, the engine backs off from the rest);
    // the middle third of the job is spent in inference_retrying.
    h.emu.planNextJob("video", { durationMs: 1200, retrying: true });
    h.emu.inject({ method: "GET", path: /\/api\/video\/[^/]+\/status$/, status: 500, skip: 1, times: 4 });
    const ref = await h.startJob("video.avatar", { avatar: EMMA, script: "Keep going" });
    const result = await h.finished(ref);
    expect(result.tone).toBe("success");
    const shown = h.chat.history(ref).filter(isCard);
    const retrying = shown.find((card) => card.progress?.label === "Retrying");
    expect(retrying?.lines[0]).toMatch(/retrying on its own\. Nothing to do/);
    expect(h.emu.callsTo("GET", /\/status$/).some((c) => c.status === 500)).toBe(true);
  });

  it("a job that fails at the service says so and what to do", async () => {
    h = await Harness.start();
    h.emu.planNextJob("image", { fail: "the prompt was flagged" });
    const ref = await h.startJob("image.generate", { prompt: "something odd" });
    const result = await h.finished(ref);
    expect(result).toMatchObject({ tone: "error", title: "Image: something odd" });
    expect(result.lines[0]).toBe("The media service could not finish this job: the prompt was flagged.");
    expect(h.chat.posts.find((p) => p.options.mentionUserId)?.message).toEqual({
      text: "Image: something odd: the job failed (details above).",
    });
  });

  it("a failure reported on the status endpoint as a failure envelope ends the job there", async () => {
    h = await Harness.start();
    h.emu.planNextJob("thumbnail", { fail: "no face found in the reference" });
    const ref = await h.startJob("thumbnail.generate", { prompt: "a face" });
    const result = await h.finished(ref);
    expect(result.lines[0]).toBe(
      "The media service could not finish this job: no face found in the reference.",
    );
  });

  it("a person may run at most the limit of jobs at once; the next waits its turn, with no call yet", async () => {
    h = await Harness.start({ jobLimit: 2 });
    for (let i = 0; i < 2; i++) h.emu.planNextJob("image", { durationMs: 5_000 });
    await h.startJob("image.generate", { prompt: "one" });
    await h.startJob("image.generate", { prompt: "two" });
    const third = await h.startJob("image.generate", { prompt: "three" });
    expect(text(h.chat.card(third))).toMatch(/Queued: 0 ahead of you/);
    expect(h.creations("/api/image/generate")).toHaveLength(2);

    // Someone else is not affected.
    await h.startJob("image.generate", { prompt: "theirs" }, { actor: actor({ userId: "user-2" }) });
    expect(h.creations("/api/image/generate")).toHaveLength(3);

    await h.command("jobs");
    const list = h.lastEphemeral();
    expect(list.title).toBe("Your jobs");
    expect(list.fields.map((f) => f.name)).toEqual(["Image: two", "Image: one"]);
    expect(text(list)).toMatch(/Queued|Working/);
  });

  it("commands sent at the same moment cannot slip past the limit together", async () => {
    h = await Harness.start({ jobLimit: 2 });
    for (let i = 0; i < 5; i++) h.emu.planNextJob("image", { durationMs: 5_000 });
    await Promise.all(["a", "b", "c", "d", "e"].map((prompt) => h!.command("image.generate", { prompt })));
    expect(h.creations("/api/image/generate")).toHaveLength(2);
    const waiting = h.chat.posts.filter(
      (p) =>
        isCard(p.message) && p.message.lines.some((line) => /^Queued: \d ahead of you/.test(String(line))),
    );
    expect(waiting).toHaveLength(3);
  });
});
