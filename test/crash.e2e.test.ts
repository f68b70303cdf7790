import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CrashWorld, type Instance, STATUS_PATH } from "./crash-world.js";
import { ended } from "./discord/harness.js";
import { until } from "./main-process.js";
import { headerOf, jobIdOf } from "./slack/harness.js";

/**
 * `kill -9` of the real bot process (src/main.ts) while it polls a job, then a restart with the
 * same INSTANCE_ID: the result is posted once, within 20 s of the restart, on each platform. The
 * restarted process takes its own jobs back at once; nothing waits for a lease to lapse.
 */

const INSTANCE = "crash-e2e";
const RECOVERY_MS = 20_000;
/** Long enough to be in flight at the first poll (a second after the creation), short for the test. */
const JOB_MS = 4_000;

let world: CrashWorld;
let instance: Instance;

beforeAll(async () => {
  world = await CrashWorld.start();
  instance = await world.startInstance(INSTANCE);
}, 60_000);
afterAll(async () => {
  await instance?.bot.kill();
  await world?.close();
});

/** SIGKILLs the bot at the first status read of a job after now; resolves once it is dead. */
function killAtNextPoll(): Promise<void> {
  return new Promise((killed) => {
    const stop = instance.media.onRequest((request) => {
      if (request.method !== "GET" || !STATUS_PATH.test(request.path)) return;
      stop();
      void instance.bot.kill().then(killed);
    });
  });
}

/** Restarts the killed bot and resolves with the time the restart began. */
async function restart(): Promise<number> {
  const at = Date.now();
  instance = await world.startInstance(INSTANCE);
  return at;
}

const waitForResult = <T>(check: () => T | undefined | false, since: number, what: () => string) =>
  until(check, RECOVERY_MS - (Date.now() - since), () => `${what()}\nbot log:\n${instance.bot.tail()}`);

describe("a bot killed with SIGKILL while it polls a job", () => {
  it("Discord: the restart posts the result once within 20 s", async () => {
    const fake = world.discord!;
    const title = "Image: crash fox on Discord";
    const ready = () => fake.messages().filter((m) => m.content.includes(`${title} is ready`));
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    const killed = killAtNextPoll();

    const interaction = await fake.sendCommand({
      name: "image",
      subcommand: "generate",
      options: { prompt: "crash fox on Discord" },
    });
    await killed;
    const restartedAt = await restart();

    const done = await waitForResult(
      () => {
        const original = fake.original(interaction.id);
        return original && ended(original) && ready().length > 0 && original;
      },
      restartedAt,
      () => JSON.stringify({ original: fake.original(interaction.id), notices: ready() }),
    );
    const recoveredMs = Date.now() - restartedAt;
    await sleep(1_000); // a second delivery, if any, would show by now

    expect(recoveredMs).toBeLessThan(RECOVERY_MS);
    expect(done.attachments.map((a) => a.content_type)).toEqual(["image/png"]);
    expect(ready()).toHaveLength(1);
    expect(fake.messages().filter((m) => m.embeds[0]?.title === title)).toHaveLength(1);
    expect(world.emu.callsTo("POST", "/api/image/generate")).toHaveLength(1);
    fake.assertNoValidationErrors();
  }, 60_000);

  it("Slack: the restart posts the result once within 20 s", async () => {
    const fake = world.slack;
    const jobs = () =>
      fake.messages().filter((m) => jobIdOf(m) && headerOf(m)?.includes("crash fox on Slack"));
    const ready = () => fake.messages().filter((m) => m.text.includes("crash fox on Slack is ready"));
    const creations = world.emu.callsTo("POST", "/api/image/generate").length;
    world.emu.planNextJob("image", { durationMs: JOB_MS });
    const killed = killAtNextPoll();

    await fake.slashCommand(instance.slackEventsUrl, { text: "image generate crash fox on Slack" });
    await killed;
    const restartedAt = await restart();

    const done = await waitForResult(
      () => {
        const [job] = jobs();
        return job && headerOf(job)?.startsWith("✅") && ready().length > 0 && job;
      },
      restartedAt,
      () => JSON.stringify({ jobs: jobs(), notices: ready() }),
    );
    const recoveredMs = Date.now() - restartedAt;
    await sleep(1_000);

    expect(recoveredMs).toBeLessThan(RECOVERY_MS);
    expect(jobs()).toHaveLength(1);
    expect(fake.uploads.filter((u) => u.threadTs === done.ts && u.completed)).toHaveLength(1);
    expect(ready()).toHaveLength(1);
    expect(world.emu.callsTo("POST", "/api/image/generate")).toHaveLength(creations + 1);
  }, 60_000);
});
