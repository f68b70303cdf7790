import { once } from "node:events";
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  type ChatInputCommandInteraction,
  type Client,
  DiscordAPIError,
  Events,
  HTTPError,
  MessageFlags,
  PermissionFlagsBits,
  Routes,
  type TextChannel,
} from "discord.js";
import {
  ApplicationCommandResponseSchema,
  InteractionCallbackResponseSchema,
  MessageResponseSchema,
  UserResponseSchema,
} from "discord-api-spec/zod";
import { afterEach, describe, expect, it } from "vitest";
import { loginClient } from "./client.js";
import { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from "./index.js";
import { checkSchema } from "./validate.js";

let fake: FakeDiscord;
let bot: Client<true>;

async function start(options: FakeDiscordOptions = {}) {
  fake = await startFakeDiscord(options);
  bot = await loginClient(fake);
  return (await bot.channels.fetch(fake.channel.id)) as TextChannel;
}

afterEach(async () => {
  await bot.destroy();
  await fake.close();
  fake.assertNoValidationErrors();
});

const png = (size: number) =>
  Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.alloc(size - 8, 1)]);

describe("fake Discord REST with the real discord.js client", () => {
  it("opens the bot's DM with a user once, where the bot token posts, and knows no stranger", async () => {
    await start();
    const user = fake.users.requester.id;
    const first = (await bot.rest.post(Routes.userChannels(), { body: { recipient_id: user } })) as {
      id: string;
      type: number;
    };
    const again = (await bot.rest.post(Routes.userChannels(), { body: { recipient_id: user } })) as {
      id: string;
    };
    expect(first).toMatchObject({ id: again.id, type: 1 });
    expect(fake.dmChannel(user)).toBe(first.id);
    await bot.rest.post(Routes.channelMessages(first.id), { body: { content: "Only you" } });
    expect(fake.messages(first.id).map((m) => m.content)).toEqual(["Only you"]);
    const stranger = bot.rest.post(Routes.userChannels(), { body: { recipient_id: "999999999999999999" } });
    await expect(stranger).rejects.toMatchObject({ code: 10013 });
  });

  it("stores a channel message with a multipart attachment and serves its bytes", async () => {
    const channel = await start();
    const bytes = png(2048);
    const sent = await channel.send({
      content: "Result",
      files: [new AttachmentBuilder(bytes, { name: "fox.png" })],
    });
    const call = fake.calls.at(-1)!;
    expect(call).toMatchObject({ method: "POST", route: "/channels/:channel_id/messages", status: 200 });
    expect(call.files).toEqual([
      { field: "files[0]", name: "fox.png", size: 2048, contentType: "image/png" },
    ]);
    expect(call.json).toMatchObject({ content: "Result", attachments: [{ id: "0" }] });

    const stored = fake.message(sent.id)!;
    expect(stored.attachments).toMatchObject([
      { filename: "fox.png", size: 2048, content_type: "image/png" },
    ]);
    const download = await fetch(stored.attachments[0]!.url);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    expect(sent.attachments.first()?.url).toBe(stored.attachments[0]!.url);
  });

  it("refuses attachment downloads on demand, then serves them again", async () => {
    const channel = await start();
    const bytes = png(512);
    const sent = await channel.send({ files: [new AttachmentBuilder(bytes, { name: "fox.png" })] });
    const url = fake.message(sent.id)!.attachments[0]!.url;
    fake.failAttachments({ status: 403 });
    fake.failAttachments({ status: 500, times: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const answer = await fetch(url);
      statuses.push(answer.status);
      if (i === 3) expect(Buffer.from(await answer.arrayBuffer())).toEqual(bytes);
      else await answer.text();
    }
    expect(statuses).toEqual([403, 500, 500, 200]);
  });

  it("answers an attachment over the size limit with 413 / 40005", async () => {
    const channel = await start();
    const tooBig = Buffer.alloc(fake.attachmentSizeLimit + 1);
    const error = await channel
      .send({ files: [{ attachment: tooBig, name: "big.mp4" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 413, code: 40005 });
    expect(fake.calls.at(-1)?.files[0]?.size).toBe(fake.attachmentSizeLimit + 1);
    expect(fake.messages()).toEqual([]);
  });

  it("keeps or replaces attachments on edit as the `attachments` list says", async () => {
    const channel = await start();
    const message = await channel.send({ content: "v1", files: [{ attachment: png(100), name: "a.png" }] });
    const kept = await message.edit({
      files: [{ attachment: png(200), name: "b.png" }],
      attachments: [...message.attachments.values()],
    });
    expect(fake.message(message.id)?.attachments.map((a) => a.filename)).toEqual(["a.png", "b.png"]);
    await kept.edit({ files: [{ attachment: png(300), name: "c.png" }] });
    expect(fake.message(message.id)?.attachments.map((a) => [a.filename, a.size])).toEqual([["c.png", 300]]);
    await kept.edit({ content: "v2" });
    expect(fake.message(message.id)).toMatchObject({ content: "v2", attachments: [{ filename: "c.png" }] });
    await kept.edit({ attachments: [] });
    expect(fake.message(message.id)?.attachments).toEqual([]);
  });

  it("sends rate-limit headers and survives an occasional 429 transparently", async () => {
    const channel = await start({ rateLimitEvery: 2 });
    const sent = [];
    for (let i = 0; i < 4; i++) sent.push(await channel.send(`message ${i}`));
    expect(fake.messages().map((m) => m.content)).toEqual([
      "message 0",
      "message 1",
      "message 2",
      "message 3",
    ]);
    expect(sent.map((m) => m.content)).toEqual(["message 0", "message 1", "message 2", "message 3"]);
    const limited = fake.calls.filter((c) => c.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(limited[0]?.response).toMatchObject({ retry_after: 0.05, global: false });

    const answer = await fetch(`${fake.restUrl}/v10/users/@me`, {
      headers: { Authorization: `Bot ${fake.token}` },
    });
    for (const header of ["limit", "remaining", "reset", "reset-after", "bucket"]) {
      expect(answer.headers.get(`x-ratelimit-${header}`)).toBeTruthy();
    }
  });

  it("fails requests on demand: a short outage discord.js rides out, a long one and a refusal it reports", async () => {
    const channel = await start();
    const messages = /^\/channels\/\d+\/messages$/;
    const since = (from: number) => fake.calls.slice(from).map((c) => `${c.method} ${c.route} ${c.status}`);
    const post = (status: number) => `POST /channels/:channel_id/messages ${status}`;

    let from = fake.calls.length;
    fake.fail({ method: "POST", path: messages, status: 503, times: 2 });
    await channel.send("after a blip");
    expect(since(from)).toEqual([post(503), post(503), post(200)]);
    expect(fake.calls[from]?.response).toEqual({ message: "503: Service Unavailable", code: 0 });

    from = fake.calls.length;
    fake.fail({ method: "POST", path: messages, status: 500, times: 4 });
    fake.fail({ method: "GET", path: messages, status: 500 });
    const outage = await channel.send("lost").catch((e: unknown) => e);
    expect(outage).toBeInstanceOf(HTTPError);
    expect(outage).toMatchObject({ status: 500, method: "POST" });
    expect(since(from)).toEqual(Array(4).fill(post(500)));

    fake.fail({ path: /\/messages\/\d+$/, status: 403, code: 50013, message: "Missing Permissions" });
    const [sent] = fake.messages();
    const refused = await channel.messages.edit(sent!.id, "edited").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect(refused).toMatchObject({ status: 403, code: 50013, message: "Missing Permissions" });
    await channel.messages.edit(sent!.id, "edited");
    await channel.send("again");
    expect(fake.messages().map((m) => m.content)).toEqual(["edited", "again"]);
    // The GET fault waited for a GET: a fault matches the method as well as the path.
    from = fake.calls.length;
    await channel.messages.fetch({ limit: 1 });
    expect(since(from)).toEqual([
      "GET /channels/:channel_id/messages 500",
      "GET /channels/:channel_id/messages 200",
    ]);
  });

  it("refuses a body the discord-api-spec schema rejects, and reports it", async () => {
    await start();
    const button = { type: 2, style: 1, label: "Go", custom_id: "x".repeat(101) };
    const posting = bot.rest.post(Routes.channelMessages(fake.channel.id), {
      body: { content: "hi", components: [{ type: 1, components: [button] }] },
    });
    await expect(posting).rejects.toMatchObject({ status: 400, code: 50035 });
    const [error] = fake.validationErrors.splice(0);
    expect(error).toMatchObject({
      kind: "schema",
      schema: "MessageCreateRequestSchema",
      issues: [{ path: "components.0.components.0.custom_id", message: expect.stringMatching(/<=100/) }],
    });
    expect(fake.messages()).toEqual([]);
  });

  it("refuses what Discord refuses beyond the schema: duplicate custom_ids, V2 without its flag, empty or long content", async () => {
    const channel = await start();
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId("same").setLabel("A").setStyle(ButtonStyle.Primary),
      new ButtonBuilder().setCustomId("same").setLabel("B").setStyle(ButtonStyle.Primary),
    );
    await expect(channel.send({ content: "x", components: [row] })).rejects.toMatchObject({ code: 50035 });
    await expect(channel.send({ components: [{ type: 10, content: "text display" }] })).rejects.toMatchObject(
      { code: 50035 },
    );
    await channel.send({
      flags: MessageFlags.IsComponentsV2,
      components: [{ type: 10, content: "text display" }],
    });
    await expect(channel.send({ content: "   " })).rejects.toMatchObject({ code: 50006 });
    await expect(channel.send({ content: "x".repeat(2001) })).rejects.toMatchObject({ code: 50035 });
    expect(fake.validationErrors.splice(0).map((e) => [e.kind, e.issues[0]?.message])).toEqual([
      ["rule", 'custom_id "same" is used twice in one message'],
      ["rule", "components other than action rows need the IS_COMPONENTS_V2 flag"],
      ["rule", "no content, embeds, components, poll or files"],
      ["rule", "a bot's content holds at most 2000 characters"],
    ]);
  });

  it("returns the earlier message for a repeated nonce with enforce_nonce", async () => {
    const channel = await start();
    const first = await channel.send({ content: "Done", nonce: "job-42", enforceNonce: true });
    const again = await channel.send({ content: "Done", nonce: "job-42", enforceNonce: true });
    expect(again.id).toBe(first.id);
    expect(fake.messages()).toHaveLength(1);
  });

  it("answers as Discord does once a message or channel is deleted or overwrites shut the bot out", async () => {
    const channel = await start();
    const [deleted, kept] = [await channel.send("first"), await channel.send("second")];
    const refusal = () => fake.calls.at(-1)?.response;

    fake.deleteMessage(deleted.id);
    await expect(deleted.edit("again")).rejects.toMatchObject({ status: 404, code: 10008 });
    expect(refusal()).toEqual({ message: "Unknown Message", code: 10008 });

    const theBot = { id: fake.botUser.id, type: "member" as const };
    await fake.overwritePermissions(channel.id, { ...theBot, deny: PermissionFlagsBits.SendMessages });
    await expect(channel.send("third")).rejects.toMatchObject({ status: 403, code: 50013 });
    expect(refusal()).toEqual({ message: "Missing Permissions", code: 50013 });
    // Editing its own message needs no Send Messages.
    await kept.edit("second, edited");

    // A private channel: @everyone may not see it, and the bot only once it is let in.
    const everyone = { id: fake.guild.id, type: "role" as const };
    await fake.overwritePermissions(channel.id, { ...everyone, deny: PermissionFlagsBits.ViewChannel });
    await expect(kept.edit("hidden")).rejects.toMatchObject({ status: 403, code: 50001 });
    expect(refusal()).toEqual({ message: "Missing Access", code: 50001 });
    await fake.overwritePermissions(channel.id, { ...theBot, allow: PermissionFlagsBits.ViewChannel });
    await kept.edit("let in");
    await channel.send("third");

    await fake.deleteChannel(channel.id);
    await fake.waitFor(() => !bot.channels.cache.has(channel.id));
    await expect(
      bot.rest.post(Routes.channelMessages(channel.id), { body: { content: "x" } }),
    ).rejects.toMatchObject({ status: 404, code: 10003 });
    expect(refusal()).toEqual({ message: "Unknown Channel", code: 10003 });
    expect(fake.messages(channel.id)).toEqual([]);
  });

  it("validates registered commands, keeps their ids on a new bulk overwrite, and refuses bad ones", async () => {
    await start();
    await bot.application.commands.set([{ name: "usage", description: "Credits" }], fake.guild.id);
    const [usage] = fake.commands(fake.guild.id);
    await bot.application.commands.set(
      [
        { name: "usage", description: "Credits and quotas" },
        { name: "jobs", description: "Your jobs" },
      ],
      fake.guild.id,
    );
    expect(fake.commands(fake.guild.id).map((c) => [c.name, c.description])).toEqual([
      ["usage", "Credits and quotas"],
      ["jobs", "Your jobs"],
    ]);
    expect(fake.commands(fake.guild.id)[0]?.id).toBe(usage?.id);

    const bad = bot.application.commands.set([{ name: "Image Generate", description: "d".repeat(101) }]);
    await expect(bad).rejects.toMatchObject({ code: 50035 });
    expect(fake.validationErrors.splice(0)).toMatchObject([
      {
        kind: "schema",
        schema: "ApplicationCommandUpdateRequestSchema",
        issues: [{ path: "0.description" }],
      },
    ]);
    const rule = bot.application.commands.set([{ name: "Image", description: "Images" }]);
    await expect(rule).rejects.toMatchObject({ code: 50035 });
    expect(fake.validationErrors.splice(0)).toMatchObject([{ kind: "rule", issues: [{ path: "0.name" }] }]);
    expect(fake.commands()).toEqual([]);
  });

  it("answers an unknown route with 404 and reports it, so a gap in the fake cannot pass unnoticed", async () => {
    await start();
    await expect(bot.rest.get(Routes.guildMembers(fake.guild.id))).rejects.toMatchObject({ status: 404 });
    expect(fake.validationErrors.splice(0)).toMatchObject([{ kind: "route", method: "GET" }]);
  });

  it("answers in the shapes of discord-api-spec's response schemas", async () => {
    const channel = await start();
    await bot.application.commands.set([{ name: "usage", description: "Credits" }], fake.guild.id);
    const arrived = once(bot, Events.InteractionCreate) as Promise<[ChatInputCommandInteraction]>;
    await fake.sendCommand({ name: "usage" });
    const [command] = await arrived;
    await command.reply({
      content: `<@${fake.users.requester.id}> here`,
      embeds: [
        {
          title: "Usage",
          fields: [{ name: "Credits", value: "10" }],
          image: { url: "attachment://chart.png" },
        },
      ],
      files: [{ attachment: png(64), name: "chart.png" }],
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId("more").setLabel("More").setStyle(ButtonStyle.Primary),
          new ButtonBuilder().setURL("https://example.com").setLabel("Docs").setStyle(ButtonStyle.Link),
        ),
      ],
      withResponse: true,
    });
    await command.followUp({ content: "ephemeral", flags: MessageFlags.Ephemeral });
    await channel.send("plain");

    const original = fake.original(command.id)!;
    expect(original.mentions.map((u) => u.id)).toEqual([fake.users.requester.id]);
    expect(original.embeds[0]?.image?.url).toBe(original.attachments[0]?.url);
    for (const message of fake.messages()) expect(checkSchema(MessageResponseSchema, message)).toEqual([]);
    for (const command of fake.commands(fake.guild.id))
      expect(checkSchema(ApplicationCommandResponseSchema, command)).toEqual([]);
    const callback = fake.calls.find((c) => c.route.endsWith("/callback"))!;
    expect(callback.status).toBe(200);
    expect(checkSchema(InteractionCallbackResponseSchema, callback.response)).toEqual([]);
    expect(checkSchema(UserResponseSchema, fake.users.requester)).toEqual([]);
  });
});
