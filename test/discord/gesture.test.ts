import { Events, type Interaction } from "discord.js";
import { describe, expect, it } from "vitest";
import { type Gesture, gestureOf } from "../../src/discord/gesture.js";
import type { InjectedInteraction } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile } from "./harness.js";

/**
 * The Discord gesture reader over what Discord sends: the fake Discord's interactions, built by
 * the real discord.js client as the bot gets them, over the gateway and over POST
 * /discord/interactions alike. Each yields who acts and in which tenant, where, the message acted
 * on, the person's lane, and the reply through the interaction's own token.
 */

describe.each(["gateway", "http"] as const)("the gesture of an interaction over the %s", (path) => {
  let world: DiscordWorld;
  const got = new Map<string, Interaction>();
  discordWorldPerFile(
    (started) => {
      world = started;
      // Beside the bot's own listener: the Interaction discord.js built, whichever way it came.
      started.discord.client.on(Events.InteractionCreate, (interaction) =>
        got.set(interaction.id, interaction),
      );
    },
    { globalCommands: true, interactions: path },
  );

  /** The gesture the bot read of an interaction the fake sent. */
  async function gestureFor(sent: InjectedInteraction): Promise<Gesture> {
    const interaction = await world.until(() => got.get(sent.id));
    return gestureOf(interaction, world.discord.adapter);
  }

  it("a command in a server that added the bot: the server is the tenant, the member acts in their lane", async () => {
    const { fake } = world;
    const sent = await world.command({ name: "help" });
    const gesture = await gestureFor(sent);
    expect(gesture.actor).toEqual({
      platform: "discord",
      tenantId: fake.guild.id,
      userId: fake.users.requester.id,
      isAdmin: false,
      roleIds: [],
      // The language of the person's client, and the server's.
      locale: "en-US",
      placeLocale: "en-US",
    });
    expect(gesture.channelId).toBe(fake.channel.id);
    expect(gesture.message).toBeUndefined();
    expect(gesture.lane).toBe(`discord:${fake.guild.id}:${fake.users.requester.id}`);
    // The reply goes through the interaction's own token, recorded with its age.
    expect(gesture.reply("update")).toMatchObject({
      platform: "discord",
      channelId: fake.channel.id,
      data: {
        interactionId: sent.id,
        user: fake.users.requester.id,
        deferral: "update",
        guild: fake.guild.id,
      },
      live: { token: sent.token },
    });
  });

  it("an admin's command: Manage Guild makes them the server's admin, with their roles", async () => {
    const { fake } = world;
    const gesture = await gestureFor(await world.command({ name: "help", user: fake.users.admin }));
    expect(gesture.actor).toMatchObject({
      tenantId: fake.guild.id,
      userId: fake.users.admin.id,
      isAdmin: true,
      roleIds: [fake.roles.admin.id],
    });
  });

  it("a command in the DM with the bot: the person is their own tenant and its admin", async () => {
    const { fake } = world;
    const user = fake.users.other.id;
    const gesture = await gestureFor(await world.command({ name: "help", guild: false, user }));
    expect(gesture.actor).toEqual({
      platform: "discord",
      tenantId: user,
      userId: user,
      isAdmin: true,
      roleIds: [],
      locale: "en-US",
    });
    expect(gesture.channelId).toBe(fake.dmChannel(user));
    expect(gesture.lane).toBe(`discord::${user}`);
  });

  it("a command in a server without the bot (a user install): the person's tenant, answered only through the token", async () => {
    const { fake } = world;
    const { guild, channel } = await fake.addGuild(`No bot ${path}`, { bot: false });
    fake.installForUser(fake.users.requester);
    const sent = await world.command({ name: "help", channelId: channel.id });
    const gesture = await gestureFor(sent);
    expect(gesture.actor).toMatchObject({ tenantId: fake.users.requester.id, isAdmin: true });
    expect(gesture.channelId).toBe(channel.id);
    expect(gesture.lane).toBe(`discord:${guild.id}:${fake.users.requester.id}`);
    expect(gesture.reply("update")).toMatchObject({ live: { token: sent.token }, gestureOnly: true });
  });

  it("a click on a job's message: the message it was made on", async () => {
    const { fake } = world;
    const job = await world.jobMessage(
      await world.command({ name: "image", subcommand: "generate", options: { prompt: `a kite ${path}` } }),
    );
    const click = await fake.clickButton(job, world.controlId(job, "regenerate"), fake.users.other);
    const gesture = await gestureFor(click);
    expect(gesture.message).toEqual({ platform: "discord", channelId: job.channel_id, messageId: job.id });
    expect(gesture.actor.userId).toBe(fake.users.other.id);
    expect(gesture.channelId).toBe(job.channel_id);
  });
});
