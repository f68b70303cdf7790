import { App, LogLevel, SocketModeReceiver } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "./index.js";

let fake: FakeSlack | undefined;
let app: App | undefined;

afterEach(async () => {
  await app?.stop();
  // The client's close handshake ends after stop() resolves; wait for it so no socket outlives the test.
  await fake?.waitFor(() => fake?.socketMode.connections === 0);
  await fake?.close();
  [app, fake] = [undefined, undefined];
});

describe("the real Bolt app over the fake Socket Mode", () => {
  it("connects through apps.connections.open and acks a slash command envelope with its response", async () => {
    fake = await startFakeSlack();
    const slack = fake;
    const texts: string[] = [];
    app = new App({
      token: slack.botToken,
      appToken: slack.appToken,
      socketMode: true,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
    });
    app.command("/media", async ({ ack, command, client }) => {
      await ack({ response_type: "ephemeral", text: "Working on it" });
      texts.push(command.text);
      await client.chat.postMessage({ channel: command.channel_id, text: "queued" });
    });

    await app.start();
    await slack.socketMode.connected();
    const ack = await slack.socketMode.send(
      "slash_commands",
      slack.payloads.slashCommand({ text: "usage" }).payload,
    );

    expect(ack).toEqual({ response_type: "ephemeral", text: "Working on it" });
    expect(slack.socketMode.envelopes).toEqual([
      expect.objectContaining({ type: "slash_commands", accepts_response_payload: true }),
    ]);
    await slack.waitFor(() => slack.messages()[0]);
    expect(texts).toEqual(["usage"]);
    expect(slack.calls.map((c) => [c.method, c.token === slack.appToken])).toEqual([
      ["auth.test", false],
      ["apps.connections.open", true],
      ["chat.postMessage", false],
    ]);
  });

  it("reconnects after Slack's disconnect message and keeps delivering", async () => {
    fake = await startFakeSlack();
    const slack = fake;
    const clientOptions = { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } };
    // Bolt's App does not pass clientPingTimeout on; it is also the client's delay before reconnecting.
    const receiver = new SocketModeReceiver({
      appToken: slack.appToken,
      clientPingTimeout: 20,
      logLevel: LogLevel.ERROR,
      installerOptions: { clientOptions },
    });
    app = new App({ token: slack.botToken, receiver, logLevel: LogLevel.ERROR, clientOptions });
    app.action("keep_1", async ({ ack }) => ack());
    await app.start();
    const { ts } = await app.client.chat.postMessage({
      channel: slack.channelId,
      text: "Pick",
      blocks: [
        {
          type: "actions",
          elements: [{ type: "button", action_id: "keep_1", text: { type: "plain_text", text: "Keep 1" } }],
        },
      ],
    });

    slack.socketMode.disconnect();
    await slack.waitFor(() => slack.calls.filter((c) => c.method === "apps.connections.open").length === 2);
    await slack.waitFor(() => slack.socketMode.connections === 1);
    const ack = await slack.socketMode.send(
      "interactive",
      slack.payloads.blockAction({ actionId: "keep_1", message: ts! }).payload,
    );

    expect(ack).toEqual({});
  });
});
