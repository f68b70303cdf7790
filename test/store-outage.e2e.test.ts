import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStores } from "../src/store/index.js";
import { ended } from "./discord/harness.js";
import { until } from "./main-process.js";
import { ReplicaWorld } from "./replicas-world.js";
import { jobsSettled } from "./settled.js";
import { headerOf, jobIdOf } from "./slack/harness.js";
import { type RestartableRedis, redisServer, startRestartableRedis } from "./store/redis-server.js";

/**
 * Redis restarted under load: two real bot processes (`dist/main.js`) on one redis-server behind
 * a balancer, Slack and Discord both busy, and the redis-server stopped for 15 s and started
 * again on the same port with its data (as an operator's restart does). Meanwhile /readyz says
 * 503, commands on both platforms are refused with "try again in a moment, nothing was charged"
 * and make no creation call, and each bot's log says it once, not per operation. Once redis is
 * back the jobs that finished meanwhile are delivered within seconds, every one exactly once.
 */

/** A 20 s image takes 10 s: under way when redis stops, finished at the service before it is back. */
const TIME_SCALE = 0.5;
const OUTAGE_MS = 15_000;
/**
 * How long after redis is back the log is read for the outage's lines: the bound on
 * resuming, plus the reconnect's own backoff (up to 2 s). How soon results resume is measured by
 * the chaos bench's store outages (`npm run bench -- chaos --pair-store redis`), not asserted
 * here: a loaded machine takes longer.
 */
const RESUME_MS = 5_000;

redisServer.describe("the store goes away under load", () => {
  let redis: RestartableRedis;
  let world: ReplicaWorld;
  beforeAll(async () => {
    redis = await startRestartableRedis();
    world = await ReplicaWorld.start({ replicas: 2, redisUrl: redis.url, timeScale: TIME_SCALE });
    await world.install(world.slack.teamId);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await redis?.stop();
  });

  const ready = async (origin: string) => (await fetch(`${origin}/readyz`)).status;
  const creations = () => world.emu.calls.filter((c) => c.method === "POST" && /generate|edit/.test(c.path));
  const slackFinished = () =>
    world.slack.messages().filter((m) => jobIdOf(m) && headerOf(m)?.startsWith("✅"));
  const slackNotices = () =>
    world.slack.messages().filter((m) => !headerOf(m) && / is ready\.$/.test(m.text));
  const discordNotices = () => world.discord.messages().filter((m) => / is ready/.test(m.content));
  const waitFor = <T>(
    check: () => T | undefined | false | Promise<T | undefined | false>,
    ms: number,
    what: () => string,
  ) => until(check, ms, () => `${what()}\n${world.tails(25)}`);

  it("refuses commands while redis is down, resumes within seconds, loses and doubles nothing", async () => {
    const { slack, discord } = world;
    const url = world.slackEventsUrl;
    const users = Array.from({ length: 4 }, (_, i) => slack.addUser(`person ${i}`).id);
    for (const [i, user] of users.entries())
      await slack.slashCommand(url, { text: `image generate lighthouse ${i}`, user });
    const discordJobs = await Promise.all(
      [discord.users.requester, discord.users.other].map((user, i) =>
        discord.sendCommand({
          name: "image",
          subcommand: "generate",
          options: { prompt: `tern ${i}` },
          user,
        }),
      ),
    );
    await waitFor(
      () => creations().length === 6 && world.slack.messages().filter((m) => jobIdOf(m)).length === 4,
      15_000,
      () => `6 jobs under way: ${creations().length} created`,
    );

    expect(slackFinished()).toHaveLength(0);
    const downAt = Date.now();
    await redis.down();
    for (const replica of world.replicas)
      await waitFor(
        async () => (await ready(replica.origin)) === 503,
        5_000,
        () => `${replica.id} unready`,
      );
    const readyz = await (await fetch(`${world.replicas[0]!.origin}/readyz`)).json();
    expect(readyz).toMatchObject({
      status: "not ready",
      checks: { store: expect.stringMatching(/unreachable/) },
    });

    // Commands meanwhile, on both platforms: told to try again, nothing created.
    const madeBefore = creations().length;
    const refusedUser = slack.addUser("late").id;
    await slack.slashCommand(url, { text: "image generate during the outage", user: refusedUser });
    const refusedOnDiscord = await discord.sendCommand({
      name: "image",
      subcommand: "generate",
      options: { prompt: "during the outage" },
      user: discord.users.admin,
    });
    const tryAgain = /try again in a moment/i;
    await waitFor(
      () =>
        [...slack.ephemerals(), ...slack.responseUrlPosts.map((p) => p.body as { text?: string })].some(
          (m) => tryAgain.test(JSON.stringify(m)) && /nothing was charged/.test(JSON.stringify(m)),
        ),
      10_000,
      () => `the Slack refusal: ${JSON.stringify(slack.ephemerals())}`,
    );
    await waitFor(
      () => {
        // A refusal after a public "thinking…" is a private follow-up.
        const said = JSON.stringify(discord.followups(refusedOnDiscord.id));
        return tryAgain.test(said) && /nothing was charged/.test(said);
      },
      10_000,
      () => `the Discord refusal: ${JSON.stringify(discord.interaction(refusedOnDiscord.id))}`,
    );
    console.info(`refusals after ${Date.now() - downAt} ms`);
    expect(creations()).toHaveLength(madeBefore);

    await sleep(Math.max(0, downAt + OUTAGE_MS - Date.now()));
    // Every job finished at the service meanwhile (images take 2.5 to 11 s here): none was delivered.
    expect(slackFinished()).toHaveLength(0);
    await redis.up();
    const upAt = Date.now();

    await waitFor(
      () =>
        slackFinished().length === 4 &&
        discordJobs.every((j) => {
          const original = discord.original(j.id);
          return original !== undefined && ended(original);
        }),
      RESUME_MS + 10_000,
      () => `results after the return: ${slackFinished().length} of 4 on Slack`,
    );
    const resumedMs = Date.now() - upAt;
    for (const replica of world.replicas) expect(await ready(replica.origin)).toBe(200);
    // Every job delivered on record and owned by no one: no replica can post a result again, so a
    // second delivery would show by then.
    const stores = await openStores(redis.url, undefined, pino({ level: "silent" }));
    try {
      await waitFor(
        () =>
          jobsSettled(stores, [
            { platform: "slack", tenantId: slack.teamId },
            { platform: "discord", tenantId: discord.guild.id },
          ]),
        10_000,
        () => "every job delivered and released",
      );
    } finally {
      await stores.close();
    }
    expect(slackFinished()).toHaveLength(4);
    expect(new Set(slackFinished().map(jobIdOf)).size).toBe(4);
    expect(slackNotices()).toHaveLength(4);
    expect(discordNotices()).toHaveLength(2);
    for (const job of slackFinished())
      expect(slack.uploads.filter((u) => u.threadTs === job.ts)).toHaveLength(1);

    // The log: one line when redis went away and one when it came back, per replica; nothing per operation.
    for (const replica of world.replicas) {
      const lines = readFileSync(replica.logFile, "utf8").split("\n").filter(Boolean);
      const during = lines
        .map(
          (line) =>
            JSON.parse(line) as { level: number; msg: string; time: number; slack?: unknown; err?: unknown },
        )
        // Slack's own notices (a channel joined already) are no part of the outage.
        .filter((l) => l.time >= downAt && l.time <= upAt + RESUME_MS && l.level >= 40 && !l.slack);
      // On a failure, the errors of the lines that should not be there say which did not read as the outage.
      expect(
        during.map((l) => l.msg),
        JSON.stringify(during.map((l) => l.err)),
      ).toEqual(["store unreachable: commands are refused (nothing charged) and jobs wait until it answers"]);
      expect(lines.filter((l) => l.includes("store answers again"))).toHaveLength(1);
    }

    // And the next command works as ever.
    await slack.slashCommand(url, { text: "image generate after the outage", user: refusedUser });
    await waitFor(
      () => slackFinished().length === 5,
      20_000,
      () => "the command after the outage",
    );
    console.info(`store outage e2e: every result ${resumedMs} ms after redis came back`);
  }, 120_000);
});
