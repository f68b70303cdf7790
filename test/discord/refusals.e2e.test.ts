import { PermissionFlagsBits } from "discord-api-types/v10";
import { describe, expect, it, vi } from "vitest";
import { type RestCall, TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * When Discord no longer takes what a job has to show: the job's first message lost to an outage
 * (the requester is told privately, the result arrives as a new message), the job's message
 * deleted by a user (the result then arrives as a new message), and the channel deleted or hidden
 * from the bot (the result goes to the requester's DM, saying why, and the channel is tried no more).
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

const working = (m: { embeds: { description?: string }[] }) => /Working/.test(m.embeds[0]?.description ?? "");
const DONE_COLOUR = 0x57f287;
const MESSAGE_ROUTES = ["/channels/:channel_id/messages", "/channels/:channel_id/messages/:message_id"];

/** Every REST call the bot made on a channel's messages with its bot token. */
const channelCalls = (channelId: string) =>
  world.fake.calls.filter((c) => MESSAGE_ROUTES.includes(c.route) && c.params.channel_id === channelId);

/** Calls that carried the finished job's card: one per delivery attempt. */
const deliveries = (calls: RestCall[]) =>
  calls.filter((c) => (c.json as { embeds?: { color?: number }[] })?.embeds?.[0]?.color === DONE_COLOUR);

const jobIdOf = (message: { embeds: { footer?: { text: string } }[] }) =>
  /^Job (\S+)$/.exec(message.embeds[0]?.footer?.text ?? "")?.[1];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An image job running in a channel of its own, past its interaction token's life: from now on the bot edits and posts there with its own token. */
async function longJobIn(channelName: string, prompt: string) {
  const channel = await world.fake.addChannel(channelName);
  world.emu.planNextJob("image", { durationMs: 800 });
  const interaction = await world.command({
    name: "image",
    subcommand: "generate",
    options: { prompt },
    channelId: channel.id,
  });
  const running = await world.jobMessage(interaction, working);
  world.fake.clock.advance(TOKEN_LIFETIME_MS + 1000);
  return { channel, running, jobId: jobIdOf(running)! };
}

/** Until the job is finished for good: delivered, or closed as not posted. */
async function deliveredOrClosed(jobId: string): Promise<void> {
  await vi.waitFor(
    async () =>
      expect(await world.stores.jobs.get(jobId)).toMatchObject({ state: "done", delivery: "delivered" }),
    { timeout: 8_000, interval: 20 },
  );
}

describe("a job whose first message Discord failed to post", () => {
  it("clears the thinking placeholder, tells the requester privately that the job runs, and posts the result once", async () => {
    world.emu.planNextJob("image", { durationMs: 400 });
    const creations = world.creations("/api/image/generate").length;
    // The outage outlasts discord.js's retries of the queued card's edit of the deferred reply.
    const original = /^\/webhooks\/\d+\/[^/]+\/messages\/@original$/;
    world.fake.fail({ method: "PATCH", path: original, status: 500, times: 4 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "an unposted fox" },
    });

    const notice = await world.answer(interaction);
    expect(isEphemeral(notice)).toBe(true);
    expect(world.fake.followups(interaction.id)).toEqual([notice]);
    expect(notice.embeds[0]?.title).toBe("Image: an unposted fox");
    expect(shown(notice)).toContain(
      "The media service accepted this job, but the bot could not post its message",
    );
    const jobId = jobIdOf(notice);
    expect(jobId).toBeDefined();
    // The public "is thinking…" reply is gone rather than left spinning until Discord gives up on it.
    expect(world.fake.callbacks(interaction.id).map((c) => c.type)).toEqual([5]);
    expect(world.fake.original(interaction.id)).toBeUndefined();
    const webhookCalls = world.fake.calls.filter((c) => c.params.webhook_token === interaction.token);
    expect(webhookCalls.map((c) => `${c.method} ${c.status}`)).toEqual([
      ...Array(4).fill("PATCH 500"),
      "DELETE 204",
      "POST 200",
    ]);

    const result = await world.until(() =>
      world.fake.messages().find((m) => m.embeds[0]?.color === DONE_COLOUR && jobIdOf(m) === jobId),
    );
    await pause(300);
    expect(isEphemeral(result)).toBe(false);
    expect(result.embeds[0]?.title).toBe("Image: an unposted fox");
    expect(result.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(result.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
    expect(world.fake.messages().filter((m) => jobIdOf(m) === jobId)).toEqual([notice, result]);
    const posts = world.fake.calls.filter(
      (c) => c.method === "POST" && c.route === MESSAGE_ROUTES[0] && JSON.stringify(c.json).includes(jobId!),
    );
    expect(posts).toMatchObject([{ status: 200 }]);
    // Nothing more through the interaction: the job has no message there to edit.
    expect(world.fake.calls.filter((c) => c.params.webhook_token === interaction.token)).toHaveLength(6);
    expect(world.creations("/api/image/generate")).toHaveLength(creations + 1);
  });
});

describe("a job whose message was deleted while it ran", () => {
  it("posts the result as a new message that mentions the requester, once", async () => {
    world.emu.planNextJob("image", { durationMs: 600 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a deleted fox" },
    });
    const running = await world.jobMessage(interaction, working);
    const jobId = jobIdOf(running);
    world.fake.deleteMessage(running.id);

    const result = await world.until(() =>
      world.fake.messages().find((m) => m.embeds[0]?.color === DONE_COLOUR && jobIdOf(m) === jobId),
    );
    await pause(300);

    expect(result.id).not.toBe(running.id);
    expect(result.embeds[0]?.title).toBe("Image: a deleted fox");
    expect(result.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(result.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
    // The card itself is the announcement: no separate "ready" notice, and one post however the
    // nonce would have folded repeated ones.
    expect(world.fake.messages().filter((m) => jobIdOf(m) === jobId)).toEqual([result]);
    expect(world.notices().filter((m) => m.content.includes("a deleted fox is ready"))).toEqual([]);
    const posts = world.fake.calls.filter(
      (c) => c.method === "POST" && c.route === MESSAGE_ROUTES[0] && JSON.stringify(c.json).includes(jobId!),
    );
    expect(posts).toMatchObject([{ status: 200 }]);
    const lastEdit = world.fake.calls.findLast(
      (c) => c.method === "PATCH" && c.params.message_id === running.id,
    );
    expect(lastEdit).toMatchObject({ status: 404, code: 10008 });
    expect(world.fake.message(running.id)).toBeUndefined();
  });
});

describe("a long job whose channel stops taking the bot's messages", () => {
  it.each([
    {
      what: "the bot loses View Channel",
      cut: (channelId: string) =>
        world.fake.overwritePermissions(channelId, {
          id: world.fake.botUser.id,
          type: "member",
          deny: PermissionFlagsBits.ViewChannel,
        }),
      answer: { status: 403, code: 50001, message: "Missing Access" },
      reason:
        "The bot cannot see this channel. A server admin can give it the View Channel permission there.",
    },
    {
      what: "the channel is deleted",
      cut: (channelId: string) => world.fake.deleteChannel(channelId),
      answer: { status: 404, code: 10003, message: "Unknown Channel" },
      reason: "This channel no longer exists.",
    },
  ])(
    "sends the result to the requester's DM once when $what, saying why, and tries the channel no more",
    async ({ cut, answer, reason }) => {
      const dm = world.fake.dmChannel(world.fake.users.requester.id);
      const inDm = world.fake.messages(dm).length;
      const { channel, jobId } = await longJobIn("renders", "an unseen fox");
      await cut(channel.id);
      await deliveredOrClosed(jobId);
      const settled = channelCalls(channel.id).length;
      await pause(400);

      // One refused request there (a progress edit or the result), never repeated.
      const refused = channelCalls(channel.id).filter((c) => c.status >= 400);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ status: answer.status, code: answer.code });
      expect(refused[0]!.response).toEqual({ message: answer.message, code: answer.code });
      expect(channelCalls(channel.id)).toHaveLength(settled);

      const result = world.fake.messages(dm).slice(inDm);
      expect(result).toHaveLength(1);
      expect(jobIdOf(result[0]!)).toBe(jobId);
      expect(result[0]!.embeds[0]?.color).toBe(DONE_COLOUR);
      expect(result[0]!.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
      expect(result[0]!.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
      expect(shown(result[0]!)).toContain(
        `The bot could not show this where you asked for it. ${reason} So it comes here, to your DM with the bot.`,
      );
      expect((await world.stores.jobs.get(jobId))?.error).toBeNull();
    },
  );
});

describe("a long job whose message is deleted where the bot may no longer post", () => {
  it("sends the result to the requester's DM after one refused post (50013), saying why", async () => {
    const dm = world.fake.dmChannel(world.fake.users.requester.id);
    const inDm = world.fake.messages(dm).length;
    const { channel, running, jobId } = await longJobIn("muted", "a fox without a voice");
    await world.fake.overwritePermissions(channel.id, {
      id: world.fake.botUser.id,
      type: "member",
      deny: PermissionFlagsBits.SendMessages,
    });
    world.fake.deleteMessage(running.id);
    await deliveredOrClosed(jobId);
    await pause(400);

    const posts = channelCalls(channel.id).filter((c) => c.method === "POST");
    expect(posts).toMatchObject([{ status: 403, code: 50013 }]);
    const result = world.fake.messages(dm).slice(inDm);
    expect(result.map(jobIdOf)).toEqual([jobId]);
    expect(shown(result[0]!)).toContain(
      "The bot could not show this where you asked for it. The bot may not post in this channel. A server admin can give it Send Messages, Embed Links and Attach Files there. So it comes here, to your DM with the bot.",
    );
    expect(result[0]!.attachments).toHaveLength(1);
  });
});

describe("a long job that neither its channel nor the requester's DM takes", () => {
  it("ends at once, not posted: /jobs says both reasons and links the result; nothing is sent twice", async () => {
    const dm = world.fake.dmChannel(world.fake.users.requester.id);
    const { channel, jobId } = await longJobIn("closed", "a fox nobody sees");
    await world.fake.overwritePermissions(channel.id, {
      id: world.fake.botUser.id,
      type: "member",
      deny: PermissionFlagsBits.ViewChannel,
    });
    world.fake.fail({
      method: "POST",
      path: new RegExp(`^/channels/${dm}/messages$`),
      status: 403,
      code: 50007,
      message: "Cannot send messages to this user",
    });
    await deliveredOrClosed(jobId);
    const settled = world.fake.calls.length;
    await pause(400);

    expect(channelCalls(channel.id).filter((c) => c.status >= 400)).toHaveLength(1);
    expect(
      world.fake.calls.filter((c) => c.path === `/channels/${dm}/messages` && c.code === 50007),
    ).toHaveLength(1);
    expect(world.fake.calls.slice(settled)).toEqual([]);

    const jobs = shown(await world.run({ name: "jobs" })).replace(/\\(.)/g, "$1");
    const line = jobs.split("\n").find((l) => l.includes(`job ${jobId}`));
    expect(line).toContain(
      "not posted: The bot cannot see this channel. A server admin can give it the View Channel permission there. Discord refused a direct message from the bot to you",
    );
    expect(line).toMatch(/\[Download the result\]\(http:\/\/127\.0\.0\.1:\d+\/storage\/files\//);
  });
});

describe("a long job whose channel only stops taking new posts", () => {
  it("shows the result in its message all the same, once, and counts as delivered", async () => {
    const { channel, running, jobId } = await longJobIn("read-only", "a quiet fox");
    // Editing its own message needs no Send Messages; the "ready" notice does.
    await world.fake.overwritePermissions(channel.id, {
      id: world.fake.botUser.id,
      type: "member",
      deny: PermissionFlagsBits.SendMessages,
    });

    await deliveredOrClosed(jobId);
    await pause(400);

    expect(world.fake.message(running.id)?.embeds[0]?.color).toBe(DONE_COLOUR);
    // One edit carried the result: the refused notice did not send the image again.
    expect(deliveries(channelCalls(channel.id))).toMatchObject([{ method: "PATCH", status: 200 }]);
    expect(channelCalls(channel.id).filter((c) => c.method === "POST")).toMatchObject([
      { status: 403, code: 50013 },
    ]);
    expect((await world.stores.jobs.get(jobId))?.error).toBeNull();
  });
});
