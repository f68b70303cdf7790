import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { CrashWorld, type Instance } from "./crash-world.js";
import type { Message } from "./fakes/slack/state.js";
import { until } from "./main-process.js";
import { headerOf, jobIdOf, shown } from "./slack/harness.js";

/**
 * `kill -9` of the real bot (src/main.ts, on Slack) while 4 people have 3 jobs running each and
 * 20 more waiting their turn in the store, then a restart under the same INSTANCE_ID: every job
 * that waited starts once (one creation call each), none is lost, and each person's start in the
 * order they asked. Run on a sqlite file (queue-crash.e2e.test.ts) and on a real redis-server
 * (queue-crash-redis.e2e.test.ts), two files so that the two run side by side.
 */

const INSTANCE = "queue-crash";
const PEOPLE = 4;
const EACH = 8;
/**
 * The 12 first run until the test ends them (finishServiceJobs) after the restart: they must still
 * run once the 32 commands are in, however long a loaded machine takes for those (Slack takes
 * about one message a second in a channel, which the bot keeps to).
 */
const RUNNING_MS = 10 * 60_000;

let world: CrashWorld | undefined;
let instance: Instance | undefined;
afterEach(async () => {
  await instance?.bot.kill();
  await world?.close();
  world = undefined;
  instance = undefined;
});

const prompt = (person: number, n: number) => `crash-queue-${person}-${n}`;

export async function killWithAQueue(storeUrl?: string): Promise<void> {
  // Each start's whole log, for a failure's report (the tail of the killed one is gone with it).
  const logDir = mkdtempSync(join(tmpdir(), "queue-crash-logs-"));
  world = await CrashWorld.start({
    discord: false,
    // Eight commands a person in a few seconds: the command rates would slow them down.
    env: { USER_COMMANDS_PER_MINUTE: "0", TENANT_COMMANDS_PER_MINUTE: "0" },
    ...(storeUrl && { storeUrl }),
    logDir,
    slackInstalls: true,
  });
  const w = world;
  instance = await w.startInstance(INSTANCE);
  // Each person in a workspace of their own, as the queue is each person's: Slack lets an app
  // edit about 50 messages a minute in a workspace (which the bot keeps to), so 32 jobs' edits in
  // one workspace would take the test a minute and a half of pacing.
  const workspaces = Array.from({ length: PEOPLE }, (_, person) => w.slack.addWorkspace(`queue-${person}`));
  for (const workspace of workspaces) await w.install(instance, workspace.id);
  const users = workspaces.map((workspace) => workspace.userIds.requester);
  const channels = workspaces.map((workspace) => workspace.channelId);
  const made = () =>
    w.emu.callsTo("POST", "/api/image/generate").map((c) => (c.json as { prompt: string }).prompt);
  // Every job message: a job's result posted apart from its message would be a 33rd.
  const jobs = () => channels.flatMap((channel) => w.slack.messages(channel)).filter((m) => jobIdOf(m));
  const waiting = () => jobs().filter((m) => JSON.stringify(m.blocks).includes("ahead of you"));
  for (let n = 0; n < PEOPLE * 3; n++) w.emu.planNextJob("image", { durationMs: RUNNING_MS });

  // Each person's commands one after the other, the four people at once.
  await Promise.all(
    users.map(async (user, person) => {
      for (let n = 0; n < EACH; n++) {
        await w.slack.slashCommand(instance!.slackEventsUrl, {
          text: `image generate ${prompt(person, n)}`,
          user,
          channel: channels[person],
        });
        // Its first message: a running job's shows its id only from its first edit, once the
        // service says it has left its own queue (30 s into a 10-minute job).
        await until(
          () => w.slack.messages(channels[person]).some((m) => shown(m).includes(prompt(person, n))),
          30_000,
          () => `no message for ${prompt(person, n)}`,
        );
      }
    }),
  );
  await until(
    () => waiting().length === PEOPLE * (EACH - 3),
    50_000,
    () => `${waiting().length} waiting, ${jobs().length} messages, ${made().length} made`,
  );
  expect(made()).toHaveLength(PEOPLE * 3);

  await instance.bot.kill();
  w.finishServiceJobs(RUNNING_MS);
  instance = await w.startInstance(INSTANCE);

  const all = PEOPLE * EACH;
  await until(
    () => jobs().filter((m) => headerOf(m)?.startsWith("✅")).length === all,
    120_000,
    () =>
      `${jobs().filter((m) => headerOf(m)?.startsWith("✅")).length} of ${all} done; made ${made().length}\n${instance!.bot.tail()}`,
  );
  const calls = made();
  expect(calls).toHaveLength(all);
  expect(new Set(calls).size).toBe(all);
  for (let person = 0; person < PEOPLE; person++) {
    expect(calls.filter((p) => p.startsWith(`crash-queue-${person}-`))).toEqual(
      Array.from({ length: EACH }, (_, n) => prompt(person, n)),
    );
  }
  expect(
    jobs(),
    `job messages:\n${jobs().map(describe).join("\n")}\nlogs (each start's) in ${logDir}\nafter the restart:\n${instance.bot.tail(100)}`,
  ).toHaveLength(all);
}

/** A job message in one line, for a failure's report. */
const describe = (m: Message) =>
  `${m.channel} ${m.ts} ${jobIdOf(m)} ${headerOf(m)} | ${JSON.stringify((m.blocks[0] as { text?: unknown }).text ?? m.blocks[0]).slice(0, 160)}`;
