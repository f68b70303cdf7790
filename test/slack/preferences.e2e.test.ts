import { describe, expect, it } from "vitest";
import { PRESET_LIMIT } from "../../src/core/preferences/presets.js";
import type { Message } from "../fakes/slack/index.js";
import { actionIds, type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * Defaults and presets in Slack: a person's default fills what they leave out and the result says
 * so (also in a follow-up's job), Save as preset keeps a result's settings for `--preset`, an
 * admin's published preset serves everyone, and the limit is told.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

const person = (userId: string) => ({ platform: "slack" as const, tenantId: world.fake.teamId, userId });

/** The recipe's entries of a result: "*Aspect ratio:* 16:9 (your default)". */
function recipe(message: Message): string[] {
  const context = message.blocks.find((b) => b.type === "context" && JSON.stringify(b).includes("Prompt"));
  return (context as { elements: { text: string }[] }).elements.map((e) => e.text);
}

/** Clicks a result's `action` as `user` and resolves with the form Slack shows. */
async function open(message: Message, action: string, user: string) {
  const actionId = actionIds(message).find((id) => id.startsWith(`media:${action}:`));
  expect(actionId).toBeDefined();
  const before = world.fake.views.length;
  await world.fake.blockAction(world.eventsUrl, { actionId: actionId!, message: message.ts, user });
  return world.until(() => world.fake.views[before]);
}

describe("defaults and presets in Slack", () => {
  it("fills a left-out option from the person's default, in a command and in a follow-up's job", async () => {
    const user = world.fake.addUser("wide").id;
    await world.stores.preferences.update(person(user), () => ({
      defaults: { aspect_ratio: "16:9", negative_prompt: "blur" },
      presets: [],
    }));
    const image = await world.job("image generate a wide valley", user);
    expect(world.creations("/api/image/generate").at(-1)?.json).toEqual({
      prompt: "a wide valley",
      name: "a wide valley",
      aspectRatio: "16:9",
      negativePrompt: "blur",
    });
    expect(recipe(image)).toEqual([
      "*Prompt:* a wide valley",
      "*Negative prompt:* blur (your default)",
      "*Aspect ratio:* 16:9 (your default)",
    ]);

    // Edit asks only the prompt: the settings it does not ask come from the same defaults.
    const view = await open(image, "edit", user);
    const before = world.jobCount();
    await world.submit(view, { prompt: "at night" });
    const edited = await world.finished((await world.jobMessage(before)).ts);
    expect(world.creations("/api/image/edit").at(-1)?.json).toMatchObject({
      prompt: "at night",
      aspectRatio: "16:9",
      negativePrompt: "blur",
    });
    expect(recipe(edited)).toContain("*Aspect ratio:* 16:9 (your default)");
  });

  it("saves a result's settings with Save as preset, and a later command uses them with --preset", async () => {
    const requester = world.fake.users.requester.id;
    const image = await world.job(
      "image generate a castle --aspect-ratio 4:3 --negative-prompt people --seed 9",
    );
    const view = await open(image, "save_preset", requester);
    expect((view.title as { text: string }).text).toBe("Save as preset");
    const before = world.ephemeralTexts(requester).length;
    expect((view.submit as { text: string }).text).toBe("Save");
    await world.submit(view, { name: "Castle" });
    const saved = await world.until(() => world.ephemeralTexts(requester)[before]);
    expect(saved).toContain("Preset Castle saved");
    // How to use it, as typed on Slack: not Discord's preset:Castle.
    expect(saved).toContain("Use it with --preset Castle");
    expect(saved).not.toContain("preset:");

    const used = await world.job("image generate a moat --preset castle");
    expect(world.creations("/api/image/generate").at(-1)?.json).toEqual({
      prompt: "a moat",
      name: "a moat",
      aspectRatio: "4:3",
      negativePrompt: "people",
    });
    expect(recipe(used)).toEqual([
      "*Prompt:* a moat",
      "*Negative prompt:* people (preset Castle)",
      "*Aspect ratio:* 4:3 (preset Castle)",
    ]);
  });

  it("lets an admin publish a preset that a member then uses", async () => {
    const { admin, other } = world.fake.users;
    expect(await world.answer("preset save House --aspect-ratio 1:1", admin.id)).toContain(
      "Preset House saved",
    );
    expect(await world.answer("preset publish House", admin.id)).toContain("Everyone here can use it now");
    expect(await world.answer("preset publish House", other.id)).toContain(
      "Only admins can use preset publish",
    );

    await world.job("image generate a logo wall --preset house", other.id);
    expect(world.creations("/api/image/generate").at(-1)?.json).toEqual({
      prompt: "a logo wall",
      name: "a logo wall",
      aspectRatio: "1:1",
    });
    const list = await world.answer("preset list", other.id);
    expect(list).toContain("House: aspect ratio 1:1");
    expect(list).toContain("The workspace's (1 of 25)");
    expect(list).not.toMatch(/server/i);
  });

  it(`refuses the ${PRESET_LIMIT + 1}th preset, naming the limit, an unknown one, and a video without any avatar`, async () => {
    const user = world.fake.addUser("collector").id;
    await world.stores.preferences.update(person(user), () => ({
      defaults: {},
      presets: Array.from({ length: PRESET_LIMIT }, (_, i) => ({
        name: `P${i}`,
        values: { aspect_ratio: "16:9" },
        from: null,
        createdAt: i,
      })),
    }));
    expect(await world.answer("preset save One-more --aspect-ratio 1:1", user)).toContain(
      "You have 25 presets, the most allowed (25): delete one first.",
    );
    const calls = world.creations(/./).length;
    const unknown = await world.answer("image generate a fox --preset Nope", user);
    expect(unknown).toContain('There is no preset "Nope". Your presets: P0, ');
    expect(unknown).toMatch(/\. The workspace's: [^.]+\. See the preset list command\./);
    expect(unknown).not.toMatch(/server/i);
    expect(world.creations(/./).length).toBe(calls);
  });
});
