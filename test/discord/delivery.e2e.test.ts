import { afterEach, describe, expect, it } from "vitest";
import { TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { until } from "../main-process.js";
import { jobsSettled } from "../settled.js";
import { type DiscordWorld, discordWorldPerFile, shown } from "./harness.js";

/**
 * Long jobs and big results: a job outliving its interaction token finishes through channel
 * edits with the bot token; a result over the upload limit becomes a link; a restart in the
 * middle of a job delivers it once.
 */

const MiB = 1024 * 1024;
let world: DiscordWorld;

discordWorldPerFile(
  (started) => {
    world = started;
  },
  { emulator: { largeVideoBytes: 11 * MiB } },
);
afterEach(() => {
  world.skew.ms = 0;
});

const working = (m: { embeds: { description?: string }[] }) => /Working/.test(m.embeds[0]?.description ?? "");
const video = {
  name: "video",
  subcommand: "avatar",
  options: { avatar: "cm2yaz9j10008l0qg9npyjgs3", script: "Hi" },
};
const callsSince = (index: number) => world.fake.calls.slice(index);

describe("a job longer than the interaction token", () => {
  it("moves to channel message edits with the bot token and still delivers, mentioning the requester", async () => {
    world.emu.planNextJob("video", { durationMs: 1500 });
    const interaction = await world.command(video);
    await world.jobMessage(interaction, working);
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1000);
    const from = world.fake.calls.length;
    const notices = world.notices().length;

    const done = await world.jobMessage(interaction);
    const notice = await world.until(() => world.notices()[notices]);

    expect(done.attachments.map((a) => a.content_type)).toEqual(["video/mp4"]);
    const later = callsSince(from);
    expect(later.filter((c) => c.route.startsWith("/webhooks"))).toEqual([]);
    expect(
      later.filter((c) => c.method === "PATCH" && c.route === "/channels/:channel_id/messages/:message_id"),
    ).not.toEqual([]);
    const post = later.find((c) => c.method === "POST" && c.route === "/channels/:channel_id/messages");
    expect(post?.json).toMatchObject({ nonce: expect.any(String), enforce_nonce: true });
    expect(notice.mentions.map((u) => u.id)).toEqual([world.fake.users.requester.id]);
    expect(shown(notice)).toContain("is ready");
  });

  it("falls back to the bot token when Discord refuses a token the bot's clock still thought alive", async () => {
    world.emu.planNextJob("video", { durationMs: 1500 });
    const interaction = await world.command(video);
    await world.jobMessage(interaction, working);
    world.skew.ms = 2 * 60_000;
    world.fake.clock.advance(TOKEN_LIFETIME_MS - 30_000 + 60_000);
    const from = world.fake.calls.length;
    const notices = world.notices().length;

    await world.jobMessage(interaction);
    await world.until(() => world.notices()[notices]);
    const later = callsSince(from);
    expect(later.find((c) => c.route.startsWith("/webhooks"))).toMatchObject({ status: 401, code: 50027 });
    expect(
      later.filter((c) => c.method === "PATCH" && c.route.startsWith("/channels") && c.status === 200),
    ).not.toEqual([]);
  });
});

describe("results bigger than the interaction accepts", () => {
  it("posts a link to the download with the reason instead of uploading", async () => {
    world.emu.planNextJob("video", { large: true });
    const notices = world.notices().length;
    const done = await world.jobMessage(await world.command(video));
    await world.until(() => world.notices()[notices]);
    expect(done.attachments).toEqual([]);
    const text = shown(done);
    expect(text).toContain("more than the 10 MB this conversation accepts, so it is not attached");
    expect(text).toMatch(/\[Download the video\]\(http:\/\/127\.0\.0\.1:\d+\/storage\/files\//);
    expect(world.fake.calls.every((c) => c.files.every((f) => f.size < 10 * MiB))).toBe(true);
  });
});

describe("a restart in the middle of a job", () => {
  it("resumes the job from the sqlite file and delivers it exactly once", async () => {
    world.emu.planNextJob("image", { durationMs: 1200 });
    const creations = world.creations("/api/image/generate").length;
    const notices = world.notices().length;
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "restart fox" },
    });
    await world.jobMessage(interaction, working);

    await world.restart();

    const done = await world.jobMessage(interaction);
    await world.until(() => world.notices()[notices]);
    // Delivered on record and owned by no one: a second delivery would show by then.
    await until(
      () => jobsSettled(world.stores, [{ platform: "discord", tenantId: world.fake.guild.id }]),
      15_000,
      () => "every job delivered and released",
    );
    expect(done.attachments).toHaveLength(1);
    expect(world.notices()).toHaveLength(notices + 1);
    expect(world.creations("/api/image/generate")).toHaveLength(creations + 1);
    expect(world.fake.messages().filter((m) => m.embeds[0]?.title === "Image: restart fox")).toHaveLength(1);
  });

  it("posts a keyed message once however often it is repeated", async () => {
    const conversation = { platform: "discord" as const, channelId: world.fake.channel.id };
    const first = await world.discord.adapter.post(
      conversation,
      { text: "once" },
      { idempotencyKey: "job-1:ready" },
    );
    const again = await world.discord.adapter.post(
      conversation,
      { text: "once" },
      { idempotencyKey: "job-1:ready" },
    );
    expect(again.messageId).toBe(first.messageId);
    expect(world.fake.messages().filter((m) => m.content === "once")).toHaveLength(1);
  });
});
