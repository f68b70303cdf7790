import type { APIUser } from "discord-api-types/v10";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantRef } from "../src/common/types.js";
import { openStores, type Stores } from "../src/store/index.js";
import { ended, shown } from "./discord/harness.js";
import type { Workspace } from "./fakes/slack/index.js";
import { until } from "./main-process.js";
import { ReplicaWorld } from "./replicas-world.js";
import { commandsHandled, jobsSettled } from "./settled.js";
import { headerOf, jobIdOf } from "./slack/harness.js";
import { describeRedis } from "./store/redis-server.js";

/**
 * Budgets across replicas: three real bot processes (`node dist/main.js`) on one redis-server,
 * behind the round-robin balancer, check and reserve a tenant's budget in one atomic step on the
 * store (a Lua script), with no lock between them. An admin sets an `everyone` budget of 5 jobs with the budget command, then
 * 20 members start an image each, all at once, spread over the three replicas: exactly 5 creation
 * calls reach the service, 5 results are delivered, and the 15 others are told the budget refused
 * them (nothing started, nothing charged). Everyone hears back; nobody is left without an answer.
 * On Slack (OAuth install, HTTP events) and on Discord (HTTP interactions), each its own tenant.
 */

/** A 20 s image takes 1 s. */
const TIME_SCALE = 0.05;
const MEMBERS = 20;
const BUDGET = 5;
const TITLE = `${MEMBERS} commands sent at once through 3 replicas against a budget of ${BUDGET} jobs make exactly ${BUDGET} creation calls`;
const REFUSAL = /This would go over this (workspace|server)'s budget: .*Nothing was started or charged\./s;

describeRedis("budgets on replicas sharing one redis", (redis) => {
  let world: ReplicaWorld;
  /** The test's own connection to the replicas' store, to read what they recorded. */
  let stores: Stores;
  beforeAll(async () => {
    world = await ReplicaWorld.start({ replicas: 3, redisUrl: redis().url, timeScale: TIME_SCALE });
    stores = await openStores(redis().url, undefined, pino({ level: "silent" }));
  }, 120_000);
  afterAll(async () => {
    await stores?.close();
    await world?.close();
  });

  const imageCreations = () => world.emu.callsTo("POST", "/api/image/generate").length;
  /** `what` is asked at the timeout, so that it tells how things stand then. */
  const waitFor = <T>(
    check: () => T | undefined | false | Promise<T | undefined | false>,
    ms: number,
    what: () => string,
  ) => until(check, ms, () => `${what()}\n${world.tails(20)}`);
  const handled = () =>
    commandsHandled(
      world.replicas.map((r) => r.origin),
      "image.generate",
    );
  /**
   * Until every replica handled `count` image commands since `before` to their end (no creation
   * call can come of them after) and the tenant's jobs are delivered and released (no result can
   * be posted again): whatever would be late or twice shows by then.
   */
  const settled = (tenant: TenantRef, before: number, count: number) =>
    waitFor(
      async () => (await handled()) - before >= count && (await jobsSettled(stores, [tenant])),
      30_000,
      () => `${MEMBERS} image commands handled and their jobs delivered`,
    );
  /** The replicas that answered the requests `send` made. */
  async function routedBy(send: () => Promise<unknown>): Promise<Set<number>> {
    const before = world.balancer.routed.length;
    await send();
    return new Set(world.balancer.routed.slice(before).map((r) => r.backend));
  }

  describe("on Slack", () => {
    it(TITLE, async () => {
      const { slack } = world;
      const url = world.slackEventsUrl;
      const workspace: Workspace = await world.install(slack.teamId);
      const channel = workspace.channelId;
      const admin = workspace.userIds.admin;
      const ephemeralsOf = (user: string) =>
        slack
          .ephemerals(channel)
          .filter((m) => m.user === user)
          .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`);

      // The admin sets the budget, as in Slack: /media budget everyone --jobs 5.
      const answer = await slack.slashCommand(url, {
        text: `budget everyone --jobs ${BUDGET}`,
        user: admin,
        channel,
      });
      expect(answer.status).toBe(200);
      await waitFor(
        () => ephemeralsOf(admin).some((text) => text.includes("Budget saved")),
        10_000,
        () => `the admin's answer: ${ephemeralsOf(admin).join("\n---\n")}`,
      );

      const before = imageCreations();
      const handledBefore = await handled();
      const members = Array.from({ length: MEMBERS }, (_, i) => slack.addUser(`member ${i}`).id);
      const replicas = await routedBy(async () => {
        const answers = await Promise.all(
          members.map((user, i) =>
            slack.slashCommand(url, { text: `image generate kite ${i}`, user, channel }),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(MEMBERS).fill(200));
      });
      expect([...replicas].sort()).toEqual([0, 1, 2]);

      const refused = () => members.filter((user) => ephemeralsOf(user).some((text) => REFUSAL.test(text)));
      const jobMessages = () => slack.messages(channel).filter((m) => jobIdOf(m));
      const finished = () => jobMessages().filter((m) => headerOf(m)?.startsWith("✅"));
      /** The "… is ready." notice that mentions the member whose job it was. */
      const notified = () =>
        members.filter((user) =>
          slack
            .messages(channel)
            .some((m) => !jobIdOf(m) && / is ready\.$/.test(m.text) && m.text.includes(`<@${user}>`)),
        );
      await waitFor(
        () => refused().length + notified().length >= MEMBERS && finished().length >= BUDGET,
        30_000,
        () =>
          `every member's answer: ${refused().length} refused, ${notified().length} told their result is ready, ` +
          `${finished().length} finished, ${imageCreations() - before} creation calls`,
      );
      await settled({ platform: "slack", tenantId: slack.teamId }, handledBefore, MEMBERS);

      expect(imageCreations() - before).toBe(BUDGET);
      expect(jobMessages()).toHaveLength(BUDGET);
      expect(finished()).toHaveLength(BUDGET);
      for (const job of jobMessages())
        expect(slack.uploads.filter((u) => u.threadTs === job.ts)).toHaveLength(1);
      expect(refused()).toHaveLength(MEMBERS - BUDGET);
      expect(notified()).toHaveLength(BUDGET);
      // Each member heard back once: a refusal or a result, never both, never nothing.
      expect(new Set([...refused(), ...notified()]).size).toBe(MEMBERS);
      for (const user of refused()) {
        expect(ephemeralsOf(user)).toHaveLength(1);
        expect(ephemeralsOf(user)[0]).toMatch(
          new RegExp(`${BUDGET} of ${BUDGET} jobs used this period, 0 left`),
        );
      }
    }, 90_000);
  });

  describe("on Discord", () => {
    it(TITLE, async () => {
      const { discord } = world;
      /** The replica's HTTP answer to the interaction (its defer). */
      const answered = (id: string) =>
        waitFor(
          () => discord.interaction(id)?.http,
          10_000,
          () => `Discord's answer to ${id}`,
        );
      const saved = await discord.sendCommand({
        name: "budget",
        options: { for: "everyone", jobs: BUDGET },
        user: discord.users.admin,
      });
      await waitFor(
        () => {
          const original = discord.original(saved.id);
          return original && shown(original).includes("Budget saved");
        },
        10_000,
        () =>
          `the admin's answer: ${JSON.stringify(discord.original(saved.id) ?? discord.interaction(saved.id))}`,
      );

      const before = imageCreations();
      const handledBefore = await handled();
      const members: APIUser[] = Array.from({ length: MEMBERS }, (_, i) => discord.addUser(`member${i}`));
      const ids: string[] = [];
      const replicas = await routedBy(async () => {
        const sent = await Promise.all(
          members.map((user, i) =>
            discord.sendCommand({
              name: "image",
              subcommand: "generate",
              options: { prompt: `heron ${i}` },
              user,
            }),
          ),
        );
        ids.push(...sent.map((s) => s.id));
        await Promise.all(ids.map(answered));
      });
      expect([...replicas].sort()).toEqual([0, 1, 2]);

      /** A refusal comes as an ephemeral follow-up, the deferred reply being deleted. */
      const followupTexts = (id: string) => discord.followups(id).map((m) => shown(m));
      const refused = () => ids.filter((id) => followupTexts(id).some((text) => REFUSAL.test(text)));
      const done = () =>
        ids.filter((id) => {
          const original = discord.original(id);
          return original !== undefined && ended(original);
        });
      const notices = () => discord.messages().filter((m) => / is ready/.test(m.content));
      const notified = () =>
        members.filter((user) => notices().some((m) => m.content.includes(`<@${user.id}>`)));
      await waitFor(
        () => refused().length + done().length >= MEMBERS && notified().length >= BUDGET,
        30_000,
        () =>
          `every member's answer: ${refused().length} refused, ${done().length} done, ${notified().length} notified, ` +
          `${imageCreations() - before} creation calls; the first unanswered: ` +
          JSON.stringify(
            ids
              .filter((id) => !done().includes(id) && !refused().includes(id))
              .slice(0, 1)
              .map((id) => ({ original: discord.original(id), followups: discord.followups(id) })),
          ),
      );
      await settled({ platform: "discord", tenantId: discord.guild.id }, handledBefore, MEMBERS);

      expect(imageCreations() - before).toBe(BUDGET);
      expect(done()).toHaveLength(BUDGET);
      expect(refused()).toHaveLength(MEMBERS - BUDGET);
      expect(notices()).toHaveLength(BUDGET);
      expect(notified()).toHaveLength(BUDGET);
      for (const id of done()) {
        expect(discord.original(id)?.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
      }
      for (const id of refused()) {
        expect(followupTexts(id)).toHaveLength(1);
        expect(followupTexts(id)[0]).toMatch(
          new RegExp(`${BUDGET} of ${BUDGET} jobs used this period, 0 left`),
        );
        expect(discord.followups(id)[0]!.flags! & 64).toBe(64); // ephemeral
        // No "thinking…" reply left behind.
        expect(discord.original(id)).toBeUndefined();
      }
      for (const id of done()) expect(discord.followups(id)).toEqual([]);
      // The refused are not the ones whose results were delivered: each member heard back once.
      const refusedUsers = new Set(refused().map((id) => discord.interaction(id)?.userId));
      expect(refusedUsers.size).toBe(MEMBERS - BUDGET);
      for (const user of notified()) expect(refusedUsers.has(user.id)).toBe(false);
      discord.assertNoValidationErrors();
    }, 90_000);
  });
});
