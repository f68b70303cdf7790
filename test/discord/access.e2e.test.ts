import type { APIMessage } from "discord-api-types/v10";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { InjectedInteraction } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * The tenant's allow-lists stop every way into the bot, not only slash commands: the Regenerate
 * button and the Animate select of results posted before an admin moved the bot to another
 * channel, a form submitted there, and autocomplete for a member outside the allowed roles.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

const tenant = () => ({ platform: "discord" as const, tenantId: world.fake.guild.id });
const NOT_HERE = "The bot is not enabled in this channel";

/** The private answer to a click (a followup, since a click's reply is the message it updates). */
const clickAnswer = (click: InjectedInteraction) => world.until(() => world.fake.followups(click.id)[0]);

async function finishedJob(
  name: string,
  subcommand: string,
  input: Omit<Parameters<DiscordWorld["command"]>[0], "name" | "subcommand">,
) {
  return world.jobMessage(await world.command({ name, subcommand, ...input }));
}

afterEach(async () => {
  await world.stores.tenants.update(tenant(), { allowedChannelIds: [], allowedRoleIds: [] });
});

describe("after an admin limits the bot to another channel", () => {
  let image: APIMessage;
  let mockup: APIMessage;

  beforeAll(async () => {
    image = await finishedJob("image", "generate", { options: { prompt: "a fox before the move" } });
    mockup = await finishedJob("mockup", "generate", {
      options: { instruction: "logo on the mug" },
      attachments: [{ ...world.png("mug.png"), option: "product" }],
    });
  });

  const limitToAnotherChannel = async () => {
    const elsewhere = await world.fake.addChannel(`elsewhere-${Date.now()}`);
    await world.stores.tenants.update(tenant(), { allowedChannelIds: [elsewhere.id] });
  };

  it("refuses a slash command in the old channel", async () => {
    await limitToAnotherChannel();
    const answer = await world.run({ name: "image", subcommand: "generate", options: { prompt: "x" } });
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain(NOT_HERE);
  });

  it("refuses the Regenerate button there, privately, without a new paid job; an admin still may", async () => {
    await limitToAnotherChannel();
    const made = world.creations("/api/image/generate").length;

    const answer = await clickAnswer(
      await world.fake.clickButton(image, world.controlId(image, "regenerate")),
    );
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain(NOT_HERE);
    expect(world.creations("/api/image/generate")).toHaveLength(made);

    // Admins pass the allow-lists (so they can repair them): the same button works for them.
    await world.fake.clickButton(image, world.controlId(image, "regenerate"), world.fake.users.admin);
    await world.until(() => world.creations("/api/image/generate").length === made + 1);
  });

  it("refuses the Animate select there without a mockup video", async () => {
    await limitToAnotherChannel();
    const select = await world.fake.selectMenu(mockup, world.controlId(mockup, "animate"), ["luxury_macro"]);
    const answer = await clickAnswer(select);
    expect(shown(answer)).toContain(NOT_HERE);
    expect(world.creations("/api/mockup/video")).toEqual([]);
  });

  it("refuses a form submitted there", async () => {
    const command = await world.command({
      name: "photo_avatar",
      subcommand: "design",
      options: { name: "Moved" },
    });
    const customId = ((await world.firstResponse(command)).data as { custom_id: string }).custom_id;
    await limitToAnotherChannel();
    const answer = await world.answer(await world.fake.submitModal(customId, { gender: "female" }));
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain(NOT_HERE);
    expect(world.creations("/api/avatar/design/create")).toEqual([]);
  });
});

describe("a member outside the allowed roles", () => {
  const avatarChoices = async (user?: string) => {
    const typed = await world.fake.sendAutocomplete({
      name: "video",
      subcommand: "avatar",
      focused: "avatar",
      value: "",
      options: { script: "hi" },
      ...(user && { user }),
    });
    return ((await world.firstResponse(typed)).data as { choices: unknown[] }).choices;
  };

  it("gets no autocomplete choices, so the tenant's avatar list stays hidden from them", async () => {
    expect((await avatarChoices()).length).toBeGreaterThan(0);
    await world.stores.tenants.update(tenant(), { allowedRoleIds: [world.fake.roles.admin.id] });

    expect(await avatarChoices()).toEqual([]);
    // The admin holds the allowed role: the same list still shows for them.
    expect((await avatarChoices(world.fake.users.admin.id)).length).toBeGreaterThan(0);
  });
});
