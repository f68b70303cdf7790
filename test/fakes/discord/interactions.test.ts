import { once } from "node:events";
import {
  ActionRowBuilder,
  type ApplicationCommandDataResolvable,
  ApplicationCommandOptionType,
  type AutocompleteInteraction,
  ButtonBuilder,
  type ButtonInteraction,
  ButtonStyle,
  type ChatInputCommandInteraction,
  type Client,
  DiscordAPIError,
  Events,
  FileUploadBuilder,
  type Interaction,
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  type ModalSubmitInteraction,
  PermissionFlagsBits,
  Routes,
  StringSelectMenuBuilder,
  type StringSelectMenuInteraction,
  TextInputBuilder,
  TextInputStyle,
} from "discord.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loginClient } from "./client.js";
import {
  DEFAULT_ATTACHMENT_SIZE_LIMIT,
  type FakeDiscord,
  FIRST_RESPONSE_MS,
  type InjectedInteraction,
  startFakeDiscord,
  TOKEN_LIFETIME_MS,
} from "./index.js";

const COMMANDS: ApplicationCommandDataResolvable[] = [
  {
    name: "image",
    description: "Images",
    options: [
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: "generate",
        description: "Generate an image",
        options: [
          {
            type: ApplicationCommandOptionType.String,
            name: "prompt",
            description: "What to draw",
            required: true,
          },
          {
            type: ApplicationCommandOptionType.String,
            name: "aspect_ratio",
            description: "Shape",
            choices: [
              { name: "square", value: "1:1" },
              { name: "wide", value: "16:9" },
            ],
          },
          { type: ApplicationCommandOptionType.Integer, name: "seed", description: "Seed", min_value: 0 },
        ],
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: "edit",
        description: "Edit an image",
        options: [
          {
            type: ApplicationCommandOptionType.Attachment,
            name: "image",
            description: "The image",
            required: true,
          },
          {
            type: ApplicationCommandOptionType.String,
            name: "instruction",
            description: "What to change",
            required: true,
          },
        ],
      },
    ],
  },
  {
    name: "video",
    description: "Videos",
    options: [
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: "avatar",
        description: "Talking avatar",
        options: [
          {
            type: ApplicationCommandOptionType.String,
            name: "avatar",
            description: "Which avatar",
            required: true,
            autocomplete: true,
          },
        ],
      },
    ],
  },
  {
    name: "setup",
    description: "Tenant settings",
    default_member_permissions: PermissionFlagsBits.ManageGuild.toString(),
  },
  { name: "usage", description: "Credits and quotas" },
];

let fake: FakeDiscord;
let bot: Client<true>;

beforeEach(async () => {
  fake = await startFakeDiscord();
  bot = await loginClient(fake);
  await bot.application.commands.set(COMMANDS, fake.guild.id);
});

afterEach(async () => {
  await bot.destroy();
  await fake.close();
  fake.assertNoValidationErrors();
});

/** The next interaction discord.js emits, after `inject` made the fake send it. */
async function receive<T extends Interaction>(inject: () => Promise<InjectedInteraction>): Promise<T> {
  const arrived = once(bot, Events.InteractionCreate) as Promise<[T]>;
  const injected = await inject();
  const [interaction] = await arrived;
  expect(interaction.id).toBe(injected.id);
  return interaction;
}

/** Posts a message with components through a slash command reply, as the bot would. */
async function postWithComponents(components: ActionRowBuilder<ButtonBuilder | StringSelectMenuBuilder>[]) {
  const command = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
  await command.reply({ content: "Pick one", components });
  return fake.original(command.id)!;
}

describe("interactions from the fake Discord, answered by the real discord.js client", () => {
  it("delivers a slash command with options, an attachment served by the fake, and member permissions", async () => {
    const png = Buffer.from("\x89PNG\r\n\x1a\nfake image bytes");
    const generate = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({
        name: "image",
        subcommand: "generate",
        options: { prompt: "a red fox in snow", aspect_ratio: "16:9", seed: 7 },
      }),
    );
    expect(generate.isChatInputCommand()).toBe(true);
    expect(generate.options.getSubcommand()).toBe("generate");
    expect(generate.options.getString("prompt")).toBe("a red fox in snow");
    expect(generate.options.getString("aspect_ratio")).toBe("16:9");
    expect(generate.options.getInteger("seed")).toBe(7);
    expect(generate.guildId).toBe(fake.guild.id);
    expect(generate.channelId).toBe(fake.channel.id);
    expect(generate.user.id).toBe(fake.users.requester.id);
    expect(generate.attachmentSizeLimit).toBe(DEFAULT_ATTACHMENT_SIZE_LIMIT);
    expect(generate.memberPermissions?.has("ManageGuild")).toBe(false);
    await generate.deferReply();

    const edit = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({
        name: "image",
        subcommand: "edit",
        user: fake.users.admin,
        options: { instruction: "make it blue" },
        attachments: [{ option: "image", name: "fox.png", contentType: "image/png", data: png }],
      }),
    );
    const image = edit.options.getAttachment("image", true);
    expect(image).toMatchObject({ name: "fox.png", contentType: "image/png", size: png.length });
    const download = await fetch(image.url);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await download.arrayBuffer())).toEqual(png);
    expect(edit.memberPermissions?.has("ManageGuild")).toBe(true);
    await edit.deferReply();
  });

  it("refuses to inject what no Discord user could send", async () => {
    await expect(fake.sendCommand({ name: "nope" })).rejects.toThrow(/not registered/);
    await expect(fake.sendCommand({ name: "image", subcommand: "generate" })).rejects.toThrow(
      /needs the option prompt/,
    );
    await expect(
      fake.sendCommand({
        name: "image",
        subcommand: "generate",
        options: { prompt: "x", aspect_ratio: "4:3" },
      }),
    ).rejects.toThrow(/not one of its choices/);
    await expect(fake.sendCommand({ name: "setup" })).rejects.toThrow(/hidden from user/);
    const setup = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({ name: "setup", user: fake.users.admin }),
    );
    await setup.reply({ content: "ok", flags: MessageFlags.Ephemeral });
  });

  it("stores deferReply, editReply and a followUp with a file as Discord would", async () => {
    const command = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({ name: "image", subcommand: "generate", options: { prompt: "fox" } }),
    );
    await command.deferReply();
    expect(fake.original(command.id)?.flags).toBe(MessageFlags.Loading);
    await command.editReply({ content: "Queued", embeds: [{ title: "Fox", description: "0%" }] });
    const video = Buffer.alloc(4096, 7);
    const followup = await command.followUp({
      content: "Done",
      files: [{ attachment: video, name: "fox.mp4" }],
    });

    const original = fake.original(command.id)!;
    expect(original.interaction?.name).toBe("image generate");
    expect(original).toMatchObject({
      content: "Queued",
      flags: 0,
      embeds: [{ type: "rich", title: "Fox", description: "0%" }],
    });
    expect(original.edited_timestamp).not.toBeNull();
    const [stored] = fake.followups(command.id);
    expect(stored?.id).toBe(followup.id);
    expect(stored?.attachments).toMatchObject([{ filename: "fox.mp4", size: 4096 }]);
    expect(fake.file(stored!.attachments[0]!)).toEqual(video);
    expect(followup.attachments.first()?.size).toBe(4096);
    expect(fake.callbacks(command.id).map((c) => c.type)).toEqual([5]);
    expect(fake.messages().map((m) => m.id)).toEqual([original.id, stored!.id]);
  });

  it("turns the first followUp after a defer into the deferred message, as Discord documents", async () => {
    const command = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
    await command.deferReply({ flags: MessageFlags.Ephemeral });
    const first = await command.followUp({ content: "Here" });
    expect(first.id).toBe(fake.original(command.id)?.id);
    expect(fake.original(command.id)).toMatchObject({ content: "Here", flags: MessageFlags.Ephemeral });
    await command.followUp({ content: "And more" });
    expect(fake.followups(command.id)).toHaveLength(1);
  });

  it("answers reply() with 204 and no JSON type, and reply({ withResponse }) with the callback response", async () => {
    const plain = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
    await plain.reply("Pong");
    const call = fake.calls.find((c) => c.route.endsWith("/callback"))!;
    expect(call).toMatchObject({
      status: 204,
      query: { with_response: "false" },
      json: { type: 4, data: { content: "Pong" } },
    });
    expect(fake.original(plain.id)).toMatchObject({
      content: "Pong",
      type: 20,
      interaction_metadata: { id: plain.id },
    });

    const detailed = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
    const response = await detailed.reply({ content: "Pong", withResponse: true });
    expect(response.interaction.id).toBe(detailed.id);
    expect(response.resource?.message?.content).toBe("Pong");
    expect(response.resource?.message?.id).toBe(fake.original(detailed.id)?.id);
  });

  it("keeps an ephemeral reply out of what the bot token can read", async () => {
    const command = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
    await command.reply({ content: "Only you", flags: MessageFlags.Ephemeral });
    const stored = fake.original(command.id)!;
    expect(stored.flags).toBe(MessageFlags.Ephemeral);
    expect((await command.fetchReply()).content).toBe("Only you");
    const channel = await bot.channels.fetch(fake.channel.id);
    if (!channel?.isTextBased()) throw new Error("expected a text channel");
    expect((await channel.messages.fetch()).has(stored.id)).toBe(false);
  });

  it("shows a modal as the first response and delivers its submission", async () => {
    const command = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({ name: "setup", user: fake.users.admin }),
    );
    const modal = new ModalBuilder()
      .setCustomId("setup:key")
      .setTitle("API key")
      .addComponents(
        new ActionRowBuilder<TextInputBuilder>().addComponents(
          new TextInputBuilder()
            .setCustomId("api_key")
            .setLabel("Key")
            .setStyle(TextInputStyle.Short)
            .setMinLength(8),
        ),
      );
    await command.showModal(modal);
    expect(fake.callbacks(command.id)).toMatchObject([
      { type: 9, data: { custom_id: "setup:key", title: "API key" } },
    ]);
    await expect(fake.submitModal("setup:key", { api_key: "short" })).rejects.toThrow(/8-4000/);

    const submit = await receive<ModalSubmitInteraction>(() =>
      fake.submitModal("setup:key", { api_key: "sk-123456789" }),
    );
    expect(submit.isModalSubmit()).toBe(true);
    expect(submit.user.id).toBe(fake.users.admin.id);
    expect(submit.fields.getTextInputValue("api_key")).toBe("sk-123456789");
    await submit.reply({ content: "Saved", flags: MessageFlags.Ephemeral });
    await expect(fake.submitModal("setup:key", { api_key: "sk-123456789" })).rejects.toThrow(/no open modal/);
  });

  it("submits files through a File Upload modal opened from a button, and the submission updates that message", async () => {
    const message = await postWithComponents([
      new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId("upload").setLabel("Upload").setStyle(ButtonStyle.Primary),
      ),
    ]);
    const click = await receive<ButtonInteraction>(() => fake.clickButton(message, "upload"));
    await click.showModal(
      new ModalBuilder()
        .setCustomId("upload:form")
        .setTitle("Reference images")
        .addLabelComponents(
          new LabelBuilder()
            .setLabel("Images")
            .setFileUploadComponent(
              new FileUploadBuilder().setCustomId("images").setMinValues(1).setMaxValues(2),
            ),
        ),
    );
    const files = [
      { name: "a.png", contentType: "image/png", data: "first" },
      { name: "b.png", contentType: "image/png", data: "second" },
    ];
    const submit = await receive<ModalSubmitInteraction>(() =>
      fake.submitModal("upload:form", { images: files }),
    );
    const uploaded = submit.fields.getUploadedFiles("images", true);
    expect([...uploaded.values()].map((a) => [a.name, a.size])).toEqual([
      ["a.png", 5],
      ["b.png", 6],
    ]);
    expect(submit.isFromMessage()).toBe(true);
    if (!submit.isFromMessage()) return;
    await submit.update({ content: "Got 2 images", components: [] });
    expect(fake.message(message.id)).toMatchObject({ content: "Got 2 images", components: [] });
  });

  it("refuses a modal after a defer and a second callback with 40060", async () => {
    const command = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
    await command.deferReply();
    const modal = { type: 9, data: { custom_id: "m", title: "t", components: [] } };
    const late = bot.rest.post(Routes.interactionCallback(command.id, command.token), {
      body: modal,
      auth: false,
    });
    await expect(late).rejects.toMatchObject({ code: 40060, status: 400 });
    expect(fake.callbacks(command.id).map((c) => c.type)).toEqual([5]);
  });

  it("delivers a button click with the whole message and applies interaction.update", async () => {
    const message = await postWithComponents([
      new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId("keep:1").setLabel("Keep 1").setStyle(ButtonStyle.Primary),
        new ButtonBuilder().setCustomId("keep:2").setLabel("Keep 2").setStyle(ButtonStyle.Secondary),
      ),
    ]);
    await expect(fake.clickButton(message, "keep:3")).rejects.toThrow(/no such component keep:3/);
    const click = await receive<ButtonInteraction>(() =>
      fake.clickButton(message, "keep:2", fake.users.other),
    );
    expect(click.isButton()).toBe(true);
    expect(click.customId).toBe("keep:2");
    expect(click.user.id).toBe(fake.users.other.id);
    expect(click.message.id).toBe(message.id);
    expect(click.message.components).toHaveLength(1);
    await click.update({ content: "Kept 2", components: [] });
    expect(fake.message(message.id)).toMatchObject({ content: "Kept 2", components: [] });
    expect(fake.callbacks(click.id).map((c) => c.type)).toEqual([7]);
    await expect(fake.clickButton(message, "keep:1")).rejects.toThrow(/no such component/);
  });

  it("delivers a string select with its values", async () => {
    const message = await postWithComponents([
      new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(
        new StringSelectMenuBuilder()
          .setCustomId("voice")
          .setMaxValues(2)
          .addOptions(
            { label: "Anna", value: "1" },
            { label: "Ben", value: "2" },
            { label: "Cleo", value: "3" },
          ),
      ),
    ]);
    await expect(fake.selectMenu(message, "voice", ["9"])).rejects.toThrow(/no option 9/);
    const select = await receive<StringSelectMenuInteraction>(() =>
      fake.selectMenu(message, "voice", ["1", "3"]),
    );
    expect(select.isStringSelectMenu()).toBe(true);
    expect(select.values).toEqual(["1", "3"]);
    await select.deferUpdate();
    await select.editReply({ content: "Anna and Cleo", components: [] });
    expect(fake.message(message.id)).toMatchObject({ content: "Anna and Cleo", components: [] });
  });

  it("takes 25 autocomplete choices and refuses a 26th", async () => {
    const choices = Array.from({ length: 26 }, (_, i) => ({ name: `Avatar ${i}`, value: `av${i}` }));
    const typing = await receive<AutocompleteInteraction>(() =>
      fake.sendAutocomplete({ name: "video", subcommand: "avatar", focused: "avatar", value: "Av" }),
    );
    expect(typing.options.getFocused(true)).toMatchObject({ name: "avatar", value: "Av" });
    await typing.respond(choices.slice(0, 25));
    const [answer] = fake.callbacks(typing.id);
    expect(answer?.type).toBe(8);
    expect(answer?.data).toEqual({ choices: choices.slice(0, 25) });

    const more = await receive<AutocompleteInteraction>(() =>
      fake.sendAutocomplete({ name: "video", subcommand: "avatar", focused: "avatar", value: "Av" }),
    );
    await expect(more.respond(choices)).rejects.toMatchObject({ code: 50035 });
    expect(fake.validationErrors.splice(0)).toMatchObject([
      { schema: "ApplicationCommandAutocompleteCallbackRequestSchema", issues: [{ path: "data.choices" }] },
    ]);
  });

  it("answers a first response after 3 s with 10062 on the fake clock", async () => {
    const command = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
    fake.clock.advance(FIRST_RESPONSE_MS + 1);
    const error = await command.deferReply().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ code: 10062, status: 404 });
  });

  it("refuses the interaction token after 15 minutes with 50027; the bot token still edits the message", async () => {
    const command = await receive<ChatInputCommandInteraction>(() => fake.sendCommand({ name: "usage" }));
    const reply = await (await command.deferReply()).fetch();
    fake.clock.advance(TOKEN_LIFETIME_MS + 1);
    const error = await command.editReply("Still working").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ code: 50027, status: 401 });
    await reply.edit("Finished, via the bot token");
    expect(fake.original(command.id)?.content).toBe("Finished, via the bot token");
  });

  it("delivers a global command used in a DM with user instead of member", async () => {
    await expect(fake.sendCommand({ name: "usage", guild: false })).rejects.toThrow(/not registered/);
    await bot.application.commands.set([{ name: "usage", description: "Credits and quotas" }]);
    const command = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({ name: "usage", guild: false }),
    );
    expect(command.guildId).toBeNull();
    expect(command.member).toBeNull();
    expect(command.user.id).toBe(fake.users.requester.id);
    await command.reply("Your credits");
    expect(fake.messages(command.channelId!)).toMatchObject([{ content: "Your credits" }]);
    await bot.application.commands.set([{ name: "usage", description: "Credits", contexts: [0] }]);
    await expect(fake.sendCommand({ name: "usage", guild: false })).rejects.toThrow(/cannot be used in a DM/);
  });
});

describe("user installs", () => {
  const EVERYWHERE = { integration_types: [0, 1], contexts: [0, 1, 2] };

  beforeEach(async () => {
    await bot.application.commands.set([
      { name: "usage", description: "Credits and quotas", ...EVERYWHERE },
      { name: "setup", description: "Settings", integration_types: [0], contexts: [0] },
    ]);
  });

  it("reaches a server without the bot only through a person's own install, and only its webhook works there", async () => {
    const { guild, channel } = await fake.addGuild("No Bot Here", { bot: false });
    const where = { name: "usage", channelId: channel.id };
    await expect(fake.sendCommand(where)).rejects.toThrow(/no installation of the app reaches/);
    fake.installForUser(fake.users.requester);
    await expect(fake.sendCommand({ ...where, name: "setup" })).rejects.toThrow(/no installation/);

    const command = await receive<ChatInputCommandInteraction>(() => fake.sendCommand(where));
    expect(command.context).toBe(0);
    expect(command.guildId).toBe(guild.id);
    expect(command.member).not.toBeNull();
    expect(command.authorizingIntegrationOwners.toJSON()).toEqual({ "1": fake.users.requester.id });
    await command.deferReply();
    await command.editReply("Through the webhook");
    expect(fake.original(command.id)?.content).toBe("Through the webhook");
    const refused = await bot.rest
      .post(Routes.channelMessages(channel.id), { body: { content: "with the bot token" } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 50001, status: 403 });

    for (let i = 1; i <= 5; i++) await command.followUp(`followup ${i}`);
    await expect(command.followUp("a sixth")).rejects.toMatchObject({ status: 400 });
  });

  it("marks a group DM as context 2 and the DM with the bot as context 1, each with its owners", async () => {
    fake.installForUser(fake.users.requester);
    const group = fake.addGroupDm([fake.users.requester, fake.users.other]);
    const inGroup = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({ name: "usage", channelId: group.id }),
    );
    expect(inGroup.context).toBe(2);
    expect(inGroup.guildId).toBeNull();
    expect(inGroup.authorizingIntegrationOwners.toJSON()).toEqual({ "1": fake.users.requester.id });
    await inGroup.reply("Answered in the group");
    const reply = fake.original(inGroup.id)!;
    const refused = await bot.rest
      .patch(Routes.channelMessage(group.id, reply.id), { body: { content: "bot token" } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 50001, status: 403 });

    const inDm = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({ name: "usage", guild: false }),
    );
    expect(inDm.context).toBe(1);
    expect(inDm.authorizingIntegrationOwners.toJSON()).toEqual({ "0": "0", "1": fake.users.requester.id });
  });

  it("gives a click on a message the installs of the interaction that made it, whoever clicks", async () => {
    fake.installForUser(fake.users.requester);
    const group = fake.addGroupDm([fake.users.requester, fake.users.other]);
    const command = await receive<ChatInputCommandInteraction>(() =>
      fake.sendCommand({ name: "usage", channelId: group.id }),
    );
    await command.reply({
      content: "Pick",
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId("again").setLabel("Again").setStyle(ButtonStyle.Primary),
        ),
      ],
    });
    const click = await receive<ButtonInteraction>(() =>
      fake.clickButton(fake.original(command.id)!, "again", fake.users.other),
    );
    expect(click.user.id).toBe(fake.users.other.id);
    expect(click.authorizingIntegrationOwners.toJSON()).toEqual({ "1": fake.users.requester.id });
  });
});
