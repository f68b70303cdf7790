import { describe, expect, it } from "vitest";
import { type Card, isCard } from "../../../src/core/base/cards.js";
import { until } from "../../main-process.js";
import { jobsSettled } from "../../settled.js";
import { actor, type Harness, harnessPerFile, png, text } from "../bot/harness.js";
import { eventually, isPng, type PostRecord } from "../fake-adapter.js";

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

/** Until every job is delivered on record and owned by no one: a second delivery would show by then. */
const settled = () =>
  until(
    () => jobsSettled(h.stores, [actor()]),
    15_000,
    () => "every job delivered and released",
  );

/** The channel post whose idempotency key ends with `suffix`, once it is there. */
const keyedPost = (suffix: string) =>
  eventually(() => h.chat.publicPosts().find((p) => p.options.idempotencyKey?.endsWith(suffix)));

function cardOf(post: PostRecord): Card {
  if (!isCard(post.message)) throw new Error(`a text post: ${post.message.text}`);
  return post.message;
}

describe("a job whose message cannot be posted", () => {
  it("is still recorded, the requester is told privately, and the result is posted once when ready", async () => {
    h.chat.failNext("post");
    await h.command("image.generate", { prompt: "a fox offline" });

    const notice = h.lastEphemeral();
    expect(notice).toMatchObject({ title: "Image: a fox offline", tone: "warning" });
    expect(notice.lines[0]).toMatch(/accepted this job, but the bot could not post its message/);
    expect(notice.lines.at(-1)).toBe("Running the command again would start, and pay for, a second job.");
    const footer = notice.footer;
    expect(footer).toMatch(/^Job [A-Za-z0-9_-]{12}$/);
    await h.command("jobs");
    expect(text(h.lastEphemeral())).toContain("Image: a fox offline");

    const delivered = await keyedPost(":ready");
    expect(cardOf(delivered)).toMatchObject({ title: "Image: a fox offline", tone: "success", footer });
    expect(delivered.options.mentionUserId).toBe("user-1");
    expect(isPng(delivered.files[0]!.bytes)).toBe(true);

    await settled();
    expect(h.chat.publicPosts()).toEqual([delivered]);
    expect(h.chat.edits).toHaveLength(0);
    expect(h.creations("/api/image/generate")).toHaveLength(1);
  });

  it("still delivers its result when the private notice cannot be sent either", async () => {
    h.chat.failNext("post", 2);
    await h.command("image.generate", { prompt: "a fox in the dark" });
    expect(h.chat.posts).toHaveLength(0);

    const delivered = await keyedPost(":ready");
    expect(cardOf(delivered)).toMatchObject({ title: "Image: a fox in the dark", tone: "success" });
    await settled();
    expect(h.chat.publicPosts()).toHaveLength(1);
    expect(h.creations("/api/image/generate")).toHaveLength(1);
  });

  it("posts the id of an avatar made from a selfie, which the service created at once", async () => {
    h.chat.failNext("post");
    await h.command("photo_avatar.selfie", { name: "Quick" }, { attachments: { photo: [png("me.png")] } });

    const delivered = await keyedPost(":ready");
    expect(cardOf(delivered)).toMatchObject({ title: "Photo avatar: Quick", tone: "success" });
    expect(cardOf(delivered).fields).toEqual([
      { name: "Avatar id", value: expect.any(String), inline: true },
    ]);
    await settled();
    expect(h.chat.publicPosts()).toEqual([delivered]);
    expect(h.creations("/api/avatar/from-selfie/create")).toHaveLength(1);
  });

  it("posts photo-avatar variants for the requester to choose, then the avatar, each once", async () => {
    h.chat.failNext("post");
    await h.command("photo_avatar.design", { name: "Nell", gender: "female", age: "30s", portrait: "yes" });

    const variants = await keyedPost(":choice");
    expect(variants.options.mentionUserId).toBe("user-1");
    expect(cardOf(variants).actions.map((a) => (a.type === "button" ? a.label : ""))).toEqual([
      "Keep 1",
      "Keep 2",
      "Keep both",
    ]);

    await h.click(variants.ref, "confirm", "2");
    const delivered = await keyedPost(":ready");
    expect(cardOf(delivered)).toMatchObject({ title: "Photo avatar: Nell", tone: "success" });
    expect(cardOf(delivered).fields).toEqual([
      { name: "Avatar id", value: expect.any(String), inline: true },
    ]);
    expect(delivered.options.mentionUserId).toBe("user-1");

    await settled();
    expect(h.chat.publicPosts()).toEqual([variants, delivered]);
    expect(h.creations("/api/avatar/design/create")).toHaveLength(1);
    expect(h.creations("/api/avatar/design/confirm")).toHaveLength(1);
  });
});

describe("a job whose message someone deleted", () => {
  it("posts the photo-avatar variants anew for the requester, then the avatar, each once", async () => {
    h.emu.planNextJob("photo_avatar", { durationMs: 600 });
    const ref = await h.startJob("photo_avatar.design", {
      name: "Gone",
      gender: "male",
      age: "40s",
      portrait: "yes",
    });
    h.chat.delete(ref);

    const variants = await keyedPost(":choice");
    expect(variants.options.mentionUserId).toBe("user-1");
    await h.click(variants.ref, "confirm", "1");
    const delivered = await keyedPost(":ready");
    expect(cardOf(delivered)).toMatchObject({ title: "Photo avatar: Gone", tone: "success" });

    await settled();
    expect(h.chat.publicPosts().slice(1)).toEqual([variants, delivered]);
    expect(h.creations("/api/avatar/design/confirm")).toHaveLength(1);
  });
});
