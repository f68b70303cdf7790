import type { APIMessage, APITextChannel } from "discord-api-types/v10";
import { beforeAll, describe, expect, it } from "vitest";
import { TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { until } from "../main-process.js";
import { type DiscordWorld, discordWorldPerFile, ended, isEphemeral, shown } from "./harness.js";

/**
 * Discord user installs: a person who added the app to their own account uses it in its DM, in
 * group DMs and in servers that never added the bot. There they are their own tenant: their own
 * key pays (set up in the DM with the bot), or the operator's when MEDIA_API_KEY_TENANTS names
 * them. Where the bot is no member, everything comes through the interaction's webhook, and what
 * outlives its 15 minutes comes by DM, saying why.
 */

let world: DiscordWorld;
discordWorldPerFile(
  (started) => {
    world = started;
  },
  // The operator lets the "other" seeded user spend the bot's own key; the requester is not named.
  { globalCommands: true, apiKeyTenants: (fake) => [fake.guild.id, fake.users.other.id] },
);

const OWN_KEY = "own-key";
let noBot: APITextChannel;

beforeAll(async () => {
  world.emu.addAccount({ apiKey: OWN_KEY, creditsLimit: 1_000_000 });
  ({ channel: noBot } = await world.fake.addGuild("Friends, no bot", { bot: false }));
  world.fake.installForUser(world.fake.users.requester);
  world.fake.installForUser(world.fake.users.other);
});

const image = (prompt: string, where: { channelId?: string; guild?: false } = {}) => ({
  name: "image",
  subcommand: "generate",
  options: { prompt },
  ...where,
});

/** What the bot did with its own token in `channelId` (none where it is no member). */
const botTokenCalls = (channelId: string) =>
  world.fake.calls.filter((c) => c.path.startsWith(`/channels/${channelId}/`));

/** The key the service's creation calls of `prompt` came with. */
const paidBy = (prompt: string) =>
  world
    .creations("/api/image/generate")
    .filter((c) => (c.json as { prompt?: string } | undefined)?.prompt === prompt)
    .map((c) => c.apiKey);

const current = (id: string, match: (m: APIMessage) => boolean = ended) =>
  world.until(() => {
    const message = world.fake.message(id);
    return message && match(message) ? message : undefined;
  });

async function setUpOwnKey(): Promise<APIMessage> {
  const command = await world.command({ name: "setup", options: { api_key: true }, guild: false });
  const modal = (await world.firstResponse(command)).data as { custom_id: string };
  return world.answer(await world.fake.submitModal(modal.custom_id, { api_key: OWN_KEY }));
}

describe("a person's own key, set up in their DM with the bot", () => {
  it("tells them how until they set it up, then runs the command in the DM on their key", async () => {
    const before = world.creations("/api/image/generate").length;
    const refused = await world.run(image("a moth at dusk", { guild: false }));
    expect(isEphemeral(refused)).toBe(true);
    expect(shown(refused)).toContain("You have no media service API key of your own yet");
    // Markdown-escaped, as Discord shows it: "run /setup api_key:True".
    expect(shown(refused)).toContain("In your DM with the bot, run /setup api\\_key:True");
    expect(world.creations("/api/image/generate").length).toBe(before);

    const saved = await setUpOwnKey();
    expect(isEphemeral(saved)).toBe(true);
    expect(shown(saved)).toContain("Settings saved");
    expect(shown(saved)).toContain("Your own key (stored encrypted)");
    expect(JSON.stringify(world.fake.calls.map((c) => c.json))).not.toContain(OWN_KEY);

    const done = await world.jobMessage(await world.command(image("a moth at dawn", { guild: false })));
    expect(done.channel_id).toBe(world.fake.dmChannel(world.fake.users.requester.id));
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(paidBy("a moth at dawn")).toEqual([OWN_KEY]);

    // Their usage is their own account's and their own spending.
    const usage = await world.run({ name: "usage", guild: false });
    expect(world.emu.calls.filter((c) => c.path === "/api/usage").at(-1)?.apiKey).toBe(OWN_KEY);
    expect(isEphemeral(usage)).toBe(true);
  });

  it("refuses setup where others are (a server without the bot), pointing to the DM", async () => {
    const refused = await world.run({ name: "setup", channelId: noBot.id });
    expect(isEphemeral(refused)).toBe(true);
    expect(shown(refused)).toContain("Your own API key and settings are set in your DM with the bot");
  });

  it("lets the operator's key pay for a person MEDIA_API_KEY_TENANTS names", async () => {
    const other = world.fake.users.other;
    const done = await world.jobMessage(
      await world.command({ ...image("a lent brush", { guild: false }), user: other }),
    );
    expect(done.attachments).toHaveLength(1);
    expect(paidBy("a lent brush")).toEqual(["test-key"]);
  });
});

describe("where the bot is no member", () => {
  beforeAll(async () => {
    if (
      (await world.stores.tenants.getApiKey({
        platform: "discord",
        tenantId: world.fake.users.requester.id,
      })) === undefined
    ) {
      await setUpOwnKey();
    }
  });

  it("delivers a job in a server without the bot through the interaction's webhook, on the person's key", async () => {
    const calls = world.fake.calls.length;
    const interaction = await world.command(image("a fox among friends", { channelId: noBot.id }));
    expect(interaction.payload.authorizing_integration_owners).toEqual({
      "1": world.fake.users.requester.id,
    });
    const done = await world.jobMessage(interaction);
    expect(done.channel_id).toBe(noBot.id);
    expect(isEphemeral(done)).toBe(false);
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(shown(done)).toContain("a fox among friends");
    expect(paidBy("a fox among friends")).toEqual([OWN_KEY]);
    // Nothing by the bot token there (Discord would refuse it): no ready notice, no refused call.
    expect(botTokenCalls(noBot.id)).toEqual([]);
    expect(world.fake.calls.slice(calls).filter((c) => c.status === 403)).toEqual([]);
  });

  it("delivers a job in a group DM the same way", async () => {
    const group = world.fake.addGroupDm([world.fake.users.requester, world.fake.users.other]);
    const interaction = await world.command(image("a picnic", { channelId: group.id }));
    expect(interaction.payload.context).toBe(2);
    const done = await world.jobMessage(interaction);
    expect(done.channel_id).toBe(group.id);
    expect(done.attachments).toHaveLength(1);
    expect(botTokenCalls(group.id)).toEqual([]);
  });

  it("continues a job outliving the 15 minutes in the person's DM, saying why", async () => {
    world.emu.planNextJob("image", { durationMs: 1500 });
    const dm = world.fake.dmChannel(world.fake.users.requester.id);
    const inDm = world.fake.messages(dm).length;
    const interaction = await world.command(image("a slow tide", { channelId: noBot.id }));
    const working = await world.jobMessage(interaction, (m) =>
      /Working/.test(m.embeds[0]?.description ?? ""),
    );
    // Said beforehand, while the bar still moves.
    expect(shown(working)).toContain(
      "Discord lets the bot update this message for 15 minutes: if the job takes longer, it continues in your DM with the bot.",
    );
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1000);

    const result = await world.until(() => world.fake.messages(dm)[inDm]);
    const done = await current(result.id);
    expect(shown(done)).toContain(
      `Your job from <#${noBot.id}>: the bot is not a member there and could answer only through your command, which Discord allows for 15 minutes, so it continues here.`,
    );
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(done.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
    // The message in the server stays where the token left it; the bot token never tried there.
    expect(ended(world.fake.message(working.id)!)).toBe(false);
    expect(botTokenCalls(noBot.id)).toEqual([]);
  });

  it("runs a result's follow-up button for its requester, through the click's own webhook", async () => {
    const result = await world.jobMessage(await world.command(image("a kite", { channelId: noBot.id })));
    const click = await world.fake.clickButton(result, world.controlId(result, "regenerate"));
    const again = await world.until(() => world.fake.followups(click.id)[0]);
    expect(again.channel_id).toBe(noBot.id);
    expect(shown(await current(again.id))).toContain("a kite");
    expect(paidBy("a kite")).toEqual([OWN_KEY, OWN_KEY]);
    expect(botTokenCalls(noBot.id)).toEqual([]);
  });

  it("refuses someone else's click on that result: it would spend the requester's key", async () => {
    const result = await world.jobMessage(await world.command(image("a lantern", { channelId: noBot.id })));
    const click = await world.fake.clickButton(
      result,
      world.controlId(result, "regenerate"),
      world.fake.users.other,
    );
    const refused = await world.until(() => world.fake.followups(click.id)[0]);
    expect(isEphemeral(refused)).toBe(true);
    expect(shown(refused)).toContain(
      `Only <@${world.fake.users.requester.id}> can use this result's buttons: their own API key pays`,
    );
    expect(paidBy("a lantern")).toEqual([OWN_KEY]);
  });

  it("runs Apps > Edit image on a result there, reading the image from the message Discord sends", async () => {
    const result = await world.jobMessage(await world.command(image("a teapot", { channelId: noBot.id })));
    const used = await world.fake.useMessageCommand({ name: "Edit image", message: result });
    const modal = (await world.firstResponse(used)).data as { custom_id: string };
    const submitted = await world.fake.submitModal(modal.custom_id, { prompt: "make it blue" });
    const done = await world.jobMessage(submitted);
    expect(done.channel_id).toBe(noBot.id);
    expect(shown(done)).toContain("make it blue");
    expect(world.creations("/api/image/edit").at(-1)?.apiKey).toBe(OWN_KEY);
    expect(botTokenCalls(noBot.id)).toEqual([]);
  });

  // Last: the refusal stays armed for the rest of the file.
  it("ends a job whose DM Discord refuses with that reason, which /jobs shows", async () => {
    world.emu.planNextJob("image", { durationMs: 1500 });
    const dm = world.fake.dmChannel(world.fake.users.requester.id);
    const interaction = await world.command(image("a closed door", { channelId: noBot.id }));
    await world.jobMessage(interaction, (m) => /Working/.test(m.embeds[0]?.description ?? ""));
    world.fake.fail({
      method: "POST",
      path: new RegExp(`^/channels/${dm}/messages$`),
      status: 403,
      code: 50007,
      message: "Cannot send messages to this user",
      times: 1000,
    });
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1000);

    // /jobs in the DM says what became of it, once delivery gave up.
    let listed = "";
    await until(
      async () => {
        listed = shown(await world.run({ name: "jobs", guild: false }));
        return /Discord refused a direct message/.test(listed);
      },
      15_000,
      () => `/jobs in the DM: ${listed}`,
    );
    expect(listed).toContain("a closed door");
    expect(listed).toContain("Discord refused a direct message from the bot to you");
  });
});
