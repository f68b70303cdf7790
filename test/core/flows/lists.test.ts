import { describe, expect, it } from "vitest";
import { pageValue } from "../../../src/core/render/lists.js";
import { actor, CHANNEL, type Harness, harnessPerFile, png, text } from "../bot/harness.js";
import { isMp4, isPng } from "../fake-adapter.js";

/**
 * A list's controls carry no identity: a page or Show is read again for whoever clicks, with the
 * checks of their own command. Lists are private on both platforms, so only the person who listed
 * can click; a click that still comes from someone else (forged) shows them their own list.
 */

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

const other = () => actor({ userId: "user-2" });

/** Runs a private list command and resolves with its message. */
async function list(command: string, options: Record<string, unknown> = {}) {
  const before = h.chat.posts.length;
  await h.command(command, options);
  const post = h.chat.posts.slice(before).find((p) => p.options.ephemeral);
  if (!post) throw new Error(`${command} posted no list`);
  return post.ref;
}

/** A click on a list's control, as `who`, whatever the message shows. */
function click(ref: { messageId: string }, action: string, subject: string, value: string, who = actor()) {
  return h.bot.handleAction({
    action,
    jobId: subject,
    value,
    actor: who,
    conversation: { ...CHANNEL, data: { clicked: ref.messageId } },
  });
}

describe("a list's controls", () => {
  it("page a requester's jobs for someone else as that person's own jobs", async () => {
    await h.finished(await h.startJob("image.generate", { prompt: "a fox" }));
    const jobs = await list("jobs");
    expect(text(h.chat.card(jobs))).toContain("Image: a fox");

    await click(jobs, "page", "jobs", pageValue({ page: 1 }), other());
    expect(text(h.chat.card(jobs))).toContain("You have no jobs yet.");
    expect(text(h.chat.card(jobs))).not.toContain("a fox");
  });

  it("refuse everyone's jobs to a member who is not an admin, leaving the list as it was", async () => {
    const jobs = await list("jobs");
    const before = text(h.chat.card(jobs));
    await click(jobs, "page", "jobs_all", pageValue({ page: 2 }));
    expect(text(h.lastEphemeral())).toContain("Only admins can see everyone's jobs.");
    expect(text(h.chat.card(jobs))).toBe(before);
  });

  it("keep the search of the page they came from", async () => {
    const voices = await list("voices", { search: "a" });
    await click(voices, "page", "voices", pageValue({ page: 1, search: "mia" }));
    const shown = text(h.chat.card(voices));
    expect(shown).toContain("Mia");
    expect(shown).not.toContain("Noah");
  });

  it("answer an unreadable or unknown control with 'run the command again'", async () => {
    const voices = await list("voices");
    await click(voices, "page", "voices", "not-a-page");
    expect(text(h.lastEphemeral())).toContain("older version of the bot");
    await click(voices, "page", "playlists", "1");
    expect(text(h.lastEphemeral())).toContain("older version of the bot");
  });

  it("Show posts a mockup's image (a path the service serves with the key) and a video, privately", async () => {
    await h.finished(
      await h.startJob(
        "mockup.generate",
        { instruction: "logo on a mug" },
        { attachments: { product: [png()] } },
      ),
    );
    const mockups = await list("mockup.list");
    const show = h.chat.card(mockups).actions.find((a) => a.action === "show")!;
    await h.click(mockups, "show", show.value);
    const image = h.chat.ephemerals().at(-1)!;
    expect(text(h.lastEphemeral())).toContain("logo on a mug");
    expect(isPng(image.files[0]!.bytes)).toBe(true);
    expect(h.emu.callsTo("GET", /^\/api\/media\/[^/]+\/view$/).at(-1)?.apiKey).toBe("test-key");

    await h.finished(await h.startJob("video.cinematic", { prompt: "a drone shot" }));
    const videos = await list("video.list");
    const clip = h.chat.card(videos).actions.find((a) => a.action === "show")!;
    await h.click(videos, "show", clip.value);
    const video = h.chat.ephemerals().at(-1)!;
    expect(isMp4(video.files[0]!.bytes)).toBe(true);
  });
});
