import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { isCard } from "../../../src/core/base/cards.js";
import { CHANNEL, type Harness, harnessPerFile, text } from "../bot/harness.js";
import { eventually } from "../fake-adapter.js";

/**
 * What a person sees when the platform says no for good, on any platform (the core's part of the
 * contract in core/base/ports.ts): a refused file becomes its link, once, with the platform's reason; a
 * conversation that refuses the bot mid-job sends the result to the person's DM, saying why; one
 * that refuses everything ends the job with the reason and the link, which /jobs shows. No refused
 * request is sent twice, and the result is fetched from the service once per delivery.
 */

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

/** The service's file downloads (results), as the emulator saw them. */
const downloads = () => h.emu.callsTo("GET", /^\/storage\/files\//);

const REFUSED =
  "The bot cannot see this channel. A server admin can give it the View Channel permission there.";
const NO_DMS = "The person does not accept direct messages from the bot.";

/** An image job that runs long enough for the test to change the platform under it. */
async function runningImage(prompt: string) {
  h.emu.planNextJob("image", { durationMs: 1_500 });
  const ref = await h.startJob("image.generate", { prompt });
  // The queued card comes before the job has its id; the first progress edit names it.
  const working = await h.shows(ref, (card) => card.footer !== undefined);
  return { ref, jobId: working.footer!.replace("Job ", "") };
}

const closed = (jobId: string) =>
  eventually(async () => {
    const job = await h.stores.jobs.get(jobId);
    return job?.delivery === "delivered" ? job : undefined;
  }, 8_000);

describe("a file the platform refuses", () => {
  it("becomes the result's link, posted once with the platform's reason, fetched once", async () => {
    // The platform says it takes 10 MiB (Discord: the requester's limit), but takes 100 bytes.
    h.chat.accepts = 100;
    const ref = await h.startJob("image.generate", { prompt: "a fox too big to post" });
    const done = await h.finished(ref);

    expect(done.tone).toBe("success");
    expect(text(done)).toContain(
      "The platform takes files of up to 100 bytes from the bot here. It is not attached: use the download link instead (valid for about a day).",
    );
    expect(done.links).toEqual([
      {
        label: "Download the image",
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/storage\/files\//),
      },
    ]);
    // The image still shows, from its link.
    expect(done.media).toEqual([expect.objectContaining({ kind: "image", url: done.links[0]!.url })]);
    expect(done.media.some((m) => m.file)).toBe(false);
    expect(h.chat.files()).toEqual([]);
    // The refused upload and the edit with the link: two edits carried the result, none again.
    expect(h.chat.history(ref).filter((m) => isCard(m) && m.tone === "success")).toHaveLength(1);
    expect(downloads()).toHaveLength(1);
    expect((await h.stores.jobs.get(done.footer!.replace("Job ", "")))?.error).toBeNull();
  });
});

describe("a conversation that refuses the bot while the job runs", () => {
  it("sends the result to the person's DM once, saying why, and nothing more to the channel", async () => {
    const { jobId } = await runningImage("a fox in a closed room");
    h.chat.refusals.set(CHANNEL.channelId, REFUSED);

    const job = await closed(jobId);
    await sleep(300);

    expect(job.error).toBeNull();
    const dm = h.chat.posts.filter((p) => p.target.privateFrom !== undefined);
    expect(dm).toHaveLength(1);
    expect(dm[0]!.target).toMatchObject({ privateFrom: CHANNEL.channelId, diverted: true });
    expect(dm[0]!.options).toMatchObject({ mentionUserId: "user-1", idempotencyKey: `${jobId}:ready` });
    const card = dm[0]!.message;
    if (!isCard(card)) throw new Error("the DM got text");
    expect(text(card)).toContain(
      `The bot could not show this where you asked for it. ${REFUSED} So it comes here, to your DM with the bot.`,
    );
    expect(card.tone).toBe("success");
    expect(dm[0]!.files).toHaveLength(1);
    // One refused request in the channel (a progress edit or the result), then nothing there.
    expect(h.chat.refused).toEqual([`edit ${CHANNEL.channelId}`]);
    expect(h.chat.posts.filter((p) => p.options.idempotencyKey === `${jobId}:ready`)).toEqual(dm);
    expect(downloads()).toHaveLength(1);
  });

  it("ends the job at once when the DM refuses too: /jobs shows both reasons and the result's link", async () => {
    const { jobId } = await runningImage("a fox nobody may see");
    h.chat.refusals.set(CHANNEL.channelId, REFUSED);
    h.chat.refusals.set("dm", NO_DMS);

    const job = await closed(jobId);
    await sleep(300);

    expect(job.error).toEqual({ code: "chat.undeliverable", message: `${REFUSED} ${NO_DMS}` });
    expect(h.chat.refused).toEqual([`edit ${CHANNEL.channelId}`, "post dm"]);

    await h.command("jobs", {}, { conversation: { ...CHANNEL, channelId: "channel-2" } });
    const jobs = h.lastEphemeral();
    expect(text(jobs)).toContain(`Done · not posted: ${REFUSED} ${NO_DMS} · started`);
    const entry = jobs.fields.find((f) => f.value.includes(`job ${jobId}`));
    expect(entry?.link).toEqual({
      label: "Download the result",
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/storage\/files\//),
    });
  });
});
