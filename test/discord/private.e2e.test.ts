import type { APIMessage } from "discord-api-types/v10";
import { afterEach, describe, expect, it } from "vitest";
import { TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, ended, isEphemeral, shown } from "./harness.js";

/**
 * Private results on Discord (`delivery: private`): the job's message is ephemeral from the first
 * response to the result, its buttons work and keep their results private, a job outliving the
 * interaction token ends in the person's DM saying why, and a server whose admin turned private
 * results off refuses them before anything is spent.
 */

let world: DiscordWorld;
discordWorldPerFile((started) => {
  world = started;
});

const tenant = () => ({ platform: "discord" as const, tenantId: world.fake.guild.id });
afterEach(async () => {
  await world.stores.tenants.update(tenant(), { defaults: {}, privateResults: "allowed" });
});

/** What everyone sees in the channel: its messages that are not ephemeral. */
const publicIds = () =>
  world.fake
    .messages()
    .filter((m) => !isEphemeral(m))
    .map((m) => m.id);

const image = (prompt: string, extra: Record<string, string | number> = {}) => ({
  name: "image",
  subcommand: "generate",
  options: { prompt, ...extra },
});

/** The message with this id once it shows `match`. */
const current = (id: string, match: (m: APIMessage) => boolean = ended) =>
  world.until(() => {
    const message = world.fake.message(id);
    return message && match(message) ? message : undefined;
  });

describe("delivery private", () => {
  it("answers privately from the first response to the result; the channel shows nothing", async () => {
    const before = publicIds();
    const interaction = await world.command(image("a secret fox", { delivery: "private" }));

    const first = await world.firstResponse(interaction);
    expect(first).toMatchObject({ type: 5, data: { flags: 64 } });
    const done = await world.jobMessage(interaction);
    expect(isEphemeral(done)).toBe(true);
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(shown(done)).toContain("a secret fox");
    expect(world.creations("/api/image/generate").at(-1)?.json).toMatchObject({ prompt: "a secret fox" });
    // No ready notice either: nothing at all was posted in the channel.
    expect(publicIds()).toEqual(before);
  });

  it("made private by a default only: the public placeholder goes, the job continues ephemerally", async () => {
    await world.stores.tenants.update(tenant(), { defaults: { delivery: "private" } });
    const before = publicIds();
    const interaction = await world.command(image("a quiet owl"));

    // The default is read after the ack: the placeholder was public, and is deleted.
    expect((await world.firstResponse(interaction)).data).not.toMatchObject({ flags: 64 });
    const followup = await world.until(() => world.fake.followups(interaction.id)[0]);
    expect(isEphemeral(followup)).toBe(true);
    const done = await current(followup.id);
    expect(shown(done)).toContain("a quiet owl");
    expect(world.fake.original(interaction.id)).toBeUndefined();
    expect(publicIds()).toEqual(before);
  });

  it("a job outliving the interaction token ends in the person's DM, saying why", async () => {
    world.emu.planNextJob("image", { durationMs: 1500 });
    const dm = world.fake.dmChannel(world.fake.users.requester.id);
    const inDm = world.fake.messages(dm).length;
    const before = publicIds();
    const interaction = await world.command(image("a long night", { delivery: "private" }));
    const working = await world.jobMessage(interaction, (m) =>
      /Working/.test(m.embeds[0]?.description ?? ""),
    );
    expect(shown(working)).toContain("if the job takes longer, it continues in your DM with the bot.");
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1000);

    const result = await world.until(() => world.fake.messages(dm)[inDm]);
    const done = await current(result.id);
    expect(shown(done)).toContain(
      `Your private job from <#${world.fake.channel.id}>: its message there could no longer be updated`,
    );
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(done.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
    // The ephemeral message stays where the token left it; the channel saw nothing.
    expect(ended(world.fake.message(working.id)!)).toBe(false);
    expect(publicIds()).toEqual(before);

    // Its buttons work in the DM (which belongs to no server): the new job is private there too.
    const click = await world.fake.clickButton(done, world.controlId(done, "regenerate"));
    const again = await world.until(() => world.fake.followups(click.id)[0]);
    expect(again.channel_id).toBe(dm);
    expect(isEphemeral(again)).toBe(true);
    expect(shown(await current(again.id))).toContain("a long night");
    expect(publicIds()).toEqual(before);
  });

  it("a private job resumed after a restart finishes in its private message", async () => {
    world.emu.planNextJob("image", { durationMs: 1500 });
    const before = publicIds();
    const interaction = await world.command(image("a night shift", { delivery: "private" }));
    await world.jobMessage(interaction, (m) => /Working/.test(m.embeds[0]?.description ?? ""));
    await world.restart();

    const done = await world.jobMessage(interaction);
    expect(isEphemeral(done)).toBe(true);
    expect(shown(done)).toContain("a night shift");
    expect(publicIds()).toEqual(before);
  });

  it("a click on a private result's button starts a private job", async () => {
    const result = await world.jobMessage(
      await world.command(image("a hidden lake", { delivery: "private", seed: 3 })),
    );
    const before = publicIds();
    const made = world.creations("/api/image/generate").length;

    const click = await world.fake.clickButton(result, world.controlId(result, "regenerate"));
    const again = await world.until(() => world.fake.followups(click.id)[0]);
    expect(isEphemeral(again)).toBe(true);
    const done = await current(again.id);
    expect(shown(done)).toContain("a hidden lake");
    const calls = world.creations("/api/image/generate").slice(made);
    // Regenerate asks again with a new seed.
    expect(calls.map((c) => c.json)).toEqual([
      { prompt: "a hidden lake", name: "a hidden lake", seed: expect.any(Number) },
    ]);
    expect(calls[0]?.json).not.toMatchObject({ seed: 3 });
    expect(publicIds()).toEqual(before);
  });

  it("a follow-up's form on a private result answers privately too", async () => {
    const result = await world.jobMessage(
      await world.command(image("a still pond", { delivery: "private" })),
    );
    const before = publicIds();
    const click = await world.fake.clickButton(result, world.controlId(result, "edit"));
    const modal = (await world.firstResponse(click)).data as { custom_id: string };
    const submitted = await world.fake.submitModal(modal.custom_id, { prompt: "add a heron" });

    expect(await world.firstResponse(submitted)).toMatchObject({ type: 5, data: { flags: 64 } });
    const done = await world.jobMessage(submitted);
    expect(isEphemeral(done)).toBe(true);
    expect(shown(done)).toContain("add a heron");
    expect(publicIds()).toEqual(before);
  });
});

describe("a server that forbids private results", () => {
  it("refuses a command that asks for one before any creation call", async () => {
    const saved = await world.run({
      name: "setup",
      options: { private_results: "forbidden" },
      user: world.fake.users.admin,
    });
    expect(shown(saved)).toContain("Forbidden: every job shows in its channel");
    const made = world.emu.calls.filter((c) => c.method === "POST").length;

    const refused = await world.run(image("a secret", { delivery: "private" }));
    expect(isEphemeral(refused)).toBe(true);
    expect(shown(refused)).toContain(
      "This server shows every job in its channel; private results are turned off by an admin.",
    );
    expect(world.emu.calls.filter((c) => c.method === "POST").length).toBe(made);
  });

  it("shows a job private only by default in the channel, and says why in its footer", async () => {
    await world.stores.tenants.update(tenant(), {
      defaults: { delivery: "private" },
      privateResults: "forbidden",
    });
    const done = await world.jobMessage(await world.command(image("an open sky")));
    expect(isEphemeral(done)).toBe(false);
    expect(done.embeds[0]?.footer?.text).toContain(
      "Shown in the channel: an admin turned private results off here.",
    );
  });
});
