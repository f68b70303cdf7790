import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStores, type Stores } from "../src/store/index.js";
import { ended } from "./discord/harness.js";
import { until } from "./main-process.js";
import { ReplicaWorld } from "./replicas-world.js";
import { commandsHandled, jobsSettled } from "./settled.js";
import { headerOf, jobIdOf } from "./slack/harness.js";
import { redisServer, type SentinelGroup, startSentinelGroup } from "./store/redis-server.js";

/**
 * Redis fails over under load: two real bot processes (`dist/main.js`) behind a balancer find
 * their store through three sentinels (REDIS_SENTINELS), in front of a primary and its replica,
 * all real redis-server processes; Slack and Discord both busy. The replica is paused for a moment
 * (commands sent meanwhile write what their start rests on, which no replica holds) and the
 * primary is SIGKILLed: the sentinels promote the replica, which lacks those last writes. The bot
 * must not act on them: those commands are told to try again, without a creation call. Every
 * result is then posted exactly once, each command made at most one creation call, the workspace's
 * budget is not passed, and the jobs are read again within seconds of the promotion.
 *
 * And a Home opened through one replica shows a job that another replica finished.
 */

/** A 20 s image takes 6 s: under way at the kill; some finish while the store fails over. */
const TIME_SCALE = 0.3;
/** The bound: jobs read again within 10 s of the promotion. */
const RESUME_MS = 10_000;
const BUDGET = 6;

redisServer.describe("the store's primary fails over under load", () => {
  let group: SentinelGroup;
  let world: ReplicaWorld;
  let admin: Stores;
  beforeAll(async () => {
    // The primary is taken for down after 1.5 s: the replica's pause stays well under it.
    group = await startSentinelGroup({ downAfterMs: 1_500 });
    const env = { REDIS_SENTINELS: group.setting, REDIS_SENTINEL_NAME: group.name };
    world = await ReplicaWorld.start({ replicas: 2, env, timeScale: TIME_SCALE });
    await world.install(world.slack.teamId);
    // The workspace's admin has set a budget: six jobs this period, whoever runs them.
    admin = await openStores("redis://", undefined, pino({ level: "silent" }), {
      sentinel: { nodes: group.sentinels, name: group.name },
    });
    await admin.spend.changeBudgets({ platform: "slack", tenantId: world.slack.teamId }, () => [
      { scope: "everyone", id: "", unit: "jobs", limit: BUDGET },
    ]);
  }, 120_000);
  afterAll(async () => {
    await admin?.close();
    await world?.close();
    await group?.stop();
  });

  const ready = async (origin: string) => (await fetch(`${origin}/readyz`)).status;
  const creations = () => world.emu.calls.filter((c) => c.method === "POST" && /generate|edit/.test(c.path));
  const creationsOf = (prompt: string) =>
    creations().filter((c) => JSON.stringify(c.json ?? c.fields ?? {}).includes(prompt)).length;
  const slackFinished = () =>
    world.slack.messages().filter((m) => jobIdOf(m) && headerOf(m)?.startsWith("✅"));
  const slackNotices = () =>
    world.slack.messages().filter((m) => !headerOf(m) && / is ready\.$/.test(m.text));
  const discordNotices = () => world.discord.messages().filter((m) => / is ready/.test(m.content));
  /** What the bot told people privately on Slack (ephemerals and response_url posts). */
  const slackTold = () =>
    [...world.slack.ephemerals(), ...world.slack.responseUrlPosts.map((p) => p.body)].map((m) =>
      JSON.stringify(m),
    );
  const waitFor = <T>(
    check: () => T | undefined | false | Promise<T | undefined | false>,
    ms: number,
    what: () => string,
  ) => until(check, ms, () => `${what()}\n${world.tails(25)}`);
  const tenants = () => [
    { platform: "slack" as const, tenantId: world.slack.teamId },
    { platform: "discord" as const, tenantId: world.discord.guild.id },
  ];
  const imageCommandsHandled = () =>
    commandsHandled(
      world.replicas.map((r) => r.origin),
      "image.generate",
    );
  /**
   * The starts of `userIds` on record (start-intents.ts): each replica writes its start's claim,
   * then its reservation, then this record, and then waits for a replica of the store to hold them.
   */
  const startsOnRecord = async (userIds: readonly string[]) => {
    const entries = await Promise.all(world.replicas.map((r) => admin.indexes.list(`starts:${r.id}`)));
    const intents = await Promise.all(entries.flat().map((e) => admin.keyv("starts").get(e.id)));
    return intents.filter((i) => userIds.includes((i as { userId?: string } | undefined)?.userId ?? ""))
      .length;
  };

  it("promotes the replica under load: nothing acted on unacknowledged, every result once, no budget passed", async () => {
    const { slack, discord } = world;
    const url = world.slackEventsUrl;
    const users = Array.from({ length: 9 }, (_, i) => slack.addUser(`person ${i}`).id);
    for (const i of [0, 1, 2, 3])
      await slack.slashCommand(url, { text: `image generate lighthouse ${i}`, user: users[i]! });
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
      () => creations().length === 6 && slack.messages().filter((m) => jobIdOf(m)).length === 4,
      15_000,
      () => `6 jobs under way: ${creations().length} created`,
    );

    // The replica stops answering: what is written now is on the primary alone.
    const replica = await group.replica();
    replica.signal("SIGSTOP");
    let killed: Awaited<ReturnType<SentinelGroup["killPrimary"]>>;
    let onDiscord: Awaited<ReturnType<typeof discord.sendCommand>>;
    try {
      [, onDiscord] = await Promise.all([
        slack.slashCommand(url, { text: "image generate during the failover", user: users[4]! }),
        discord.sendCommand({
          name: "image",
          subcommand: "generate",
          options: { prompt: "kite during the failover" },
          user: discord.users.admin,
        }),
      ]);
      // Both starts wrote their claim, reservation and intent, and wait for the paused replica;
      // the wait is short enough that the sentinels do not take the replica for down and pass it over.
      await waitFor(
        async () => (await startsOnRecord([users[4]!, discord.users.admin.id])) === 2,
        1_200,
        () => "both starts of the failover's moment on record",
      );
      killed = await group.killPrimary();
    } finally {
      replica.signal("SIGCONT");
    }
    const killedAt = Date.now();
    const { at: promotedAt } = await group.promotion(killed, 20_000);
    console.info(`promoted ${promotedAt - killedAt} ms after the kill`);

    for (const replicaBot of world.replicas)
      await waitFor(
        async () => (await ready(replicaBot.origin)) === 200,
        RESUME_MS,
        () => `${replicaBot.id} ready again`,
      );
    const readyz = (await (await fetch(`${world.replicas[0]!.origin}/readyz`)).json()) as {
      redis?: { node?: string; failovers?: number };
    };
    const promoted = await group.primary();
    expect(readyz.redis).toMatchObject({ node: `${promoted.host}:${promoted.port}`, failovers: 1 });
    const metrics = await (await fetch(`${world.replicas[1]!.origin}/metrics`)).text();
    expect(metrics).toContain(`mediabot_store_node{node="${promoted.host}:${promoted.port}"} 1`);
    expect(metrics).toMatch(/^mediabot_store_failovers_total 1$/m);

    // The jobs under way are read again within seconds of the promotion.
    const polledAfter = () =>
      world.emu.calls.filter(
        (c) => c.method === "GET" && /^\/api\/image\/[^/]+$/.test(c.path) && c.at > promotedAt,
      );
    await waitFor(
      () => polledAfter().length > 0 || slackFinished().length === 4,
      RESUME_MS,
      () => "a poll after the promotion",
    );
    const resumedMs = (polledAfter()[0]?.at ?? Date.now()) - promotedAt;

    await waitFor(
      () =>
        slackFinished().length >= 4 &&
        discordJobs.every((j) => {
          const original = discord.original(j.id);
          return original !== undefined && ended(original);
        }),
      30_000,
      () => `results: ${slackFinished().length} of 4 on Slack`,
    );
    // The two commands of the failover's moment wrote what their start rests on while no replica
    // could acknowledge it, and the primary died before one did: told to try again, nothing made.
    for (const prompt of ["during the failover", "kite during the failover"])
      expect(creationsOf(prompt)).toBe(0);
    const refusal = /try again in a moment/i;
    expect(slackTold().some((m) => refusal.test(m) && /nothing was charged/.test(m))).toBe(true);
    expect(JSON.stringify(discord.followups(onDiscord.id))).toMatch(
      /try again in a moment.*nothing was charged|nothing was charged.*try again/i,
    );

    // Every job delivered on record and owned by no one: no replica can post a result again, so a
    // second delivery would show by then.
    await waitFor(
      () => jobsSettled(admin, tenants()),
      15_000,
      () => "every job delivered and released",
    );
    expect(new Set(slackFinished().map(jobIdOf)).size).toBe(4);
    expect(slackFinished()).toHaveLength(4);
    expect(slackNotices()).toHaveLength(4);
    for (const job of slackFinished())
      expect(slack.uploads.filter((u) => u.threadTs === job.ts)).toHaveLength(1);
    expect(discordNotices()).toHaveLength(2);
    for (const c of ["lighthouse 0", "lighthouse 1", "lighthouse 2", "lighthouse 3", "tern 0", "tern 1"])
      expect(creationsOf(c)).toBe(1);

    // The budget held across the promotion: what was reserved and settled before it still counts.
    const handledBefore = await imageCommandsHandled();
    for (const i of [5, 6, 7, 8])
      await slack.slashCommand(url, { text: `image generate after the failover ${i}`, user: users[i]! });
    await waitFor(
      () =>
        slackTold().filter((m) => /This would go over this workspace's budget/.test(m)).length ===
        4 - (BUDGET - 4),
      15_000,
      () => `budget refusals: ${slackTold().filter((m) => /budget/.test(m)).length}`,
    );
    const afterwards = () =>
      creations().filter((c) => /after the failover/.test(JSON.stringify(c.json ?? c.fields ?? {})));
    await waitFor(
      () => afterwards().length === BUDGET - 4,
      15_000,
      () => "the jobs within the budget",
    );
    // All four handled to their end: none of them can still make a creation call.
    await waitFor(
      async () => (await imageCommandsHandled()) - handledBefore >= 4,
      15_000,
      () => "the four commands after the failover handled",
    );
    expect(afterwards()).toHaveLength(BUDGET - 4);
    console.info(`store failover e2e: jobs read again ${resumedMs} ms after the promotion`);
    expect(resumedMs).toBeLessThan(RESUME_MS);
  }, 120_000);

  it("shows a job finished by replica B in a Home opened through replica A, within 5 s", async () => {
    const { slack } = world;
    const [a, b] = world.replicas as [(typeof world.replicas)[0], (typeof world.replicas)[0]];
    const user = slack.addUser("home watcher").id;
    // The budget of the test above is spent: the admin lifts it.
    await admin.spend.changeBudgets({ platform: "slack", tenantId: slack.teamId }, () => []);
    const text = () => JSON.stringify(slack.home(user)?.blocks ?? []);
    // The Home through A: nothing of this person's yet.
    await slack.openHome(`${a.origin}/slack/events`, user);
    await waitFor(
      () => text().includes("Nothing running right now."),
      10_000,
      () => text(),
    );
    // The command through B: B tracks the job and finishes it; A never hears of the job itself.
    await slack.slashCommand(`${b.origin}/slack/events`, { text: "image generate harbour lights", user });
    const finishedAt = await waitFor(
      () => {
        const job = slack
          .messages()
          .find((m) => jobIdOf(m) && JSON.stringify(m.blocks).includes("harbour lights"));
        return job && headerOf(job)?.startsWith("✅") ? Date.now() : undefined;
      },
      30_000,
      () => "the job's result",
    );
    await waitFor(
      () => text().includes("Nothing running right now.") && text().includes("Image: harbour lights"),
      5_000,
      () => `the Home 5 s after the result: ${text()}`,
    );
    console.info(`Home current ${Date.now() - finishedAt} ms after the other replica posted the result`);
  }, 60_000);
});
