import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../fakes/slack/index.js";
import { actionIds, headerOf, jobIdOf, type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * Private results in Slack (`--delivery private`): the job's message lives in the person's DM
 * with the bot and is updated there like any message, the channel shows nothing (the person alone
 * is told where to look), the buttons of the result work from the DM and keep their jobs there,
 * and a workspace whose admin turned private results off refuses them before anything is spent.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

const tenant = () => ({ platform: "slack" as const, tenantId: world.fake.teamId });
afterEach(async () => {
  await world.stores.tenants.update(tenant(), { defaults: {}, privateResults: "allowed" });
});

const inChannel = () => world.fake.messages(world.fake.channelId).map((m) => m.ts);

/** The bot's DM with the requester, where the bot posted into it. */
const dm = () =>
  world.until(() => {
    const call = world.fake.calls.find(
      (c) => c.method === "chat.postMessage" && String(c.args.channel).startsWith("D"),
    );
    return call && String(call.args.channel);
  });

/** The `index`th job message in the DM, once its job ended. */
async function privateJob(index: number): Promise<Message> {
  const channel = await dm();
  return world.until(() => {
    const message = world.fake.messages(channel).filter((m) => jobIdOf(m) && !m.thread_ts)[index];
    return message && headerOf(message)?.startsWith("✅") ? message : undefined;
  });
}

const jobsInDm = async () =>
  world.fake.messages(await dm().catch(() => "none")).filter((m) => jobIdOf(m) && !m.thread_ts).length;

describe("--delivery private", () => {
  it("runs the job in the person's DM with the bot; the channel shows nothing", async () => {
    const before = inChannel();
    const pointers = world.ephemeralTexts().length;
    await world.command("image generate a secret fox --delivery private");

    const done = await privateJob(0);
    expect(headerOf(done)).toMatch(/^✅ Image: a secret fox/);
    expect(world.creations("/api/image/generate").at(-1)?.json).toMatchObject({ prompt: "a secret fox" });
    // Its image is uploaded into the DM's thread, like any result's.
    const channel = await dm();
    await world.until(() => world.fake.uploads.find((u) => u.channel === channel && u.threadTs === done.ts));
    const pointer = await world.until(() => world.ephemeralTexts()[pointers]);
    expect(pointer).toContain("Working on it privately");
    expect(pointer).toContain(`https://slack.com/archives/${await dm()}/p`);
    expect(inChannel()).toEqual(before);
  });

  it("a private job resumed after a restart finishes in the DM", async () => {
    world.emu.planNextJob("image", { durationMs: 1500 });
    const before = inChannel();
    const index = await jobsInDm();
    await world.command("image generate a night shift --delivery private");
    const channel = await dm();
    await world.until(() => world.fake.messages(channel).filter((m) => jobIdOf(m) && !m.thread_ts)[index]);
    await world.restart();

    const done = await privateJob(index);
    expect(shown(done)).toContain("a night shift");
    expect(inChannel()).toEqual(before);
  });

  it("private by a default only: the same, with nothing in the channel", async () => {
    await world.stores.tenants.update(tenant(), { defaults: { delivery: "private" } });
    const before = inChannel();
    const index = await jobsInDm();
    await world.command("image generate a quiet owl");
    const done = await privateJob(index);
    expect(shown(done)).toContain("a quiet owl");
    expect(inChannel()).toEqual(before);
  });

  it("a button of the private result works from the DM, and its job stays there", async () => {
    const index = await jobsInDm();
    await world.command("image generate a hidden lake --delivery private --seed 3");
    const result = await privateJob(index);
    const before = inChannel();
    const made = world.creations("/api/image/generate").length;

    const regenerate = actionIds(result).find((id) => id.startsWith("media:regenerate:"));
    await world.fake.blockAction(world.eventsUrl, {
      actionId: regenerate!,
      message: result.ts,
      channel: await dm(),
      user: world.fake.users.requester.id,
    });
    const again = await privateJob(index + 1);
    expect(shown(again)).toContain("a hidden lake");
    expect(
      world
        .creations("/api/image/generate")
        .slice(made)
        .map((c) => c.json),
    ).toEqual([{ prompt: "a hidden lake", name: "a hidden lake", seed: expect.any(Number) }]);
    expect(inChannel()).toEqual(before);
  });
});

describe("a workspace that forbids private results", () => {
  it("refuses a command that asks for one before any creation call", async () => {
    // Setup opens its form (an API key is only ever typed there), filled from the command line.
    const admin = world.fake.users.admin.id;
    const answers = world.ephemeralTexts(admin).length;
    const view = await world.openForm("setup --private_results forbidden", admin);
    await world.submit(view, { private_results: "forbidden" });
    const saved = await world.until(() => world.ephemeralTexts(admin)[answers]);
    expect(saved).toContain("Forbidden: every job shows in its channel");
    const posts = world.emu.calls.filter((c) => c.method === "POST").length;

    const refused = await world.answer("image generate a secret --delivery private");
    expect(refused).toContain(
      "This workspace shows every job in its channel; private results are turned off by an admin.",
    );
    expect(world.emu.calls.filter((c) => c.method === "POST").length).toBe(posts);
  });

  it("shows a job private only by default in the channel, and says why under it", async () => {
    await world.stores.tenants.update(tenant(), {
      defaults: { delivery: "private" },
      privateResults: "forbidden",
    });
    await world.command("image generate an open sky");
    const done = await world.until(() =>
      world.channelMessages().find((m) => headerOf(m) === "✅ Image: an open sky"),
    );
    const footer = done.blocks.at(-1);
    expect(JSON.stringify(footer)).toMatch(
      /"text":"Job [\w-]+ · Shown in the channel: an admin turned private results off here."/,
    );
  });
});
