import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStores, type Stores } from "../src/store/index.js";
import { CrashWorld, type Instance, killOnAnswer, STATUS_PATH } from "./crash-world.js";
import type { FunctionExecution } from "./fakes/slack/index.js";
import { until } from "./main-process.js";
import { jobsSettled } from "./settled.js";

/**
 * `kill -9` of the real bot process (src/main.ts) while a Slack workflow step's job runs, then a
 * restart with the same INSTANCE_ID: the step is completed, once, with the job's outputs. The
 * function's token lives with the job record (its message's short-lived part), so the restart
 * can still complete the step.
 */

const INSTANCE = "steps-crash";
const RECOVERY_MS = 20_000;
const JOB_MS = 2_000;

let world: CrashWorld;
let instance: Instance;
/** The test's own connection to the bot's store, to read what the bot recorded. */
let stores: Stores;

beforeAll(async () => {
  world = await CrashWorld.start({ discord: false });
  instance = await world.startInstance(INSTANCE);
  stores = await openStores(world.storeUrl, undefined, pino({ level: "silent" }));
}, 60_000);
afterAll(async () => {
  await stores?.close();
  await instance?.bot.kill();
  await world?.close();
});

async function runUntilKilled(prompt: string, kill: Promise<void>): Promise<FunctionExecution> {
  const fake = world.slack;
  const { execution } = await fake.functionExecuted(instance.slackEventsUrl, {
    callbackId: "generate_image",
    inputs: { user: { id: fake.users.requester.id, secret: "s" }, prompt },
  });
  await kill;
  instance = await world.startInstance(INSTANCE);
  return execution;
}

/**
 * Until the step's job is delivered on record and owned by no one: after that the restart cannot
 * complete the step or post its result again, so a second one would show by then.
 */
const settled = () =>
  until(
    () => jobsSettled(stores, [{ platform: "slack", tenantId: world.slack.teamId }]),
    RECOVERY_MS,
    () => `the job is not delivered and released yet\nbot log:\n${instance.bot.tail()}`,
  );

const ended = (execution: FunctionExecution) =>
  until(
    () => execution.state !== "running",
    RECOVERY_MS,
    () => `the step is still running\nbot log:\n${instance.bot.tail()}`,
  );

describe("a bot killed while a workflow step's job runs", () => {
  it("completes the step once after the restart, with the job's outputs, and never creates twice", async () => {
    const creations = () => world.emu.callsTo("POST", "/api/image/generate").length;
    const before = creations();
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    // The job is tracked once its status is read.
    const killed = killOnAnswer(instance.media, (a) => STATUS_PATH.test(a.path), instance);

    const execution = await runUntilKilled("a fox that outlives its bot", killed);
    await ended(execution);
    await settled();

    expect(execution.state).toBe("completed");
    expect(execution.outputs).toMatchObject({ job_id: expect.any(String), file: expect.any(String) });
    expect(execution.attempts).toEqual([{ method: "functions.completeSuccess", answer: "ok" }]);
    expect(creations() - before).toBe(1);
  }, 60_000);

  it("killed once Slack took the completion, before the bot recorded it: the restart posts nothing more", async () => {
    const fake = world.slack;
    world.emu.planNextJob("image", { durationMs: 300 });
    const killed = killOnAnswer(
      world.slackApi,
      (a) => a.path.endsWith("/functions.completeSuccess"),
      instance,
    );
    const messages = fake.messages().length;

    const execution = await runUntilKilled("a fox completed at the last moment", killed);
    // The restart delivers again: Slack says the execution ended, which was this bot's own completion.
    await until(
      () => execution.attempts.length >= 2,
      RECOVERY_MS,
      () => `attempts: ${JSON.stringify(execution.attempts)}\nbot log:\n${instance.bot.tail()}`,
    );
    await settled();

    expect(execution.state).toBe("completed");
    expect(execution.attempts).toEqual([
      { method: "functions.completeSuccess", answer: "ok" },
      { method: "functions.completeSuccess", answer: "execution_not_in_running_state" },
    ]);
    // Not taken for a step Slack ended first: no DM with the result.
    expect(fake.messages()).toHaveLength(messages);
  }, 60_000);
});

describe("a bot killed once the service answered a step's creation call, before the answer reached it", () => {
  it("the restart tells the person in their DM that the job may have been created, and never repeats the call", async () => {
    const fake = world.slack;
    const creations = () => world.emu.callsTo("POST", "/api/image/generate").length;
    const before = creations();
    const told = () =>
      fake.calls.filter(
        (c) =>
          c.method === "chat.postMessage" &&
          String(c.args.channel).startsWith("D") &&
          String(c.args.text).includes("may have been created"),
      );
    const killed = killOnAnswer(instance.media, (a) => a.path.endsWith("/api/image/generate"), instance);

    const execution = await runUntilKilled("a fox whose answer was lost", killed);
    await until(
      () => told().length > 0,
      RECOVERY_MS,
      () => `no notice in the DM\nbot log:\n${instance.bot.tail()}`,
    );
    // The restart told what its last process left behind before it said it started
    // (core/jobs/recovery.ts), and forgot it before telling: a second notice would be here by now.

    expect(told()).toHaveLength(1);
    expect(String(told()[0]?.args.text)).toContain(`<@${fake.users.requester.id}>`);
    expect(creations() - before).toBe(1);
    // The token went with the dead process's start: the step is left to Slack to end.
    expect(execution.attempts).toEqual([]);
  }, 60_000);
});
