import type { APIMessage } from "discord-api-types/v10";
import { PermissionFlagsBits } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, ended, shown } from "./harness.js";

/**
 * A slash command in a channel of a server that added the bot, where the bot itself may not
 * post (no View Channel, no Send Messages there): Discord still lets the command answer through
 * its interaction, and says so in `app_permissions`. The bot reads that, never tries the channel,
 * says at the command that the job answers through it and continues in the person's DM past 15
 * minutes, as where the bot is no member at all.
 */

let world: DiscordWorld;
discordWorldPerFile((started) => {
  world = started;
});

const working = (m: APIMessage) => /Working/.test(m.embeds[0]?.description ?? "");
const jobIdOf = (message: APIMessage) => /^Job (\S+)/.exec(message.embeds[0]?.footer?.text ?? "")?.[1];
/** Requests the bot made in the channel with its own token. */
const botTokenCalls = (channelId: string) =>
  world.fake.calls.filter((c) => c.path.startsWith(`/channels/${channelId}/`));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SAID =
  "The bot may not post in this channel itself (a server admin can give it View Channel, Send Messages and Embed Links here), so it answers through your command.";

/** A channel of the seeded server where the bot is denied `deny`. */
async function closedChannel(name: string, deny: bigint) {
  const channel = await world.fake.addChannel(name);
  await world.fake.overwritePermissions(channel.id, { id: world.fake.botUser.id, type: "member", deny });
  return channel;
}

describe("a command where the bot may not post", () => {
  it("says so at the command, answers through the interaction and tries nothing in the channel", async () => {
    const channel = await closedChannel("no-bot-view", PermissionFlagsBits.ViewChannel);
    const creations = world.creations("/api/image/generate").length;
    world.emu.planNextJob("image", { durationMs: 800 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox behind a door" },
      channelId: channel.id,
    });
    expect(BigInt(interaction.payload.app_permissions) & PermissionFlagsBits.ViewChannel).toBe(0n);

    const running = await world.jobMessage(interaction, working);
    expect(shown(running)).toContain(SAID);
    expect(shown(running)).toContain(
      "Discord lets the bot update this message for 15 minutes: if the job takes longer, it continues in your DM with the bot.",
    );
    const done = await world.jobMessage(interaction);
    await pause(300);

    expect(done.id).toBe(running.id);
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    // The job ran (the interaction can show it), once; no ready notice, no refused request.
    expect(world.creations("/api/image/generate")).toHaveLength(creations + 1);
    expect(botTokenCalls(channel.id)).toEqual([]);
    expect(world.fake.messages(channel.id).filter((m) => m.content.includes("is ready"))).toEqual([]);
    expect((await world.stores.jobs.get(jobIdOf(done)!))?.error).toBeNull();
  });

  it("past 15 minutes, continues in the person's DM, saying why, and never in the channel", async () => {
    const channel = await closedChannel("no-bot-posts", PermissionFlagsBits.SendMessages);
    const dm = world.fake.dmChannel(world.fake.users.requester.id);
    const inDm = world.fake.messages(dm).length;
    world.emu.planNextJob("image", { durationMs: 1_500 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox in a quiet room" },
      channelId: channel.id,
    });
    const running = await world.jobMessage(interaction, working);
    expect(shown(running)).toContain(SAID);
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1_000);

    const result = await world.until(() => world.fake.messages(dm)[inDm]);
    const done = await world.until(() => {
      const message = world.fake.message(result.id);
      return message && ended(message) ? message : undefined;
    });
    await pause(300);

    expect(shown(done)).toContain(
      `Your job from <#${channel.id}>: the bot may not post there and could answer only through your command, which Discord allows for 15 minutes, so it continues here.`,
    );
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(done.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
    expect(world.fake.messages(dm).slice(inDm)).toEqual([done]);
    expect(ended(world.fake.message(running.id)!)).toBe(false);
    expect(botTokenCalls(channel.id)).toEqual([]);
  });

  it("where it may post but not attach files, past 15 minutes shows the result's link instead, with no refused upload", async () => {
    const channel = await closedChannel("no-bot-files", PermissionFlagsBits.AttachFiles);
    world.emu.planNextJob("image", { durationMs: 1_500 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox without a frame" },
      channelId: channel.id,
    });
    const running = await world.jobMessage(interaction, working);
    // It may post there: no word about it at the command.
    expect(shown(running)).not.toContain(SAID);
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1_000);

    const done = await world.jobMessage(interaction);
    await pause(300);
    expect(done.attachments).toEqual([]);
    expect(shown(done)).toContain(
      "The bot may not attach files in this channel (a server admin can give it Attach Files here). It is not attached: use the download link instead (valid for about a day).",
    );
    expect(botTokenCalls(channel.id).filter((c) => c.status >= 400)).toEqual([]);
    expect(botTokenCalls(channel.id).filter((c) => c.files.length > 0)).toEqual([]);
  });
});
