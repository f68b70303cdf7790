import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { headerOf, SlackWorld } from "./harness.js";

let fake: FakeSlack | undefined;
let world: SlackWorld | undefined;

afterEach(async () => {
  await world?.close();
  // The client's close handshake ends after stop() resolves; no socket may outlive the test.
  await fake?.waitFor(() => fake?.socketMode.connections === 0);
  await fake?.close();
  [world, fake] = [undefined, undefined];
});

/** The fake Slack and the bot on it over Socket Mode, once its socket is open. */
async function connected() {
  const slack = await startFakeSlack();
  fake = slack;
  const bot = await SlackWorld.start(slack, { socketMode: true });
  world = bot;
  await slack.socketMode.connected();
  return { slack, bot };
}

describe("the bot over Socket Mode (SLACK_APP_TOKEN set)", () => {
  it("takes a command, a form with a file and a click over the socket, no HTTP endpoint", async () => {
    const { slack, bot } = await connected();

    const commandAck = await slack.socketMode.send(
      "slash_commands",
      slack.payloads.slashCommand({ text: "image edit make it snow" }).payload,
    );
    const view = await bot.until(() => slack.views[0]);
    const submitAck = await slack.socketMode.send(
      "interactive",
      slack.payloads.viewSubmission({
        viewId: view.id,
        values: { image: [bot.png()], prompt: "make it snow" },
      }).payload,
    );
    const done = await bot.finished((await bot.jobMessage()).ts);
    const regenerate = JSON.stringify(done.blocks).match(/"action_id":"(media:regenerate:[^"]+)"/)?.[1];
    const clickAck = await slack.socketMode.send(
      "interactive",
      slack.payloads.blockAction({ actionId: regenerate!, message: done.ts }).payload,
    );
    const again = await bot.finished((await bot.jobMessage(1)).ts);

    expect(bot.slack.eventsUrl).toBeUndefined();
    expect([commandAck, submitAck, clickAck]).toEqual([{}, {}, {}]);
    expect(slack.calls.filter((c) => c.method === "apps.connections.open")).toHaveLength(1);
    expect(headerOf(done)).toMatch(/^✅ Image: make it snow/);
    expect(headerOf(again)).toMatch(/^✅ Image: make it snow/);
    expect(bot.creations("/api/image/edit")).toHaveLength(2);
  });

  it("runs a workflow step from function_executed over the socket to functions.completeSuccess", async () => {
    const { slack, bot } = await connected();

    const { execution, payload } = slack.payloads.functionExecuted({
      callbackId: "generate_image",
      inputs: { user: { id: slack.users.requester.id, secret: "s" }, prompt: "a fox over the socket" },
    });
    const ack = await slack.socketMode.send("events_api", payload);
    await bot.until(() => execution.state !== "running", 10_000);

    expect(ack).toEqual({});
    expect(execution.state).toBe("completed");
    expect(execution.outputs).toMatchObject({ job_id: expect.any(String), url: expect.any(String) });
    expect(execution.attempts).toEqual([{ method: "functions.completeSuccess", answer: "ok" }]);
    expect(bot.creations("/api/image/generate").at(-1)?.json).toMatchObject({
      prompt: "a fox over the socket",
    });
  });
});
