import { describe, expect, it } from "vitest";
import { actor, admin, type Harness, harnessPerFile, png, text } from "../bot/harness.js";

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

const variantsShown = (card: { actions: unknown[] }) => card.actions.length === 3;

async function designed(name = "Nora") {
  const ref = await h.startJob("photo_avatar.design", {
    name,
    gender: "female",
    age: "30s",
    portrait: "yes",
  });
  const card = await h.shows(ref, variantsShown);
  return { ref, card };
}

const confirmCalls = () => [
  ...h.creations("/api/avatar/design/confirm"),
  ...h.creations("/api/avatar/design/confirm-both"),
];

describe("photo_avatar.design", () => {
  it("shows both previews with Keep 1 / Keep 2 / Keep both, then the two new avatars without buttons", async () => {
    const { ref, card } = await designed();
    expect(card.title).toBe("Photo avatar: Nora");
    expect(card.media.map((m) => m.kind)).toEqual(["image", "image"]);
    expect(card.media.every((m) => m.url?.startsWith("http"))).toBe(true);
    expect(card.actions.map((a) => (a.type === "button" ? a.label : ""))).toEqual([
      "Keep 1",
      "Keep 2",
      "Keep both",
    ]);
    expect(h.creations("/api/avatar/design/create")[0]?.json).toMatchObject({
      name: "Nora",
      design: { gender: "female", age: "30s", isPortrait: true },
    });

    await h.click(ref, "confirm_both");
    const result = await h.finished(ref);
    expect(result.tone).toBe("success");
    // No Keep buttons left: only the follow-up, a video with each new avatar, and Delete.
    expect(result.actions.map((a) => a.action)).toEqual(["avatar_video", "avatar_video", "delete_result"]);
    const ids = result.fields.map((f) => f.value);
    expect(ids).toHaveLength(2);
    expect(result.fields.map((f) => f.name)).toEqual(["Avatar 1 id", "Avatar 2 id"]);
    expect(h.creations("/api/avatar/design/confirm-both")).toHaveLength(1);

    // The new avatars are usable right away: they are picked from the refreshed list.
    await h.command("avatars", { search: "Nora" });
    expect(text(h.lastEphemeral())).toContain(ids[0]);
  });

  it("Keep 1 creates one avatar", async () => {
    const { ref } = await designed("Omar");
    await h.click(ref, "confirm", "1");
    const result = await h.finished(ref);
    expect(result.fields).toEqual([{ name: "Avatar id", value: expect.any(String), inline: true }]);
    expect(h.creations("/api/avatar/design/confirm")[0]?.json).toEqual({
      jobId: expect.any(String),
      variant: 1,
    });
  });

  it("a double click on Keep both confirms once; the second click is told why", async () => {
    const { ref } = await designed();
    await Promise.all([h.click(ref, "confirm_both"), h.click(ref, "confirm_both")]);
    await h.finished(ref);
    expect(confirmCalls()).toHaveLength(1);
    expect(h.chat.ephemerals()).toHaveLength(1);
    expect(text(h.lastEphemeral())).toMatch(/already being made|already kept/);
  });

  it("Keep 1 and Keep both at the same moment: exactly one confirm call", async () => {
    const { ref } = await designed();
    await Promise.all([h.click(ref, "confirm", "1"), h.click(ref, "confirm_both")]);
    await h.finished(ref);
    expect(confirmCalls()).toHaveLength(1);
    expect(h.chat.ephemerals()).toHaveLength(1);
  });

  it("a confirm the service fails is not retried; the buttons come back for another try", async () => {
    const { ref } = await designed();
    h.emu.inject({ method: "POST", path: "/api/avatar/design/confirm-both", status: 500 });
    await h.click(ref, "confirm_both");
    expect(h.lastEphemeral().title).toBe("The media service is having trouble");
    expect(h.creations("/api/avatar/design/confirm-both")).toHaveLength(1);
    await h.shows(ref, variantsShown);

    await h.click(ref, "confirm_both");
    expect((await h.finished(ref)).fields).toHaveLength(2);
    expect(h.creations("/api/avatar/design/confirm-both")).toHaveLength(2);
  });

  it("a click on a finished choice says so instead of doing nothing", async () => {
    const { ref, card } = await designed();
    await h.click(ref, "confirm", "2");
    await h.finished(ref);
    const jobId = card.actions[0]!.jobId;
    await h.bot.handleAction({
      action: "confirm",
      jobId,
      value: "1",
      actor: actor(),
      message: ref,
      conversation: { platform: "discord", channelId: "channel-1" },
    });
    expect(text(h.lastEphemeral())).toMatch(/A variant was already kept for this job/);
    expect(confirmCalls()).toHaveLength(1);
  });

  it("only the requester or an admin may choose", async () => {
    const { ref } = await designed();
    await h.click(ref, "confirm", "1", actor({ userId: "someone-else" }));
    expect(h.lastEphemeral()).toMatchObject({ title: "Not allowed" });
    expect(h.lastEphemeral().lines[0]).toEqual([
      "Only ",
      { userId: "user-1" },
      ", who started this job, or an admin can use its buttons.",
    ]);
    expect(confirmCalls()).toHaveLength(0);

    await h.click(ref, "confirm", "1", admin());
    expect((await h.finished(ref)).tone).toBe("success");
    expect(confirmCalls()).toHaveLength(1);
  });

  it("someone setup names as an admin may choose for others too", async () => {
    const { ref } = await designed();
    await h.command("setup", { admins: "<@helper-7>" }, { actor: admin() });
    await h.click(ref, "confirm", "2", actor({ userId: "helper-7" }));
    expect((await h.finished(ref)).tone).toBe("success");
    expect(confirmCalls()).toHaveLength(1);
  });
});

describe("photo_avatar.selfie", () => {
  it("creates the avatar at once when no prompt is given (no polling)", async () => {
    // A read of an earlier test's job may still land (one in flight when its result came by the
    // confirm's own path): only a job this test made counts.
    const polled = () => new Set(h.emu.callsTo("GET", /\/api\/avatar\/jobs\//).map((c) => c.path));
    const earlier = polled();
    const ref = await h.startJob(
      "photo_avatar.selfie",
      { name: "Me" },
      { attachments: { photo: [png("me.png")] } },
    );
    const card = await h.finished(ref);
    expect(card).toMatchObject({ title: "Photo avatar: Me", tone: "success" });
    expect(card.fields[0]).toMatchObject({ name: "Avatar id" });
    expect(h.creations("/api/avatar/from-selfie/create")).toHaveLength(1);
    expect([...polled()].filter((path) => !earlier.has(path))).toEqual([]);
  });

  it("runs the enhance job when a prompt is given", async () => {
    const ref = await h.startJob(
      "photo_avatar.selfie",
      { name: "Me in oil", prompt: "as an oil painting" },
      { attachments: { photo: [png("me.png")] } },
    );
    const result = await h.finished(ref);
    expect(result.fields[0]).toMatchObject({ name: "Avatar id" });
    expect(h.creations("/api/avatar/from-selfie/enhance")[0]?.json).toMatchObject({
      prompt: "as an oil painting",
      name: "Me in oil",
    });
  });
});
