import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.js";
import { actionIds, headerOf, jobIdOf, type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/** Photo-avatar variants: Keep 1, Keep 2, Keep both, a double click, and someone else's click. */

let fake: FakeSlack;
let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
  fake = started.fake;
});

const confirms = () => world.creations("/api/avatar/design/confirm");
const confirmBoths = () => world.creations("/api/avatar/design/confirm-both");

/** Starts a design job and resolves with its message once both variants and the buttons are shown. */
async function variants(name: string) {
  const before = world.channelMessages().length;
  await world.command(`photo_avatar design ${name} --gender female --portrait`);
  const job = await world.until(
    () =>
      world
        .channelMessages()
        .slice(before)
        .find((m) => jobIdOf(m)),
    5_000,
  );
  return world.shows(job.ts, (m) => actionIds(m).length === 3);
}

function click(ts: string, keep: "1" | "2" | "both", user = fake.users.requester.id) {
  const message = fake.messages().find((m) => m.ts === ts)!;
  const actionId = actionIds(message).find((id) =>
    keep === "both" ? id.startsWith("media:confirm_both:") : id.endsWith(`:${keep}`),
  );
  return fake.blockAction(world.eventsUrl, { actionId: actionId!, message: ts, user });
}

describe("photo-avatar variants in Slack", () => {
  it("shows both previews as images with Keep 1, Keep 2 and Keep both", async () => {
    const message = await variants("Anna");

    expect(message.blocks.filter((b) => b.type === "image")).toHaveLength(2);
    const id = jobIdOf(message)!;
    expect(actionIds(message)).toEqual([
      `media:confirm:${id}:1`,
      `media:confirm:${id}:2`,
      `media:confirm_both:${id}`,
    ]);
    expect(world.creations("/api/avatar/design/create")[0]?.json).toMatchObject({
      name: "Anna",
      design: { gender: "female", isPortrait: true },
    });
  });

  it("refuses another user's click, then confirms a requester's double click once", async () => {
    const message = await variants("Bea");
    const before = confirms().length;

    const refused = await click(message.ts, "1", fake.users.other.id);
    await world.until(() => world.ephemeralTexts(fake.users.other.id).length > 0);
    const answers = await Promise.all([click(message.ts, "1"), click(message.ts, "1")]);
    const done = await world.finished(message.ts);

    expect(refused.status).toBe(200);
    expect(world.ephemeralTexts(fake.users.other.id).at(-1)).toContain(
      `Only <@${fake.users.requester.id}>, who started this job, or an admin can use its buttons.`,
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(
      confirms()
        .slice(before)
        .map((c) => c.json),
    ).toEqual([expect.objectContaining({ variant: 1 })]);
    expect(headerOf(done)).toBe("✅ Photo avatar: Bea");
    // The Keep buttons are gone; what is left leads on (a video with the new avatar), and Delete.
    expect(actionIds(done)).toEqual([
      `media:avatar_video:${jobIdOf(done)}:1`,
      `media:delete_result:${jobIdOf(done)}`,
    ]);
    expect(shown(done)).toContain("Avatar id");
  });

  it("lets an admin keep variant 2 for the requester", async () => {
    const message = await variants("Cleo");
    const before = confirms().length;

    await click(message.ts, "2", fake.users.admin.id);
    await world.finished(message.ts);

    expect(
      confirms()
        .slice(before)
        .map((c) => c.json),
    ).toEqual([expect.objectContaining({ variant: 2 })]);
  });

  it("keeps both, and a simultaneous Keep 1 does not confirm as well", async () => {
    const message = await variants("Dora");
    const [single, both] = [confirms().length, confirmBoths().length];

    await Promise.all([click(message.ts, "both"), click(message.ts, "1")]);
    const done = await world.finished(message.ts);

    const keptBoth = confirmBoths().length - both;
    expect(confirms().length - single + keptBoth).toBe(1);
    expect(shown(done)).toContain(keptBoth ? "Avatar 2 id" : "Avatar id");
  });
});
