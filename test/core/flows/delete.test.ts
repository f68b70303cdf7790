import { afterEach, describe, expect, it } from "vitest";
import type { ActionEvent, MessageRef } from "../../../src/core/base/ports.js";
import { actor, CHANNEL, Harness, text } from "../bot/harness.js";

/**
 * Delete on a finished result, in the core: what it leaves behind (the job listed as deleted, its
 * follow-ups refused) and what a person is told when the platform will neither delete nor edit
 * the message (then nothing is marked).
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DELETE = "delete_result";

/** A click on the job's (possibly gone) message, as the platform would send it. */
const clickOn = (ref: MessageRef, jobId: string, action: string): ActionEvent => ({
  action,
  jobId,
  actor: actor(),
  message: ref,
  conversation: { ...CHANNEL, data: { clicked: ref.messageId } },
});

/** Clicks Delete, then Delete it on the question; resolves with the result's job id. */
async function deleteResult(harness: Harness, ref: MessageRef): Promise<string> {
  const jobId = harness.chat.card(ref).actions.find((a) => a.action === DELETE)!.jobId;
  await harness.click(ref, DELETE);
  const question = harness.chat.ephemerals().at(-1)!;
  expect(text(harness.lastEphemeral())).toContain("cannot be brought back");
  await harness.click(question.ref, DELETE, "sure");
  return jobId;
}

describe("Delete on a finished result", () => {
  it("a deleted result's follow-ups act no more, a second Delete is told so, and the job stays listed as deleted", async () => {
    h = await Harness.start();
    const ref = await h.startJob("image.generate", { prompt: "a fox" });
    await h.finished(ref);
    const jobId = await deleteResult(h, ref);
    expect(h.chat.removed.map((r) => r.messageId)).toEqual([ref.messageId]);
    expect(h.chat.current(ref)).toBeUndefined();
    expect((await h.stores.jobs.get(jobId))?.deleted?.by).toBe(actor().userId);

    for (const action of ["regenerate", DELETE]) {
      await h.bot.handleAction(clickOn(ref, jobId, action));
      expect(text(h.lastEphemeral())).toContain("This result was deleted: its buttons no longer act.");
    }
    expect(h.chat.removed).toHaveLength(1);
    expect(h.creations("/api/image/generate")).toHaveLength(1);

    await h.command("jobs", {});
    expect(text(h.lastEphemeral())).toMatch(/a fox.*: Done · deleted/);
  });

  it("a platform that will neither delete nor edit the message: the person is told why, and nothing is marked", async () => {
    h = await Harness.start();
    const ref = await h.startJob("image.generate", { prompt: "kept" });
    await h.finished(ref);
    h.chat.undeletable.add(ref.messageId);
    h.chat.failNext("edit");
    const jobId = await deleteResult(h, ref);
    const told = h.lastEphemeral();
    expect(told.title).toBe("Not deleted");
    expect(text(told)).toContain("The platform does not let the bot delete this message.");
    expect(h.chat.current(ref)).toBeDefined();
    expect((await h.stores.jobs.get(jobId))?.deleted).toBeUndefined();
  });
});
