import { describe, expect, it } from "vitest";
import { type FakeSlack, sign } from "../fakes/slack/index.js";
import { postSigned } from "../fakes/slack/signing.js";
import { capturingLogger } from "../store/backends.js";
import { headerOf, type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * Every command of the catalogue typed as `/media ...` (the ones that need files are in
 * forms.e2e, photo-avatar design in variants.e2e), with what the service was asked and what Slack shows.
 */

let fake: FakeSlack;
let world: SlackWorld;
/** The bot's log: it says when it drops a gesture Slack delivered again. */
const log = capturingLogger("info");
slackWorldPerFile(
  (started) => {
    world = started;
    fake = started.fake;
  },
  { logger: log.logger },
);

const api = () => world.client.as("test-key");
const threadFiles = (ts: string) => fake.uploads.filter((u) => u.threadTs === ts).map((u) => u.filename);

describe("help", () => {
  it("lists every group for /media and /media help, and a group's commands for /media <group>", async () => {
    const all = await world.answer("");
    const help = await world.answer("help");
    const image = await world.answer("image");

    for (const text of [all, help]) {
      expect(text).toContain("image generate &lt;prompt&gt;");
      expect(text).toContain("photo_avatar design");
    }
    expect(image).toContain("Help: image");
    expect(image).toContain("image inpaint");
    expect(image).not.toContain("video avatar");
    // A group's help lists each command's flags with what they take.
    expect(image).toContain("[--aspect-ratio 1:1|16:9|9:16|4:3|3:4]");
    expect(image).toContain("[--seed 0-2147483647]");
    expect(image).toContain("[--negative-prompt &lt;text&gt;]");
    const video = await world.answer("video");
    expect(video).toContain("--avatar &lt;avatar id or name&gt;");
    expect(video).toContain("[--full-body]");
    expect(video).toContain("[--resolution 480p|720p|1080p]");
    for (const text of [all, help]) expect(text).not.toContain("--seed");
  });

  it("says so for a command that does not exist", async () => {
    expect(await world.answer("image paint a fox")).toContain('There is no command \\"image.paint\\"');
  });

  it("answers a mention of the bot with the help, in its thread, once per event", async () => {
    const event = {
      token: "t",
      team_id: fake.teamId,
      api_app_id: fake.appId,
      type: "event_callback",
      event_id: "Ev0MENTION1",
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: "app_mention",
        user: fake.users.other.id,
        text: `<@${fake.botUserId}> help?`,
        ts: "1700000000.000100",
        channel: fake.channelId,
        event_ts: "1700000000.000100",
      },
    };
    const before = world.ephemeralTexts(fake.users.other.id).length;
    const json = JSON.stringify(event);

    const first = await postJson(json);
    const retry = await postJson(json, 1);
    await world.until(() => world.ephemeralTexts(fake.users.other.id).length > before);
    // The retry is dropped, and says so; a copy that ran shows as a second answer.
    await world.until(
      () =>
        log.lines.some(
          (l) =>
            l.msg === "Slack delivered a gesture again: the copy is dropped" &&
            l.deliveryId === "event:Ev0MENTION1",
        ) || world.ephemeralTexts(fake.users.other.id).length > before + 1,
    );

    expect([first, retry]).toEqual([200, 200]);
    expect(
      fake
        .ephemerals()
        .filter((m) => m.user === fake.users.other.id)
        .slice(before),
    ).toEqual([
      expect.objectContaining({ thread_ts: "1700000000.000100", text: expect.stringContaining("Help") }),
    ]);
  });
});

/** Events come as signed JSON; a retry carries x-slack-retry-num. */
async function postJson(body: string, retryNum?: number): Promise<number> {
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(world.eventsUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": sign(fake.signingSecret, timestamp, body),
      ...(retryNum !== undefined && {
        "x-slack-retry-num": String(retryNum),
        "x-slack-retry-reason": "http_timeout",
      }),
    },
    body,
  });
  await response.text();
  return response.status;
}

describe("account and lists", () => {
  it("shows usage, avatars and voices only to the person who asked", async () => {
    expect(await world.answer("usage")).toMatch(/credits/i);
    const [avatar] = await api().avatars.list();
    expect(await world.answer("avatars")).toContain(avatar!.id);
    const [voice] = await api().voices.list();
    expect(await world.answer("voices")).toContain(voice!.id);
    expect(world.channelMessages()).toEqual([]);
  });
});

describe("videos", () => {
  it("makes an avatar video from a form whose avatar list loads from the service", async () => {
    // Typed alone, it opens its form (a script typed without an avatar runs: a default avatar may fill it).
    const view = await world.openForm("video avatar");
    const load = await postSigned(
      world.eventsUrl,
      {
        payload: JSON.stringify({
          type: "block_suggestion",
          action_id: "avatar",
          block_id: "avatar",
          value: "",
          api_app_id: fake.appId,
          team: { id: fake.teamId, domain: "fake" },
          user: { id: fake.users.requester.id, name: "requester", team_id: fake.teamId },
          container: { type: "view", view_id: view.id },
          view: { ...view, state: { values: {} } },
        }),
      },
      fake.signingSecret,
    );
    const options = (load.body as { options: { value: string }[] }).options;
    const before = world.jobCount();

    await world.submit(view, { avatar: options[0]!.value, script: "Hello from Slack" });
    const done = await world.finished((await world.jobMessage(before)).ts);

    expect(options.length).toBeGreaterThan(0);
    expect(world.creations("/api/video/create")[0]?.json).toMatchObject({
      avatarId: options[0]!.value,
      text: "Hello from Slack",
    });
    expect(headerOf(done)).toMatch(/^✅ Avatar video/);
    expect(threadFiles(done.ts)).toEqual([expect.stringMatching(/\.mp4$/)]);
  });

  it("makes a cinematic clip typed on one line", async () => {
    const done = await world.job(`video cinematic waves at dusk --duration 5 --aspect-ratio 9:16`);

    expect(world.creations("/api/video/cinematic/create")[0]?.json).toMatchObject({
      prompt: "waves at dusk",
      durationSeconds: 5,
      aspectRatio: "9:16",
    });
    expect(threadFiles(done.ts)).toEqual([expect.stringMatching(/\.mp4$/)]);
  });

  it("lists the videos and posts one with video get", async () => {
    const [video] = await api().videos.list();

    expect(await world.answer("video list")).toContain(video!.id);
    await world.command(`video get ${video!.id}`);
    const posted = await world.until(() =>
      world.channelMessages().find((m) => headerOf(m)?.startsWith("✅ Video:")),
    );
    await world.until(() => threadFiles(posted.ts).length === 1);
    expect(threadFiles(posted.ts)).toEqual([expect.stringMatching(/\.mp4$/)]);
  });
});

describe("mockups and thumbnails", () => {
  it("generates an asset, lists assets, mockups and mockup videos", async () => {
    const asset = await world.job("mockup asset a coffee cup --type product");
    expect(headerOf(asset)).toBe("✅ Mockup product: a coffee cup");
    expect(threadFiles(asset.ts)).toHaveLength(1);
    expect(await world.answer("mockup assets")).toMatch(/Mockup assets|asset/i);
    expect(await world.answer("mockup list")).toMatch(/mockup/i);
    expect(await world.answer("mockup videos")).toMatch(/video/i);
  });

  it("animates a saved mockup typed by id and style", async () => {
    const mockupId = await seedMockup();
    const done = await world.job(`mockup video a slow turn --mockup ${mockupId} --style custom`);
    expect(world.creations("/api/mockup/video").at(-1)?.json).toMatchObject({
      mockupId,
      animationStyle: "custom",
    });
    expect(threadFiles(done.ts)).toEqual([expect.stringMatching(/\.mp4$/)]);
  });

  it("generates a thumbnail and lists thumbnails", async () => {
    const done = await world.job("thumbnail generate a bold title --aspect_ratio 16:9");
    expect(headerOf(done)).toMatch(/^✅/);
    expect(threadFiles(done.ts)).toHaveLength(1);
    expect(await world.answer("thumbnail list")).toContain("a bold title");
  });
});

/** A mockup in the account, made through the API as the form test does through Slack. */
async function seedMockup(): Promise<string> {
  const productMediaId = world.emu.seedMedia("test-key", { contentType: "image/png" });
  const made = await api().mockups.generate({ productMediaId, logoMediaIds: [], instruction: "mug" });
  return made.jobId ?? (await api().mockups.list())[0]!.id;
}

describe("in a private channel the bot was not invited to", () => {
  /** Slack delivers the command all the same; the fake answers channel_not_found for the channel. */
  async function inPrivateChannel(text: string) {
    const built = fake.payloads.slashCommand({ text });
    await postSigned(world.eventsUrl, { ...built.payload, channel_id: "C0PRIVATE9" }, fake.signingSecret);
    return world.until(() => built.responseUrlPosts[0]);
  }

  it("answers through the command's response_url", async () => {
    const post = await inPrivateChannel("usage");
    expect(post.status).toBe(200);
    expect(JSON.stringify(post.body)).toMatch(/credits/i);
  });

  it("says the bot must be invited when a job message cannot be posted, and that the job runs all the same", async () => {
    const generated = world.creations("/api/image/generate").length;
    const post = await inPrivateChannel("image generate a fox in a private channel");
    const body = JSON.stringify(post.body);
    expect(body).toContain("The bot is not a member of this channel, so it cannot post here. Invite it");
    expect(body).toContain("The media service accepted this job");
    expect(body).toContain("Running the command again would start, and pay for, a second job.");
    expect(world.creations("/api/image/generate")).toHaveLength(generated + 1);
  });
});

describe("jobs and refusals", () => {
  it("lists the caller's jobs", async () => {
    expect(await world.answer("jobs")).toContain("Your jobs");
  });

  it("refuses invalid options clearly and creates nothing", async () => {
    const generated = world.creations("/api/image/generate").length;

    const badSeed = await world.answer("image generate a fox --seed abc");
    const badRatio = await world.answer("image generate a fox --aspect-ratio 7:7");
    const unknown = await world.answer("image generate a fox --colour red");

    expect(badSeed).toMatch(/seed must be a (whole )?number \(got \\"abc\\"\)/);
    expect(badRatio).toContain("aspect_ratio must be one of 1:1, 16:9");
    expect(unknown).toContain("has no option colour");
    expect(world.creations("/api/image/generate")).toHaveLength(generated);
    expect(shown(fake.messages().at(-1)!)).not.toContain("colour");
  });
});
