import type { APIMessage } from "discord-api-types/v10";
import { afterEach, describe, expect, it } from "vitest";
import { type RestCall, TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, ended, isEphemeral, shown } from "./harness.js";

/**
 * Results against Discord's upload limits, which depend on who uploads: through the interaction's
 * token, its `attachment_size_limit` (the larger of the requester's Nitro and the server's boost);
 * with the bot token (past the token's 15 minutes, in a DM) the bot's own, 10 MiB unless the
 * server is boosted. A result over the limit of the credential that delivers it is its link, said
 * plainly, never an upload Discord refuses again and again; one Discord refuses anyway (40005)
 * becomes its link once. Each result is fetched from the service once.
 */

const MiB = 1024 * 1024;
let world: DiscordWorld;

discordWorldPerFile(
  (started) => {
    world = started;
  },
  {
    emulator: { largeVideoBytes: 11 * MiB },
    // Global commands reach the DM with the bot, where the requester is their own tenant.
    globalCommands: true,
    apiKeyTenants: (fake) => [fake.guild.id, fake.users.requester.id],
  },
);
afterEach(() => {
  world.fake.setNitro(world.fake.users.requester, "none");
});

const DONE_COLOUR = 0x57f287;
const video = (extra: Record<string, string> = {}) => ({
  name: "video",
  subcommand: "avatar",
  options: { avatar: "cm2yaz9j10008l0qg9npyjgs3", script: "Hi", ...extra },
});
const working = (m: APIMessage) => /Working/.test(m.embeds[0]?.description ?? "");
const jobIdOf = (message: APIMessage) => /^Job (\S+)/.exec(message.embeds[0]?.footer?.text ?? "")?.[1];
/** The service's result downloads so far. */
const downloads = () => world.emu.callsTo("GET", /^\/(storage\/files\/|api\/video\/[^/]+\/download$)/).length;
/** Calls that carried a finished job's card. */
const results = (calls: RestCall[]) =>
  calls.filter((c) => (c.json as { embeds?: { color?: number }[] })?.embeds?.[0]?.color === DONE_COLOUR);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A long video job by a requester with Nitro, past its interaction token's 15 minutes. */
async function nitroVideoPastToken(extra: Record<string, string> = {}) {
  world.fake.setNitro(world.fake.users.requester, "nitro");
  world.emu.planNextJob("video", { large: true, durationMs: 1_500 });
  const interaction = await world.command(video(extra));
  expect(interaction.payload.attachment_size_limit).toBe(500 * MiB);
  const running = await world.jobMessage(interaction, working);
  world.fake.clock.advance(TOKEN_LIFETIME_MS + 1_000);
  return { interaction, running, from: world.fake.calls.length, fetched: downloads() };
}

describe("a Nitro requester's result over the bot's own limit", () => {
  it("is attached through the interaction while its token lives", async () => {
    world.fake.setNitro(world.fake.users.requester, "nitro");
    world.emu.planNextJob("video", { large: true });
    const fetched = downloads();
    const done = await world.jobMessage(await world.command(video()));
    expect(done.attachments.map((a) => [a.content_type, a.size])).toEqual([["video/mp4", 11 * MiB]]);
    expect(downloads()).toBe(fetched + 1);
  });

  it("past 15 minutes, is the bot-token edit's link with the reason, once, without a refused upload", async () => {
    const { interaction, running, from, fetched } = await nitroVideoPastToken();
    const notices = world.notices().length;

    const done = await world.jobMessage(interaction);
    await world.until(() => world.notices()[notices]);
    await pause(300);

    expect(done.id).toBe(running.id);
    expect(done.attachments).toEqual([]);
    expect(shown(done)).toContain(
      "The video is 11 MB, more than the 10 MB this conversation accepts, so it is not attached: use the download link (valid for about a day).",
    );
    expect(shown(done)).toMatch(/\[Download the video\]\(http:\/\/127\.0\.0\.1:\d+\/storage\/files\//);
    const later = world.fake.calls.slice(from);
    expect(later.filter((c) => c.status >= 400)).toEqual([]);
    expect(results(later)).toMatchObject([
      { method: "PATCH", route: "/channels/:channel_id/messages/:message_id", status: 200, files: [] },
    ]);
    expect(downloads()).toBe(fetched + 1);
  });

  it("past 15 minutes of a private job, comes to the DM as its link, once", async () => {
    const dm = world.fake.dmChannel(world.fake.users.requester.id);
    const inDm = world.fake.messages(dm).length;
    const { running, from, fetched } = await nitroVideoPastToken({ delivery: "private" });
    expect(isEphemeral(running)).toBe(true);

    const result = await world.until(() => world.fake.messages(dm)[inDm]);
    await pause(300);

    expect(world.fake.messages(dm).slice(inDm)).toEqual([result]);
    expect(result.embeds[0]?.color).toBe(DONE_COLOUR);
    expect(result.attachments).toEqual([]);
    expect(shown(result)).toContain("more than the 10 MB this conversation accepts, so it is not attached");
    expect(world.fake.calls.slice(from).filter((c) => c.status >= 400)).toEqual([]);
    expect(downloads()).toBe(fetched + 1);
  });

  it("in the person's DM with the bot past 15 minutes, is the link too", async () => {
    world.fake.setNitro(world.fake.users.requester, "nitro");
    world.emu.planNextJob("video", { large: true, durationMs: 1_500 });
    const command = await world.command({ ...video(), guild: false });
    const running = await world.jobMessage(command, working);
    expect(running.channel_id).toBe(world.fake.dmChannel(world.fake.users.requester.id));
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1_000);
    const from = world.fake.calls.length;

    const done = await world.jobMessage(command);
    await pause(300);
    expect(done.id).toBe(running.id);
    expect(done.attachments).toEqual([]);
    expect(shown(done)).toContain("more than the 10 MB this conversation accepts, so it is not attached");
    expect(world.fake.calls.slice(from).filter((c) => c.status >= 400)).toEqual([]);
  });
});

describe("a result Discord refuses as too large all the same (40005)", () => {
  it("becomes its link once, with why, and the refused upload is not sent again", async () => {
    world.emu.planNextJob("image", { durationMs: 1_500 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox Discord will not take" },
    });
    const running = await world.jobMessage(interaction, working);
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1_000);
    const from = world.fake.calls.length;
    const fetched = downloads();
    world.fake.fail({
      method: "PATCH",
      path: new RegExp(`^/channels/\\d+/messages/${running.id}$`),
      status: 413,
      code: 40005,
      message: "Request entity too large",
      withFiles: true,
    });

    const done = await world.jobMessage(interaction);
    await pause(400);

    expect(done.attachments).toEqual([]);
    expect(shown(done)).toMatch(
      /Discord refused the file as larger than it takes from the bot here\. It is not attached: use the download link instead \(valid for about a day\)\./,
    );
    expect(shown(done)).toMatch(/\[Download the image\]\(http:\/\/127\.0\.0\.1:\d+\/storage\/files\//);
    const edits = results(world.fake.calls.slice(from));
    expect(edits.map((c) => [c.status, c.files.length])).toEqual([
      [413, 1],
      [200, 0],
    ]);
    expect(jobIdOf(done)).toBeDefined();
    expect((await world.stores.jobs.get(jobIdOf(done)!))?.error).toBeNull();
    expect(downloads()).toBe(fetched + 1);
    expect(ended(done)).toBe(true);
  });
});
