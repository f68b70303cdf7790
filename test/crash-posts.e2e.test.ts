import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStores, type Stores } from "../src/store/index.js";
import { CrashWorld, type Instance, killOnAnswer } from "./crash-world.js";
import { solidPng } from "./fakes/media-api/png.js";
import { until } from "./main-process.js";
import { jobsSettled } from "./settled.js";

/**
 * `kill -9` of the real bot process (src/main.ts) the instant a chat accepted one of its posts,
 * before the bot could record it, then a restart with the same INSTANCE_ID:
 *
 * - the job's first message ("Queued"): the job must have been recorded before it, or the paid
 *   job is forgotten and its result never comes; and, being on record, it is not announced as a
 *   start the crash cut short ("may have been created");
 * - the result's keyed notice on Slack: the restart must find the notice Slack already has (by the
 *   key in its metadata), not post it a second time; and the same for the result's file, shared
 *   into the job message's thread.
 */

const INSTANCE = "crash-posts";
/**
 * A deadline from the restarted process being up, not a figure: how soon a restart delivers is
 * measured by `npm run bench -- chaos`, and a starved machine stretches it.
 */
const RECOVERY_MS = 45_000;
const JOB_MS = 3_000;

let world: CrashWorld;
let instance: Instance;
/** The test's own connection to the bot's store, to read what the bot recorded. */
let stores: Stores;

beforeAll(async () => {
  world = await CrashWorld.start();
  instance = await world.startInstance(INSTANCE);
  stores = await openStores(world.storeUrl, undefined, pino({ level: "silent" }));
}, 60_000);
afterAll(async () => {
  await stores?.close();
  await instance?.bot.kill();
  await world?.close();
});

/** Starts the bot again under its id; when it is up. */
async function restart(): Promise<number> {
  instance = await world.startInstance(INSTANCE);
  return Date.now();
}

const waitFor = <T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  since: number,
  what: () => string,
) => until(check, RECOVERY_MS - (Date.now() - since), () => `${what()}\nbot log:\n${instance.bot.tail()}`);

/**
 * Until every job is delivered on record and owned by no one: after that the restart cannot post
 * a result again, so whatever it would have posted twice shows by then.
 */
const settled = (since: number) =>
  waitFor(
    () =>
      jobsSettled(stores, [
        { platform: "slack", tenantId: world.slack.teamId },
        { platform: "discord", tenantId: world.discord!.guild.id },
      ]),
    since,
    () => "every job delivered and released",
  );

describe("a bot killed once the chat accepted the job's first message, before the job was recorded", () => {
  it("Slack: the restart still delivers the result, once", async () => {
    const fake = world.slack;
    // The job had no message yet: its result comes as a finished card for the requester.
    const ready = () =>
      fake.messages().filter((m) => m.text.startsWith("<@") && m.text.includes("launch fox on Slack"));
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    const killed = killOnAnswer(world.slackApi, (a) => a.path.endsWith("/chat.postMessage"), instance);

    await fake.slashCommand(instance.slackEventsUrl, { text: "image generate launch fox on Slack" });
    await killed;
    const restartedAt = await restart();

    await waitFor(
      () => ready().length > 0,
      restartedAt,
      () => JSON.stringify(fake.messages().map((m) => m.text)),
    );
    await settled(restartedAt);
    expect(ready()).toHaveLength(1);
    expect(world.emu.callsTo("POST", "/api/image/generate")).toHaveLength(1);
    // The job was on record: nobody is told it may have been created.
    expect(fake.messages().filter((m) => JSON.stringify(m).includes("may have been created"))).toEqual([]);
  }, 120_000);

  it("Discord: the restart still delivers the result, once", async () => {
    const fake = world.discord!;
    const title = "Cinematic video: launch waves on Discord";
    // The job had no message yet: its result comes as a finished card for the requester.
    const ready = () =>
      fake.messages().filter((m) => m.content.startsWith("<@") && m.embeds[0]?.title === title);
    world.emu.planNextJob("video", { durationMs: JOB_MS });
    // The deferred answer becomes the job's message ("Queued") once the service took the job.
    const killed = killOnAnswer(
      world.discordRest!,
      (a) => a.method === "PATCH" && a.path.endsWith("/messages/%40original"),
      instance,
    );

    await fake.sendCommand({
      name: "video",
      subcommand: "cinematic",
      options: { prompt: "launch waves on Discord", duration: 5 },
      attachments: [
        { name: "frame.png", contentType: "image/png", data: solidPng([9, 80, 160]), option: "first_frame" },
      ],
    });
    await killed;
    const restartedAt = await restart();

    await waitFor(
      () => ready().length > 0,
      restartedAt,
      () => JSON.stringify(fake.messages().map((m) => m.content)),
    );
    await settled(restartedAt);
    expect(ready()).toHaveLength(1);
    expect(world.emu.callsTo("POST", "/api/video/cinematic/create")).toHaveLength(1);
    expect(fake.messages().filter((m) => JSON.stringify(m).includes("may have been created"))).toEqual([]);
  }, 120_000);
});

describe("a bot killed while it starts a person's job", () => {
  it("does not hold that person's next command after the restart", async () => {
    const fake = world.slack;
    const user = fake.addUser("restless").id;
    const queued = (what: string) =>
      fake.messages().filter((m) => m.text.startsWith(`Image: ${what}: Queued`));
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    const killed = killOnAnswer(world.slackApi, (a) => a.path.endsWith("/chat.postMessage"), instance);

    await fake.slashCommand(instance.slackEventsUrl, { text: "image generate first fox", user });
    await killed;
    const restartedAt = await restart();
    await fake.slashCommand(instance.slackEventsUrl, { text: "image generate second fox", user });

    // Not after the two minutes a start claim of the dead process would last.
    await waitFor(
      () => queued("second fox").length > 0,
      restartedAt,
      () => JSON.stringify(fake.messages().map((m) => m.text)),
    );
    expect(queued("second fox")).toHaveLength(1);
  }, 120_000);
});

describe("a bot killed once the service answered a creation call, before the answer reached it", () => {
  it("the restart tells the person the job may have been created, once, and never repeats the call", async () => {
    const fake = world.slack;
    const user = fake.addUser("unlucky").id;
    const told = () =>
      fake
        .messages()
        .filter((m) => m.text.startsWith(`<@${user}>`) && m.text.includes("may have been created"));
    const creations = () => world.emu.callsTo("POST", "/api/image/generate").length;
    const before = creations();
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    const killed = killOnAnswer(instance.media, (a) => a.path.endsWith("/api/image/generate"), instance);

    await fake.slashCommand(instance.slackEventsUrl, { text: "image generate lost answer fox", user });
    await killed;
    const restartedAt = await restart();

    await waitFor(
      () => told().length > 0,
      restartedAt,
      () => JSON.stringify(fake.messages().map((m) => m.text)),
    );
    // A second restart has nothing left to tell: it tells what its last process left behind
    // before it says it started (core/jobs/recovery.ts), so a second notice would be here by now.
    await instance.bot.kill();
    await restart();
    expect(told()).toHaveLength(1);
    expect(creations() - before).toBe(1);
  }, 120_000);
});

describe("a bot killed once Slack accepted a result's notice, before it recorded the post", () => {
  it("the restart finds the notice in the channel and does not post it again", async () => {
    const fake = world.slack;
    const user = fake.addUser("notified").id;
    const ready = () => fake.messages().filter((m) => /^<@\w+> .*notice fox on Slack is ready/.test(m.text));
    const creations = world.emu.callsTo("POST", "/api/image/generate").length;
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    const killed = killOnAnswer(
      world.slackApi,
      (a) => a.path.endsWith("/chat.postMessage") && ready().length > 0,
      instance,
    );

    await fake.slashCommand(instance.slackEventsUrl, { text: "image generate notice fox on Slack", user });
    await killed;
    const restartedAt = await restart();

    // The restart delivers the job again (its record says "delivering"): give it the time to.
    await waitFor(
      () => /Delivered|job delivered/.test(instance.bot.tail(200)),
      restartedAt,
      () => "the restart to deliver the job again",
    );
    await settled(restartedAt);
    expect(ready()).toHaveLength(1);
    expect(world.emu.callsTo("POST", "/api/image/generate")).toHaveLength(creations + 1);
  }, 120_000);
});

describe("a bot killed once Slack shared a result's file, before it recorded the upload", () => {
  it("the restart finds the file in the thread and does not upload it again", async () => {
    const fake = world.slack;
    const user = fake.addUser("uploaded").id;
    const ready = () => fake.messages().filter((m) => /^<@\w+> .*file fox on Slack is ready/.test(m.text));
    const job = () => fake.messages().find((m) => m.text.startsWith("Image: file fox on Slack"));
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    const killed = killOnAnswer(
      world.slackApi,
      (a) => a.path.endsWith("/files.completeUploadExternal"),
      instance,
    );

    await fake.slashCommand(instance.slackEventsUrl, { text: "image generate file fox on Slack", user });
    await killed;
    const restartedAt = await restart();

    await waitFor(
      () => ready().length > 0,
      restartedAt,
      () => JSON.stringify(fake.messages().map((m) => m.text)),
    );
    await settled(restartedAt);
    const shared = fake.uploads.filter((u) => u.completed && u.threadTs === job()?.ts);
    expect(shared).toHaveLength(1);
    expect(ready()).toHaveLength(1);
  }, 120_000);
});
