import { describe, expect, it } from "vitest";
import type { EphemeralMessage, Message } from "../fakes/slack/index.js";
import { type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * Delete on a finished result through the real Bolt app: its requester (or an admin) confirms,
 * the bot's message goes with the files it shared into its thread (one chat.delete however often
 * it is clicked), and the job stays in /media jobs marked deleted; anyone else is refused. Where
 * Slack does not let the bot delete the message, the result is taken out of it.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

const DELETE = "delete_result";

const deleteOf = (message: Pick<Message, "blocks">) =>
  JSON.stringify(message.blocks).match(new RegExp(`"action_id":"(media:${DELETE}:[^":]+(?::sure)?)"`))?.[1];

const exists = (message: Message) => world.fake.messages().some((m) => m.ts === message.ts);

/** The private answers `user` got since `since`, once one shows `text`. */
const toldSince = (since: number, text: string, user = world.fake.users.requester.id) =>
  world.until(() =>
    world
      .ephemeralTexts(user)
      .slice(since)
      .find((t) => t.includes(text)),
  );

const chatDeletes = (message: Message) =>
  world.fake.calls.filter((c) => c.method === "chat.delete" && c.args.ts === message.ts);

const click = (actionId: string, ts: string, user = world.fake.users.requester.id) =>
  world.fake.blockAction(world.eventsUrl, { actionId, message: ts, user });

/** Clicks Delete on the result as `user`, and resolves with the question that answers. */
async function ask(message: Message, user = world.fake.users.requester.id): Promise<EphemeralMessage> {
  const before = world.fake.ephemerals().length;
  await click(deleteOf(message)!, message.ts, user);
  return world.until(() =>
    world.fake
      .ephemerals()
      .slice(before)
      .find((m) => m.user === user && shown(m).includes("cannot be brought back")),
  );
}

describe("Delete on a finished result on Slack", () => {
  it("the requester confirms: the message and the files in its thread are deleted, the question says so, and /media jobs shows it deleted", async () => {
    const result = await world.job("image generate a heron to delete");
    const files = world.replies(result.ts).flatMap((m) => m.files ?? []);
    expect(files.length).toBeGreaterThan(0);
    const question = await ask(result);
    const sure = deleteOf(question)!;
    expect(sure).toMatch(/:sure$/);
    await click(sure, question.message_ts);
    await world.until(() => !exists(result));
    expect(world.replies(result.ts)).toEqual([]);
    for (const file of files) expect(world.fake.file(file.id)).toBeUndefined();
    await world.until(() =>
      shown(world.fake.ephemerals().find((m) => m.message_ts === question.message_ts)!).includes(
        "its message is deleted",
      ),
    );
    expect(chatDeletes(result)).toHaveLength(1);
    expect(await world.answer("jobs")).toMatch(/a heron to delete[\s\S]*Done · deleted/);
  }, 30_000);

  it("someone else's click is refused, with who may; the message stays", async () => {
    const result = await world.job("image generate not theirs");
    const since = world.ephemeralTexts(world.fake.users.other.id).length;
    await click(deleteOf(result)!, result.ts, world.fake.users.other.id);
    const refusal = await toldSince(since, "or an admin can delete it", world.fake.users.other.id);
    expect(refusal).toContain(`<@${world.fake.users.requester.id}>, who asked for this result`);
    expect(exists(result)).toBe(true);
    expect(chatDeletes(result)).toHaveLength(0);
  }, 30_000);

  it("a double click on Delete it deletes once; the other click is told", async () => {
    const result = await world.job("image generate clicked twice");
    const question = await ask(result);
    const sure = deleteOf(question)!;
    const since = world.ephemeralTexts().length;
    await Promise.all([click(sure, question.message_ts), click(sure, question.message_ts)]);
    await world.until(() => !exists(result));
    await world.until(() =>
      world
        .ephemeralTexts()
        .slice(since)
        .some((t) => /being deleted|was deleted: its buttons no longer act/.test(t)),
    );
    expect(chatDeletes(result)).toHaveLength(1);
  }, 30_000);

  it("an admin deletes someone's result", async () => {
    const result = await world.job("image generate the admin removes it");
    const admin = world.fake.users.admin.id;
    const question = await ask(result, admin);
    await click(deleteOf(question)!, question.message_ts, admin);
    await world.until(() => !exists(result));
    expect(chatDeletes(result)).toHaveLength(1);
  }, 30_000);

  it("where Slack will not let the bot delete the message (cant_delete_message), the result is taken out of it", async () => {
    const result = await world.job("image generate kept by slack");
    const question = await ask(result);
    world.fake.fail({ method: "chat.delete", error: "cant_delete_message" });
    await click(deleteOf(question)!, question.message_ts);
    const emptied = await world.shows(result.ts, (m) => shown(m).includes("This result was deleted"));
    expect(deleteOf(emptied)).toBeUndefined();
    await world.until(() =>
      shown(world.fake.ephemerals().find((m) => m.message_ts === question.message_ts)!).includes(
        "the platform keeps its message",
      ),
    );
  }, 30_000);

  it("from /media jobs: its Delete asks, then deletes that job's message", async () => {
    const result = await world.job("image generate listed for deletion");
    const before = world.fake.ephemerals().length;
    await world.command("jobs");
    const list = await world.until(() =>
      world.fake
        .ephemerals()
        .slice(before)
        .find((m) => shown(m).includes("Your jobs")),
    );
    const button = (
      list.blocks as { type: string; elements?: { action_id: string; text: { text: string } }[] }[]
    )
      .flatMap((block) => (block.type === "actions" ? (block.elements ?? []) : []))
      .find((e) => e.text.text === "Delete: Image: listed for deletion")?.action_id;
    expect(button).toBeDefined();
    const asked = world.fake.ephemerals().length;
    await click(button!, list.message_ts);
    const question = await world.until(() =>
      world.fake
        .ephemerals()
        .slice(asked)
        .find((m) => shown(m).includes("cannot be brought back")),
    );
    await click(deleteOf(question)!, question.message_ts);
    await world.until(() => !exists(result));
    expect(chatDeletes(result)).toHaveLength(1);
  }, 30_000);

  it("a private result, in the person's DM with the bot, goes at the first click with its files", async () => {
    const since = world.ephemeralTexts().length;
    await world.command("image generate a secret heron --delivery private");
    const dm = await world.until(() => {
      const call = world.fake.calls.find(
        (c) => c.method === "chat.postMessage" && String(c.args.channel).startsWith("D"),
      );
      return call && String(call.args.channel);
    });
    const result = await world.until(() =>
      world.fake
        .messages(dm)
        .find((m) => !m.thread_ts && shown(m).includes("a secret heron") && deleteOf(m) !== undefined),
    );
    await world.until(() =>
      world.fake.messages(dm).some((m) => m.thread_ts === result.ts && m.files?.length),
    );
    await world.fake.blockAction(world.eventsUrl, {
      actionId: deleteOf(result)!,
      message: result.ts,
      channel: dm,
    });
    await world.until(() => !world.fake.messages(dm).some((m) => m.ts === result.ts));
    expect(world.fake.messages(dm).filter((m) => m.thread_ts === result.ts)).toEqual([]);
    expect(
      world
        .ephemeralTexts()
        .slice(since)
        .some((t) => t.includes("cannot be brought back")),
    ).toBe(false);
    expect(chatDeletes(result)).toHaveLength(1);
  }, 30_000);
});
