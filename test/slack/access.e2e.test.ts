import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { FakeSlack, Message, SlackView } from "../fakes/slack/index.js";
import { postSigned } from "../fakes/slack/signing.js";
import { type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * The workspace's allow-lists stop every way into the bot, not only `/media`: the Regenerate
 * button and the Animate form of results posted before an admin moved the bot to another
 * channel, a form submitted there, and the avatar list a form's select loads.
 */

let fake: FakeSlack;
let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
  fake = started.fake;
});

const tenant = () => ({ platform: "slack" as const, tenantId: fake.teamId });
const NOT_HERE = "The bot is not enabled in this channel";

const actionOf = (message: Message, action: string) =>
  JSON.stringify(message.blocks).match(new RegExp(`"action_id":"(media:${action}:[^"]+)"`))?.[1];

/** The next private answer the requester gets after `gesture`. */
async function privateAnswer(gesture: () => Promise<unknown>): Promise<string> {
  const before = world.ephemeralTexts().length;
  await gesture();
  return world.until(() => world.ephemeralTexts()[before]);
}

async function limitToAnotherChannel(): Promise<void> {
  const elsewhere = fake.addChannel(`elsewhere-${Date.now()}`);
  await world.stores.tenants.update(tenant(), { allowedChannelIds: [elsewhere] });
}

afterEach(async () => {
  await world.stores.tenants.update(tenant(), { allowedChannelIds: [], allowedRoleIds: [] });
});

describe("after an admin limits the bot to another channel", () => {
  let image: Message;
  let mockup: Message;

  beforeAll(async () => {
    image = await world.job("image generate a kite before the move");
    const view = await world.openForm("mockup generate logo on the mug");
    const before = world.jobCount();
    await world.submit(view, { product: [world.png("mug.png")], instruction: "logo on the mug" });
    mockup = await world.finished((await world.jobMessage(before)).ts);
  });

  it("refuses /media in the old channel", async () => {
    await limitToAnotherChannel();
    expect(await world.answer("image generate x")).toContain(NOT_HERE);
  });

  it("refuses the Regenerate button there, privately, without a new paid job", async () => {
    await limitToAnotherChannel();
    const made = world.creations("/api/image/generate").length;
    const answer = await privateAnswer(() =>
      fake.blockAction(world.eventsUrl, { actionId: actionOf(image, "regenerate")!, message: image.ts }),
    );
    expect(answer).toContain(NOT_HERE);
    expect(world.creations("/api/image/generate")).toHaveLength(made);
  });

  it("refuses the Animate form there without a mockup video", async () => {
    await limitToAnotherChannel();
    const views = fake.views.length;
    await fake.blockAction(world.eventsUrl, {
      actionId: actionOf(mockup, "animate_mockup")!,
      message: mockup.ts,
    });
    const form = await world.until(() => fake.views[views]);
    const answer = await privateAnswer(() => world.submit(form, { style: "luxury_macro" }));
    expect(answer).toContain(NOT_HERE);
    expect(world.creations("/api/mockup/video")).toEqual([]);
  });

  it("refuses a form submitted there", async () => {
    const view = await world.openForm("image edit make it snow");
    await limitToAnotherChannel();
    const answer = await privateAnswer(() =>
      world.submit(view, { image: [world.png()], prompt: "make it snow" }),
    );
    expect(answer).toContain(NOT_HERE);
    expect(world.creations("/api/image/edit")).toEqual([]);
  });
});

describe("a form's avatar select", () => {
  /** What Slack's external select gets while someone types in the form's avatar field. */
  async function avatarOptions(view: SlackView): Promise<unknown[]> {
    const payload = {
      type: "block_suggestion",
      action_id: "avatar",
      block_id: "avatar",
      value: "",
      api_app_id: fake.appId,
      team: { id: fake.teamId, domain: "fake" },
      user: { id: fake.users.requester.id, name: "requester", team_id: fake.teamId },
      container: { type: "view", view_id: view.id },
      view: { ...view, state: { values: {} } },
    };
    const answer = await postSigned(
      world.eventsUrl,
      { payload: JSON.stringify(payload) },
      fake.signingSecret,
    );
    return (answer.body as { options: unknown[] }).options;
  }

  it("offers no avatars in a channel the bot is not enabled in", async () => {
    const view = await world.openForm("video avatar");
    expect((await avatarOptions(view)).length).toBeGreaterThan(0);
    await limitToAnotherChannel();
    expect(await avatarOptions(view)).toEqual([]);
  });
});
