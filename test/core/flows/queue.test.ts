import { afterEach, describe, expect, it } from "vitest";
import { isCard } from "../../../src/core/base/cards.js";
import type { MessageRef } from "../../../src/core/base/ports.js";
import { CANCEL_QUEUED } from "../../../src/core/render/queue.js";
import { actor, admin, Harness, text } from "../bot/harness.js";
import { eventually } from "../fake-adapter.js";

/**
 * Jobs past a person's running limit wait their turn in the bot's queue: a message at once that
 * says where they stand, a start with its own creation call when a place frees, a Cancel that
 * costs nothing, and turns taken fairly across people.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The prompts of the image creation calls, in the order the service received them. */
const started = (harness: Harness) =>
  harness.creations("/api/image/generate").map((call) => (call.json as { prompt: string }).prompt);

const saysQueued = (harness: Harness, ref: MessageRef, ahead: number) =>
  harness.shows(ref, (card) => text(card).includes(`Queued: ${ahead} ahead of you`));

const started0 = (harness: Harness, ref: MessageRef) =>
  harness.shows(ref, (card) => !text(card).includes("ahead of you") && card.tone !== "info");

describe("the queue of a person's jobs", () => {
  it("five commands with a limit of three: three run, two wait showing their places, then start in order with one call each", async () => {
    h = await Harness.start({ jobLimit: 3 });
    h.emu.planNextJob("image", { durationMs: 1_500 });
    h.emu.planNextJob("image", { durationMs: 4_000 });
    h.emu.planNextJob("image", { durationMs: 4_000 });
    const refs: MessageRef[] = [];
    for (const prompt of ["p1", "p2", "p3", "p4", "p5"])
      refs.push(await h.startJob("image.generate", { prompt }));
    expect(started(h)).toEqual(["p1", "p2", "p3"]);
    await saysQueued(h, refs[3]!, 0);
    await saysQueued(h, refs[4]!, 1);
    expect(h.chat.card(refs[4]!).actions.map((a) => a.label)).toEqual(["Cancel"]);

    // The first ends: the fourth starts on its own message, the fifth moves up.
    await h.finished(refs[0]!);
    await eventually(() => started(h!).length === 4 || undefined);
    expect(started(h)).toEqual(["p1", "p2", "p3", "p4"]);
    await started0(h, refs[3]!);
    await saysQueued(h, refs[4]!, 0);

    for (const ref of refs) expect((await h.finished(ref, 20_000)).tone).toBe("success");
    expect(started(h)).toEqual(["p1", "p2", "p3", "p4", "p5"]);
  });

  it("the next job starts once its predecessor is done at the service, while that one's result is still being uploaded", async () => {
    h = await Harness.start({ jobLimit: 1 });
    h.emu.planNextJob("image", { durationMs: 500 });
    const first = await h.startJob("image.generate", { prompt: "first" });
    const second = await h.startJob("image.generate", { prompt: "second" });
    await saysQueued(h, second, 0);
    // The first's result is uploaded slowly: its edit waits until the test lets it through.
    let letThrough!: () => void;
    const upload = new Promise<void>((resolve) => {
      letThrough = resolve;
    });
    const edit = h.chat.edit.bind(h.chat);
    let uploading = false;
    h.chat.edit = async (ref, message) => {
      if (ref.messageId === first.messageId && isCard(message) && message.tone === "success") {
        uploading = true;
        await upload;
      }
      return edit(ref, message);
    };

    await eventually(() => started(h!).includes("second") || undefined, 10_000);
    expect(started(h)).toEqual(["first", "second"]);
    // Still being delivered: the first job's message does not show its result yet.
    expect(uploading).toBe(true);
    expect(h.chat.card(first).tone).not.toBe("success");

    letThrough();
    expect((await h.finished(first)).tone).toBe("success");
    expect((await h.finished(second)).tone).toBe("success");
    expect(started(h)).toEqual(["first", "second"]);
  });

  it("a cancel before the start makes no creation call and says so; a second click cancels nothing more", async () => {
    h = await Harness.start({ jobLimit: 1 });
    h.emu.planNextJob("image", { durationMs: 1_000 });
    const first = await h.startJob("image.generate", { prompt: "first" });
    const second = await h.startJob("image.generate", { prompt: "second" });
    const control = h.chat.card(second).actions.find((a) => a.action === CANCEL_QUEUED)!;
    await h.click(second, CANCEL_QUEUED);
    expect(text(h.chat.card(second))).toMatch(/Cancelled before it started: nothing was charged/);
    await h.bot.handleAction({
      action: CANCEL_QUEUED,
      jobId: control.jobId,
      actor: actor(),
      message: second,
      conversation: { platform: "discord", channelId: "channel-1" },
    });
    expect(h.chat.ephemerals().at(-1)?.message).toEqual({
      text: "This job was already cancelled: nothing was charged.",
    });

    await h.finished(first);
    // The place the first held goes to the next command, and the cancelled one never starts.
    await h.command("image.generate", { prompt: "third" });
    await eventually(() => started(h!).includes("third") || undefined);
    expect(started(h)).toEqual(["first", "third"]);
  });

  it("a cancel that comes after the start is told it had already started, and the job runs on", async () => {
    h = await Harness.start({ jobLimit: 1 });
    h.emu.planNextJob("image", { durationMs: 500 });
    const first = await h.startJob("image.generate", { prompt: "first" });
    const second = await h.startJob("image.generate", { prompt: "second" });
    const control = h.chat.card(second).actions.find((a) => a.action === CANCEL_QUEUED)!;
    await h.finished(first);
    await eventually(() => started(h!).includes("second") || undefined);
    await h.bot.handleAction({
      action: CANCEL_QUEUED,
      jobId: control.jobId,
      actor: actor(),
      message: second,
      conversation: { platform: "discord", channelId: "channel-1" },
    });
    expect(text(h.lastEphemeral())).toMatch(/It had already started: the job runs on/);
    expect((await h.finished(second)).tone).toBe("success");
    expect(started(h)).toEqual(["first", "second"]);
  });

  it("the jobs list shows the waiting jobs apart from the running ones, each with a Cancel that works from there", async () => {
    h = await Harness.start({ jobLimit: 1 });
    h.emu.planNextJob("image", { durationMs: 3_000 });
    await h.startJob("image.generate", { prompt: "first" });
    const second = await h.startJob("image.generate", { prompt: "second" });
    const third = await h.startJob("image.generate", { prompt: "third" });
    await h.command("jobs");
    const list = h.lastEphemeral();
    expect(list.lines[0]).toBe(
      "Waiting their turn (nothing is charged until one starts):\nImage: second · next to start\nImage: third · 1 job ahead",
    );
    expect(list.fields.map((f) => f.name)).toEqual(["Image: first"]);
    const cancel = list.actions.find((a) => a.label === "Cancel: Image: second")!;
    await h.bot.handleAction({
      action: cancel.action,
      jobId: cancel.jobId,
      actor: actor(),
      conversation: { platform: "discord", channelId: "channel-1" },
    });
    expect(text(h.chat.card(second))).toMatch(/Cancelled before it started/);
    await saysQueued(h, third, 0);
  });

  it("an admin sees everyone's waiting jobs in the jobs list with all, and cancels one from there", async () => {
    h = await Harness.start({ jobLimit: 1 });
    h.emu.planNextJob("image", { durationMs: 3_000 });
    await h.startJob("image.generate", { prompt: "first" });
    const second = await h.startJob("image.generate", { prompt: "second" });
    await h.command("jobs", { all: true }, { actor: admin() });
    const list = h.lastEphemeral();
    expect(text(list)).toContain("Waiting their turn (nothing is charged until one starts):");
    expect(list.footer).toMatch(/^1 running, 1 waiting\./);
    const cancel = list.actions.find((a) => a.label === "Cancel: Image: second")!;
    await h.bot.handleAction({
      action: cancel.action,
      jobId: cancel.jobId,
      actor: admin(),
      conversation: { platform: "discord", channelId: "channel-1" },
    });
    expect(text(h.chat.card(second))).toMatch(/Cancelled before it started/);
  });

  it("only the requester or an admin cancels a queued job", async () => {
    h = await Harness.start({ jobLimit: 1 });
    h.emu.planNextJob("image", { durationMs: 3_000 });
    await h.startJob("image.generate", { prompt: "first" });
    const second = await h.startJob("image.generate", { prompt: "second" });
    await h.click(second, CANCEL_QUEUED, undefined, actor({ userId: "user-2" }));
    expect(text(h.lastEphemeral())).toMatch(/Only the person who asked for this job, or an admin/);
    await saysQueued(h, second, 0);
    await h.click(second, CANCEL_QUEUED, undefined, admin());
    expect(text(h.chat.card(second))).toMatch(/Cancelled before it started/);
  });

  it("the tenant's running limit takes turns across people: one person's queue does not delay another's first job", async () => {
    h = await Harness.start({ jobLimit: 3 });
    await h.stores.tenants.update(
      { platform: "discord", tenantId: actor().tenantId },
      { tenantRunningLimit: 2 },
    );
    h.emu.planNextJob("image", { durationMs: 1_000 });
    h.emu.planNextJob("image", { durationMs: 6_000 });
    const ann = actor({ userId: "ann" });
    const bob = actor({ userId: "bob" });
    const anns: MessageRef[] = [];
    for (const prompt of ["a1", "a2", "a3", "a4"])
      anns.push(await h.startJob("image.generate", { prompt }, { actor: ann }));
    const bobs = await h.startJob("image.generate", { prompt: "b1" }, { actor: bob });
    expect(started(h)).toEqual(["a1", "a2"]);
    await saysQueued(h, bobs, 0);
    // Ann's first ends: Bob, with nothing running, goes before Ann's third though he asked later.
    await h.finished(anns[0]!);
    await eventually(() => started(h!).length === 3 || undefined);
    expect(started(h)).toEqual(["a1", "a2", "b1"]);
  });

  it("admins set the running limit and the queue's length in setup; past the queue a command is refused with the number", async () => {
    h = await Harness.start();
    await h.command("setup", { running_limit: 1, queue_length: 1 }, { actor: admin() });
    expect(text(h.lastEphemeral())).toMatch(/1 running per person, 1 more queued/);
    h.emu.planNextJob("image", { durationMs: 3_000 });
    await h.startJob("image.generate", { prompt: "one" });
    const two = await h.startJob("image.generate", { prompt: "two" });
    await saysQueued(h, two, 0);
    await h.command("image.generate", { prompt: "three" });
    expect(h.lastEphemeral().title).toBe("Your queue is full");
    expect(text(h.lastEphemeral())).toMatch(/1 jobs running and 1 waiting/);
    expect(started(h)).toEqual(["one"]);
  });

  it("a queued job whose start is refused when its turn comes ends with the reason, nothing charged", async () => {
    h = await Harness.start({ jobLimit: 1 });
    h.emu.planNextJob("image", { durationMs: 1_000 });
    const first = await h.startJob("image.generate", { prompt: "first" });
    const second = await h.startJob("image.generate", { prompt: "second" });
    // Meanwhile the channel is taken off the bot's list.
    await h.stores.tenants.update(
      { platform: "discord", tenantId: actor().tenantId },
      { allowedChannelIds: ["elsewhere"] },
    );
    await h.finished(first);
    const card = await h.shows(second, (c) => text(c).includes("Not started when its turn came"));
    expect(text(card)).toMatch(/Nothing was charged/);
    expect(started(h)).toEqual(["first"]);
  });
});
