import { once } from "node:events";
import {
  type ChatInputCommandInteraction,
  type Client,
  DiscordAPIError,
  Events,
  PermissionFlagsBits,
  Routes,
} from "discord.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loginClient } from "./client.js";
import {
  type FakeDiscord,
  type InjectedInteraction,
  startFakeDiscord,
  TOKEN_LIFETIME_MS,
  UPLOAD_LIMITS,
} from "./index.js";

/**
 * Who may upload how much, as Discord documents it
 * (https://discord.com/developers/docs/reference#uploading-files): 10 MiB per file by default; more
 * for a person with Nitro or in a boosted server. The bot has no Nitro: its own uploads (channel
 * messages, DMs, edits with the bot token) take the server's boost limit at most, while an
 * interaction's `attachment_size_limit`, the larger of the requester's and the server's, holds for
 * uploads through the interaction's token. Over the limit: 413 with code 40005. Also what the bot
 * may do in a channel, as `app_permissions` tells and the channel routes enforce (50001, 50013).
 */

const MiB = 1024 * 1024;
let fake: FakeDiscord;
let bot: Client<true>;

beforeEach(async () => {
  fake = await startFakeDiscord();
  bot = await loginClient(fake);
  await bot.application.commands.set([{ name: "usage", description: "Credits" }], fake.guild.id);
  await bot.application.commands.set([
    { name: "usage", description: "Credits", integration_types: [0, 1], contexts: [0, 1, 2] },
  ]);
});

afterEach(async () => {
  await bot.destroy();
  await fake.close();
  fake.assertNoValidationErrors();
});

async function receive(inject: () => Promise<InjectedInteraction>): Promise<ChatInputCommandInteraction> {
  const arrived = once(bot, Events.InteractionCreate) as Promise<[ChatInputCommandInteraction]>;
  const injected = await inject();
  const [interaction] = await arrived;
  expect(interaction.id).toBe(injected.id);
  return interaction;
}

const file = (bytes: number, name = "result.mp4") => ({ name, data: Buffer.alloc(bytes, 1) });
const refusal = (error: unknown) => {
  expect(error).toBeInstanceOf(DiscordAPIError);
  return { status: (error as DiscordAPIError).status, code: (error as DiscordAPIError).code };
};

describe("upload limits by uploader", () => {
  it("gives the bot 10 MiB in a server without boosts, whatever the requester's Nitro: 413 / 40005 above", async () => {
    fake.setNitro(fake.users.requester, "nitro");
    const posted = await bot.rest.post(Routes.channelMessages(fake.channel.id), {
      files: [file(10 * MiB)],
    });
    expect(posted).toMatchObject({ attachments: [{ size: 10 * MiB }] });

    const error = await bot.rest
      .post(Routes.channelMessages(fake.channel.id), { files: [file(10 * MiB + 1)] })
      .catch((e: unknown) => e);
    expect(refusal(error)).toEqual({ status: 413, code: 40005 });
    expect(fake.calls.at(-1)).toMatchObject({ status: 413, code: 40005, files: [{ size: 10 * MiB + 1 }] });
    expect(fake.messages()).toHaveLength(1);
  });

  it("lets a Nitro requester's interaction take a bigger file through its token, and not the bot token past 15 minutes", async () => {
    fake.setNitro(fake.users.requester, "nitro");
    const command = await receive(() => fake.sendCommand({ name: "usage" }));
    expect(command.attachmentSizeLimit).toBe(UPLOAD_LIMITS.nitro);
    await command.deferReply();
    const big = file(12 * MiB);
    await command.editReply({ files: [{ attachment: big.data, name: big.name }] });
    const message = fake.original(command.id)!;
    expect(message.attachments.map((a) => a.size)).toEqual([12 * MiB]);

    fake.clock.advance(TOKEN_LIFETIME_MS + 1_000);
    const error = await bot.rest
      .patch(Routes.channelMessage(fake.channel.id, message.id), { files: [file(11 * MiB, "again.mp4")] })
      .catch((e: unknown) => e);
    expect(refusal(error)).toEqual({ status: 413, code: 40005 });
    expect(fake.message(message.id)?.attachments.map((a) => a.filename)).toEqual(["result.mp4"]);
  });

  it("gives a person without Nitro 10 MiB through the interaction too", async () => {
    const command = await receive(() => fake.sendCommand({ name: "usage" }));
    expect(command.attachmentSizeLimit).toBe(10 * MiB);
    await command.deferReply();
    const error = await command
      .editReply({ files: [{ attachment: file(11 * MiB).data, name: "x.mp4" }] })
      .catch((e: unknown) => e);
    expect(refusal(error)).toEqual({ status: 413, code: 40005 });
  });

  it("raises the bot's limit and the interactions' in a boosted server, to the larger of boost and Nitro", async () => {
    await fake.boostGuild(fake.guild.id, 2);
    const plain = await receive(() => fake.sendCommand({ name: "usage" }));
    expect(plain.attachmentSizeLimit).toBe(UPLOAD_LIMITS.boost[2]);
    fake.setNitro(fake.users.other, "nitro");
    const nitro = await receive(() => fake.sendCommand({ name: "usage", user: fake.users.other }));
    expect(nitro.attachmentSizeLimit).toBe(UPLOAD_LIMITS.nitro);
    // discord.js learns the tier from GUILD_UPDATE, as from Discord.
    await fake.waitFor(() => bot.guilds.cache.get(fake.guild.id)?.premiumTier === 2);

    await bot.rest.post(Routes.channelMessages(fake.channel.id), { files: [file(11 * MiB)] });
    expect(
      fake
        .messages()
        .at(-1)
        ?.attachments.map((a) => a.size),
    ).toEqual([11 * MiB]);
  });

  it("keeps the bot at 10 MiB in a person's DM, where the interaction has their Nitro", async () => {
    fake.setNitro(fake.users.requester, "basic");
    const command = await receive(() => fake.sendCommand({ name: "usage", guild: false }));
    expect(command.attachmentSizeLimit).toBe(UPLOAD_LIMITS.nitroBasic);
    const dm = fake.dmChannel(fake.users.requester.id);
    const error = await bot.rest
      .post(Routes.channelMessages(dm), { files: [file(10 * MiB + 1)] })
      .catch((e: unknown) => e);
    expect(refusal(error)).toEqual({ status: 413, code: 40005 });
  });
});

describe("what the bot may do in a channel", () => {
  it("says in app_permissions what the channel's overwrites leave the bot, and refuses its calls as Discord does", async () => {
    const before = await receive(() => fake.sendCommand({ name: "usage" }));
    expect(before.appPermissions.has(PermissionFlagsBits.ViewChannel)).toBe(true);
    expect(before.appPermissions.has(PermissionFlagsBits.SendMessages)).toBe(true);

    await fake.overwritePermissions(fake.channel.id, {
      id: fake.botUser.id,
      type: "member",
      deny: PermissionFlagsBits.SendMessages,
    });
    const mute = await receive(() => fake.sendCommand({ name: "usage" }));
    expect(mute.appPermissions.has(PermissionFlagsBits.ViewChannel)).toBe(true);
    expect(mute.appPermissions.has(PermissionFlagsBits.SendMessages)).toBe(false);
    const muted = await bot.rest
      .post(Routes.channelMessages(fake.channel.id), { body: { content: "hi" } })
      .catch((e: unknown) => e);
    expect(refusal(muted)).toEqual({ status: 403, code: 50013 });

    await fake.overwritePermissions(fake.channel.id, {
      id: fake.botUser.id,
      type: "member",
      deny: PermissionFlagsBits.ViewChannel,
    });
    const blind = await receive(() => fake.sendCommand({ name: "usage" }));
    expect(blind.appPermissions.has(PermissionFlagsBits.ViewChannel)).toBe(false);
    const hidden = await bot.rest
      .post(Routes.channelMessages(fake.channel.id), { body: { content: "hi" } })
      .catch((e: unknown) => e);
    expect(refusal(hidden)).toEqual({ status: 403, code: 50001 });
    // The interaction itself still answers there, through its token.
    await blind.reply({ content: "through the interaction" });
    expect(fake.original(blind.id)?.content).toBe("through the interaction");
  });
});
