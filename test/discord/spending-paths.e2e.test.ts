import type { APIMessage, APITextChannel, APIUser } from "discord-api-types/v10";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type InjectedInteraction, TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { type ExportRow, exportRows } from "../spend-csv.js";
import { DiscordWorld, ended, isEphemeral, shown, type WorldOptions } from "./harness.js";

/**
 * A job's spending and budgets belong to where it was asked, on every path a paid start takes on
 * Discord: a command, a follow-up clicked in the channel, a follow-up clicked on the DM copy of a
 * private result (where it lands once the interaction's 15 minutes are over, and which carries no
 * server roles), and a user install (the person is their own tenant). Each story sets a budget
 * with Discord's own pickers, shows the start past it refused with no creation call, and reads
 * the export to see the spending filed where it was asked (by name and id).
 */

const IMAGE = "/api/image/generate";

function worldPerDescribe(options: WorldOptions = {}): () => DiscordWorld {
  let world: DiscordWorld | undefined;
  beforeAll(async () => {
    world = await DiscordWorld.start(options);
  });
  afterEach(() => {
    world?.fake.assertNoValidationErrors();
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => world!;
}

const image = (prompt: string, user: APIUser, more: Record<string, unknown> = {}) => ({
  name: "image",
  subcommand: "generate",
  options: { prompt, ...more },
  user,
});

/** Our job id, as the job message's footer shows it. */
const jobIdOf = (message: APIMessage) => /^Job (\S+)$/.exec(message.embeds[0]?.footer?.text ?? "")?.[1];

/** The export of `user`'s tenant (a server's admin, or a person in their DM), one row a job. */
async function exported(
  world: DiscordWorld,
  user: APIUser,
  where: { guild?: false } = {},
): Promise<ExportRow[]> {
  const answer = await world.run({ name: "usage", options: { view: "export" }, user, ...where });
  const file = answer.attachments.find((a) => a.filename.startsWith("spending-"));
  expect(file, shown(answer)).toBeDefined();
  return exportRows(world.fake.file(file!)!.toString("utf8"));
}

/**
 * No creation call arrives late: a start past its budget never makes one. The barrier is the same
 * gesture made again (`again`: a command refused again, a button answered as already used): once
 * its answer is back, a call the first one made would have arrived before it.
 */
async function noLateCall(world: DiscordWorld, count: number, again: () => Promise<unknown>): Promise<void> {
  await again();
  expect(world.creations(IMAGE)).toHaveLength(count);
}

describe("a command", () => {
  const world = worldPerDescribe();

  it("is held to the budget of the channel it is asked in (picked with the channel option), and its spending is filed under that channel", async () => {
    const { fake } = world();
    const ads: APITextChannel = await fake.addChannel("ads");
    const mia = fake.addUser("mia");
    const saved = await world().run({
      name: "budget",
      options: { channel: ads.id, jobs: 1 },
      user: fake.users.admin,
    });
    expect(shown(saved)).toContain("Channel #ads");

    const first = await world().jobMessage(
      await world().command({ ...image("a first kite", mia), channelId: ads.id }),
    );
    const secondKite = () => world().run({ ...image("a second kite", mia), channelId: ads.id });
    const refused = await secondKite();
    expect(isEphemeral(refused)).toBe(true);
    expect(shown(refused)).toContain(
      "This would go over this channel's budget: 1 of 1 jobs used this period, 0 left.",
    );
    await noLateCall(world(), 1, secondKite);
    // Elsewhere the channel's budget does not bind.
    await world().jobMessage(await world().command(image("a kite elsewhere", mia)));
    expect(world().creations(IMAGE)).toHaveLength(2);

    const rows = await exported(world(), fake.users.admin);
    expect(rows.find((r) => r.jobId === jobIdOf(first))).toMatchObject({
      person: "Mia",
      personId: mia.id,
      channel: "ads",
      channelId: ads.id,
    });
  });
});

describe("a follow-up clicked in the channel", () => {
  const world = worldPerDescribe();

  it("is held to the channel's budget, and its spending is filed under the channel", async () => {
    const { fake } = world();
    const mia = fake.addUser("mia");
    await world().run({ name: "budget", options: { for: "here", jobs: 2 }, user: fake.users.admin });
    const first = await world().jobMessage(await world().command(image("a red kite", mia)));

    const click = await fake.clickButton(first, world().controlId(first, "regenerate"), mia);
    const again = await world().until(() => {
      const message = fake.followups(click.id)[0];
      return message && ended(fake.message(message.id)!) ? fake.message(message.id) : undefined;
    });
    expect(world().creations(IMAGE)).toHaveLength(2);

    const regenerateAgain = async () => {
      const refusal = await fake.clickButton(again, world().controlId(again, "regenerate"), mia);
      return world().until(() => fake.followups(refusal.id)[0]);
    };
    expect(shown(await regenerateAgain())).toContain(
      "This would go over this channel's budget: 2 of 2 jobs used this period",
    );
    await noLateCall(world(), 2, regenerateAgain);

    const row = (await exported(world(), fake.users.admin)).find((r) => r.jobId === jobIdOf(again));
    expect(row).toMatchObject({ channel: fake.channel.name, channelId: fake.channel.id });
  });
});

describe("a follow-up clicked on the DM copy of a private result", () => {
  const world = worldPerDescribe();

  /** A private job of `user` that outlived its interaction's token, as it lands in their DM. */
  async function inDm(
    user: APIUser,
    prompt: string,
    channelId = world().fake.channel.id,
  ): Promise<APIMessage> {
    const { fake } = world();
    world().emu.planNextJob("image", { durationMs: 3000 });
    const dm = fake.dmChannel(user.id);
    const count = fake.messages(dm).length;
    const interaction: InjectedInteraction = await world().command({
      ...image(prompt, user, { delivery: "private" }),
      channelId,
    });
    // Still running when Discord's 15 minutes for the interaction are over.
    await world().jobMessage(interaction, (m) => !ended(m));
    fake.clock.advance(TOKEN_LIFETIME_MS + 1000);
    return world().until(() => {
      const message = fake.messages(dm)[count];
      return message && ended(fake.message(message.id)!) ? fake.message(message.id) : undefined;
    }, 10_000);
  }

  it("is held to the budget of the channel the job was asked in, never the DM's: no second creation call once it is used, and the spending is filed under that channel", async () => {
    const { fake } = world();
    const mia = fake.addUser("mia");
    await world().run({ name: "budget", options: { for: "here", jobs: 1 }, user: fake.users.admin });
    const result = await inDm(mia, "a secret kite");
    expect(shown(result)).toContain(`Your private job from <#${fake.channel.id}>`);
    expect(world().creations(IMAGE)).toHaveLength(1);

    const regenerate = async () => {
      const click = await fake.clickButton(result, world().controlId(result, "regenerate"), mia);
      return world().until(() => fake.followups(click.id)[0]);
    };
    const refused = await regenerate();
    expect(isEphemeral(refused)).toBe(true);
    expect(shown(refused)).toContain(
      "This would go over the budget of the channel this job was asked in: 1 of 1 jobs used this period, 0 left.",
    );
    await noLateCall(world(), 1, regenerate);

    const rows = await exported(world(), fake.users.admin);
    expect(rows.find((r) => r.jobId === jobIdOf(result))).toMatchObject({
      channel: fake.channel.name,
      channelId: fake.channel.id,
    });
    expect(rows.some((r) => r.channelId === fake.dmChannel(mia.id))).toBe(false);
  });

  it("is held to a role's budget too: the DM's click carries no server roles, so they are read from the server", async () => {
    const { fake } = world();
    // Admins hold the seeded Admins role; a click in the DM is no admin's, and has no roles of its own.
    const ada = fake.addUser("ada", { admin: true });
    const saved = await world().run({
      name: "budget",
      options: { role: fake.roles.admin.id, jobs: 1 },
      user: fake.users.admin,
    });
    expect(shown(saved)).toContain("Role @Admins");
    // Ada's private image (in a channel without a budget of its own) is the role's one job.
    const made = world().creations(IMAGE).length;
    const result = await inDm(ada, "an admin's kite", (await fake.addChannel("studio")).id);
    expect(world().creations(IMAGE)).toHaveLength(made + 1);
    const members = fake.calls.filter((c) => c.path === `/guilds/${fake.guild.id}/members/${ada.id}`).length;

    const regenerate = async () => {
      const click = await fake.clickButton(result, world().controlId(result, "regenerate"), ada);
      return world().until(() => fake.followups(click.id)[0]);
    };
    expect(shown(await regenerate())).toContain(
      "This would go over the budget of a role you have: 1 of 1 jobs used this period",
    );
    await noLateCall(world(), made + 1, regenerate);
    // Her roles were read from the server with the bot's token.
    expect(
      fake.calls.filter((c) => c.path === `/guilds/${fake.guild.id}/members/${ada.id}`).length,
    ).toBeGreaterThan(members);
  });
});

describe("a user install, where the person is their own tenant", () => {
  const world = worldPerDescribe({
    globalCommands: true,
    // The operator lets "other" spend the bot's key as their own tenant.
    apiKeyTenants: (fake) => [fake.guild.id, fake.users.other.id],
  });

  it("files the spending in the person's own tenant, under the channel it was asked in, and in no server's", async () => {
    const { fake } = world();
    const { channel: noBot } = await fake.addGuild("Friends, no bot", { bot: false });
    const other = fake.users.other;
    fake.installForUser(other);
    const done = await world().jobMessage(
      await world().command({ ...image("a kite among friends", other), channelId: noBot.id }),
    );
    expect(world().creations(IMAGE)).toHaveLength(1);

    const usage = await world().run({ name: "usage", user: other, guild: false });
    expect(usage.embeds[0]?.fields?.find((f) => f.name === "Spent through the bot this period")?.value).toBe(
      "1 credit, 1 job",
    );
    const own = await exported(world(), other, { guild: false });
    // The bot cannot see that server's channel: its id stands, its name is left empty.
    expect(own).toEqual([
      expect.objectContaining({
        person: "Other",
        personId: other.id,
        channel: "",
        channelId: noBot.id,
        jobId: jobIdOf(done),
      }),
    ]);
    // The server that added the bot did not spend it.
    expect(await exported(world(), fake.users.admin)).toEqual([]);
  });
});
