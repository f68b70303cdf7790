import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FunctionExecution,
  type Message,
  type SlackUser,
  startFakeSlack,
} from "../fakes/slack/index.js";
import { type ExportRow, exportRows } from "../spend-csv.js";
import { actionIds, headerOf, jobIdOf, SlackWorld, shown } from "./harness.js";

/**
 * A job's spending and budgets belong to where it was asked, on every path a paid start takes on
 * Slack: a command, a follow-up clicked in the channel, a follow-up clicked on the DM copy of a
 * private result, a follow-up clicked in the App Home, and a workflow step. Each story sets a
 * budget that binds where the job was asked, shows the start past it refused with no creation
 * call, and reads the admin's export to see the spending filed under that channel (by name and id).
 */

const IMAGE = "/api/image/generate";

/** A bot and fake Slack per story: budgets and spending are per workspace and period. */
function worldPerDescribe(): () => SlackWorld {
  let world: SlackWorld | undefined;
  beforeAll(async () => {
    world = await SlackWorld.start(await startFakeSlack({ keepUploads: true }));
  });
  afterAll(async () => {
    await world?.close();
    await world?.fake.close();
  });
  return () => world!;
}

/** `/media <text>` by `user` in `channel`; resolves with their next private answer there, as text. */
async function answerIn(world: SlackWorld, channel: string, text: string, user: string): Promise<string> {
  const mine = () => world.fake.ephemerals(channel).filter((m) => m.user === user);
  const before = mine().length;
  await world.fake.slashCommand(world.eventsUrl, { text, user, channel });
  const answer = await world.until(() => mine()[before]);
  return `${answer.text}\n${JSON.stringify(answer.blocks)}`;
}

/** The admin sets a budget where they type it. */
async function budget(world: SlackWorld, channel: string, text: string): Promise<string> {
  const saved = await answerIn(world, channel, `budget ${text}`, world.fake.users.admin.id);
  expect(saved).toContain("Budget saved");
  return saved;
}

/** The job messages of `channel`, oldest first. */
const jobsIn = (world: SlackWorld, channel: string) =>
  world.fake
    .messages(channel)
    .filter((m) => jobIdOf(m) && (m.thread_ts === undefined || m.thread_ts === m.ts));

/** The `index`th job message of `channel` once its job ended. */
function finishedIn(world: SlackWorld, channel: string, index: number): Promise<Message> {
  return world.until(() => {
    const message = jobsIn(world, channel)[index];
    return message && /^[✅❌]/.test(headerOf(message) ?? "") ? message : undefined;
  }, 10_000);
}

/** Clicks a result's Regenerate where the message is. */
function regenerate(world: SlackWorld, message: Message, channel: string, user: string) {
  const action = actionIds(message).find((id) => id.startsWith("media:regenerate:"));
  expect(action).toBeDefined();
  return world.fake.blockAction(world.eventsUrl, { actionId: action!, message: message.ts, channel, user });
}

/** The admin's export of the period, read back from their DM: one row a job. */
async function exported(world: SlackWorld): Promise<ExportRow[]> {
  const { fake } = world;
  const uploads = fake.uploads.length;
  await world.command("usage export", fake.users.admin.id);
  const upload = await world.until(() =>
    fake.uploads.slice(uploads).find((u) => u.filename.startsWith("spending-")),
  );
  const file = await world.until(() =>
    fake
      .messages(upload.channel!)
      .flatMap((m) => m.files ?? [])
      .find((f) => f.id === upload.fileId),
  );
  const response = await fetch(file.url_private, { headers: { authorization: `Bearer ${fake.botToken}` } });
  return exportRows(await response.text());
}

/**
 * No creation call arrives late: a start past its budget never makes one. The barrier is the same
 * gesture made again (`again`: a command refused again, a button answered as already used): once
 * its answer is back, a call the first one made would have arrived before it.
 */
async function noLateCall(world: SlackWorld, count: number, again: () => Promise<unknown>): Promise<void> {
  await again();
  expect(world.creations(IMAGE)).toHaveLength(count);
}

describe("a command", () => {
  const world = worldPerDescribe();

  it("is held to the budget of the channel it is asked in, and its spending is filed under that channel", async () => {
    const { fake } = world();
    const ads = fake.addChannel("ads");
    const mia: SlackUser = fake.addUser("mia");
    expect(await budget(world(), ads, "here --jobs 1")).toContain("Channel #ads");

    await fake.slashCommand(world().eventsUrl, {
      text: "image generate a first kite",
      user: mia.id,
      channel: ads,
    });
    const first = await finishedIn(world(), ads, 0);
    const secondKite = () => answerIn(world(), ads, "image generate a second kite", mia.id);
    const refused = await secondKite();
    expect(refused).toContain(
      "This would go over this channel's budget: 1 of 1 jobs used this period, 0 left.",
    );
    expect(refused).toContain("Nothing was started or charged.");
    await noLateCall(world(), 1, secondKite);

    // Elsewhere the channel's budget does not bind.
    await world().job("image generate a kite in the other channel", mia.id);
    expect(world().creations(IMAGE)).toHaveLength(2);

    const rows = await exported(world());
    expect(rows.find((r) => r.jobId === jobIdOf(first))).toMatchObject({
      person: "mia",
      personId: mia.id,
      channel: "ads",
      channelId: ads,
      command: "image.generate",
    });
    expect(rows.filter((r) => r.channelId === fake.channelId).map((r) => r.channel)).toEqual(["media"]);
  });
});

describe("a follow-up clicked in the channel", () => {
  const world = worldPerDescribe();

  it("is held to the channel's budget, and its spending is filed under the channel", async () => {
    const { fake } = world();
    const ads = fake.addChannel("ads");
    const mia = fake.addUser("mia");
    await budget(world(), ads, "here --jobs 2");
    await fake.slashCommand(world().eventsUrl, {
      text: "image generate a red kite",
      user: mia.id,
      channel: ads,
    });
    const first = await finishedIn(world(), ads, 0);

    await regenerate(world(), first, ads, mia.id);
    const again = await finishedIn(world(), ads, 1);
    expect(world().creations(IMAGE)).toHaveLength(2);

    const regenerateAgain = async () => {
      const refusals = fake.ephemerals(ads).filter((m) => m.user === mia.id).length;
      await regenerate(world(), again, ads, mia.id);
      return shown(
        await world().until(() => fake.ephemerals(ads).filter((m) => m.user === mia.id)[refusals]),
      );
    };
    expect(await regenerateAgain()).toContain(
      "This would go over this channel's budget: 2 of 2 jobs used this period",
    );
    await noLateCall(world(), 2, regenerateAgain);

    const row = (await exported(world())).find((r) => r.jobId === jobIdOf(again));
    expect(row).toMatchObject({ channel: "ads", channelId: ads, command: "image.generate" });
  });
});

describe("a follow-up clicked on the DM copy of a private result", () => {
  const world = worldPerDescribe();

  it("is held to the budget of the channel the job was asked in, never the DM's: no creation call past it, and its spending is filed under that channel", async () => {
    const { fake } = world();
    const ads = fake.addChannel("ads");
    const mia = fake.addUser("mia");
    await budget(world(), ads, "here --jobs 2");
    await fake.slashCommand(world().eventsUrl, {
      text: "image generate a secret kite --delivery private",
      user: mia.id,
      channel: ads,
    });
    // The private job lives in Mia's DM with the bot.
    const dm = await world().until(() => {
      const call = fake.calls.find(
        (c) => c.method === "chat.postMessage" && String(c.args.channel).startsWith("D"),
      );
      return call && String(call.args.channel);
    });
    const first = await finishedIn(world(), dm, 0);

    await regenerate(world(), first, dm, mia.id);
    const again = await finishedIn(world(), dm, 1);
    expect(world().creations(IMAGE)).toHaveLength(2);

    const regenerateAgain = async () => {
      const refusals = fake.ephemerals(dm).filter((m) => m.user === mia.id).length;
      await regenerate(world(), again, dm, mia.id);
      return shown(await world().until(() => fake.ephemerals(dm).filter((m) => m.user === mia.id)[refusals]));
    };
    expect(await regenerateAgain()).toContain(
      "This would go over the budget of the channel this job was asked in: 2 of 2 jobs used this period, 0 left.",
    );
    await noLateCall(world(), 2, regenerateAgain);
    expect(jobsIn(world(), dm)).toHaveLength(2);

    const rows = await exported(world());
    for (const job of [first, again]) {
      expect(rows.find((r) => r.jobId === jobIdOf(job))).toMatchObject({ channel: "ads", channelId: ads });
    }
    expect(rows.some((r) => r.channelId === dm)).toBe(false);
  });
});

describe("a follow-up clicked in the App Home", () => {
  const world = worldPerDescribe();

  it("is held to the budget of the result's channel, and its spending is filed under it", async () => {
    const { fake } = world();
    const ads = fake.addChannel("ads");
    const mia = fake.addUser("mia");
    await budget(world(), ads, "here --jobs 2");
    await fake.slashCommand(world().eventsUrl, {
      text: "image generate a blue kite",
      user: mia.id,
      channel: ads,
    });
    await finishedIn(world(), ads, 0);

    /** Opens Mia's Home and clicks the Regenerate of her newest result in it. */
    const clickInHome = async () => {
      const published = fake.calls.filter((c) => c.method === "views.publish").length;
      await fake.openHome(world().eventsUrl, mia.id);
      await world().until(() => fake.calls.filter((c) => c.method === "views.publish").length > published);
      const home = await world().until(() => {
        const id = /"action_id":"(media:regenerate:[^"]+)"/.exec(
          JSON.stringify(fake.home(mia.id)?.blocks ?? []),
        )?.[1];
        return id;
      });
      await fake.homeAction(world().eventsUrl, { user: mia.id, actionId: home });
    };

    await clickInHome();
    const again = await finishedIn(world(), ads, 1);
    expect(world().creations(IMAGE)).toHaveLength(2);

    const clickAgain = async () => {
      const refusals = fake.ephemerals(ads).filter((m) => m.user === mia.id).length;
      await clickInHome();
      return shown(
        await world().until(() => fake.ephemerals(ads).filter((m) => m.user === mia.id)[refusals]),
      );
    };
    expect(await clickAgain()).toContain(
      "This would go over this channel's budget: 2 of 2 jobs used this period",
    );
    await noLateCall(world(), 2, clickAgain);

    const row = (await exported(world())).find((r) => r.jobId === jobIdOf(again));
    expect(row).toMatchObject({ channel: "ads", channelId: ads });
  });
});

describe("a workflow step", () => {
  const world = worldPerDescribe();

  /** Runs Generate an image as `user` and resolves once the bot ended the step. */
  async function step(user: SlackUser, prompt: string): Promise<FunctionExecution> {
    const { execution } = await world().fake.functionExecuted(world().eventsUrl, {
      callbackId: "generate_image",
      inputs: { user: { id: user.id, secret: "user-context-secret" }, prompt },
    });
    return world().until(() => (execution.state === "running" ? undefined : execution), 10_000);
  }

  it("is held to its person's budget (a workflow runs in no channel, so no channel's budget binds it), and its spending is filed as a workflow step's", async () => {
    const { fake } = world();
    const mia = fake.addUser("mia");
    // A channel budget used up binds commands there, not a workflow.
    await budget(world(), fake.channelId, "here --jobs 0");
    expect(await budget(world(), fake.channelId, `<@${mia.id}|mia> --jobs 1`)).toContain("Person @mia");

    const first = await step(mia, "a kite from a workflow");
    expect(first.state).toBe("completed");
    const secondStep = async () => {
      const second = await step(mia, "another kite from a workflow");
      expect(second.state).toBe("failed");
      return second.error ?? "";
    };
    expect(await secondStep()).toContain(
      "This would go over your budget: 1 of 1 jobs used this period, 0 left.",
    );
    await noLateCall(world(), 1, secondStep);

    const row = (await exported(world())).find((r) => r.jobId === first.outputs?.job_id);
    expect(row).toMatchObject({ person: "mia", channel: "(a workflow step)", channelId: mia.id });
  });
});
