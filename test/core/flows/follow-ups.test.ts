import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actor, Harness, text } from "../bot/harness.js";

/**
 * A follow-up is a job of whoever starts it: their job limit counts it, their name is on it, and
 * the requester of the result it came from has nothing to do with it.
 */

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ jobLimit: 1 });
});
afterAll(async () => {
  await h.close();
});

const other = () => actor({ userId: "user-2" });

describe("follow-ups belong to whoever starts them", () => {
  it("counts against the clicker's job limit, not the requester's, and is theirs", async () => {
    const image = await h.startJob("image.generate", { prompt: "a fox" });
    await h.finished(image);

    // The clicker already runs a job: their limit refuses the follow-up before any paid call.
    h.emu.planNextJob("image", { durationMs: 2_000 });
    const running = await h.startJob("image.generate", { prompt: "a long one" }, { actor: other() });
    await h.submit(image, "edit", { prompt: "make it blue" }, { who: other() });
    expect(text(h.lastEphemeral())).toMatch(/jobs running/);
    expect(h.creations("/api/image/edit")).toHaveLength(0);
    await h.finished(running);

    // Once it ended, the same form starts the edit, as their job: they are told it is ready.
    const before = h.chat.posts.length;
    await h.submit(image, "edit", { prompt: "make it blue" }, { who: other() });
    const edit = h.chat.posts.slice(before).find((p) => !p.options.ephemeral)!.ref;
    await h.finished(edit);
    expect(h.creations("/api/image/edit")).toHaveLength(1);
    const notice = h.chat.posts.filter((p) => p.options.mentionUserId === "user-2").at(-1);
    expect(notice?.message).toEqual({ text: "Image: make it blue is ready." });
  });
});

describe("the voice list of Make a video", () => {
  it("is offered to those let in, the avatar's own voice first, and to no one the allow-list keeps out", async () => {
    const design = await h.startJob("photo_avatar.design", { name: "Ada", gender: "female" });
    await h.shows(design, (card) => card.actions.length > 0);
    await h.click(design, "confirm", "1");
    const kept = await h.finished(design);
    const control = kept.actions.find((a) => a.action === "avatar_video")!;
    const request = {
      action: "avatar_video",
      jobId: control.jobId,
      actor: other(),
      value: "1",
      conversation: { channelId: "C-allowed" },
    };
    const [avatarId] = ((await h.stores.jobs.get(control.jobId))!.result as { avatarIds: string[] })
      .avatarIds;
    const avatar = (await h.client.as("test-key").avatars.list()).find((a) => a.id === avatarId);

    const open = await h.bot.actionForm(request);
    expect(open?.initial).toEqual({ voice: avatar?.voiceId });
    expect(open?.choices.voice?.[0]?.value).toBe(avatar?.voiceId);

    const tenant = { platform: other().platform, tenantId: other().tenantId };
    await h.stores.tenants.update(tenant, { allowedChannelIds: ["C-allowed"] });
    try {
      const elsewhere = await h.bot.actionForm({ ...request, conversation: { channelId: "C-elsewhere" } });
      expect(elsewhere?.choices).toEqual({});
      expect(elsewhere?.initial).toEqual({});
    } finally {
      await h.stores.tenants.update(tenant, { allowedChannelIds: [] });
    }
  });
});

describe("a click on a job the bot no longer knows", () => {
  it("says how long finished jobs are kept, as JOB_RETENTION_DAYS sets it, and calls nothing", async () => {
    const week = await Harness.start({ retentionDays: 7 });
    try {
      await week.bot.handleAction({
        action: "regenerate",
        jobId: "job-long-gone",
        actor: actor(),
        conversation: { platform: "discord", channelId: "C-1" },
      });
      expect(text(week.lastEphemeral())).toContain(
        "The bot no longer knows this job (finished jobs are kept for 7 days). Run the command again.",
      );
      expect(week.emu.calls).toEqual([]);
    } finally {
      await week.close();
    }
  });
});
