import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, type Context, HTTPReceiver } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandByName } from "../../src/core/commands/catalogue.js";
import { conversationOf, type Gesture, type GestureBody, gestureOf } from "../../src/slack/gesture.js";
import { encodeActionId } from "../../src/slack/render/action-id.js";
import { FORM_CALLBACK_ID, type FormContext, formView } from "../../src/slack/render/form.js";
import { USER_INPUT } from "../../src/slack/steps.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { quiet } from "../fakes/slack/quiet-logger.js";
import { postSigned } from "../fakes/slack/signing.js";

/**
 * The Slack gesture reader over what Slack sends: the fake Slack's payloads, delivered signed to a
 * real Bolt app, read with the `context` Bolt gives each listener. Every kind the bot listens to
 * yields its person, place, workspace, reply credential and redelivery key.
 */

let fake: FakeSlack;
let app: App;
let server: Server;
let eventsUrl: string;
const read: Gesture[] = [];

/** Every listener records the gesture of what it got, as the bot's listeners read it. */
const record = (body: GestureBody, context: Context) => {
  read.push(gestureOf(body, context));
};

/** The gesture read for the request whose trigger or event is `id`, once Bolt ran its listener. */
const gestureFor = (deliveryId: string) => fake.waitFor(() => read.find((g) => g.deliveryId === deliveryId));
const lastGesture = (match: (g: Gesture) => boolean) => fake.waitFor(() => read.findLast(match));

beforeAll(async () => {
  fake = await startFakeSlack();
  const receiver = new HTTPReceiver({
    signingSecret: fake.signingSecret,
    endpoints: "/slack/events",
    logger: quiet,
  });
  app = new App({
    token: fake.botToken,
    receiver,
    logger: quiet,
    clientOptions: { slackApiUrl: fake.apiUrl },
  });
  app.command("/media", async ({ command, ack, context }) => {
    record(command, context);
    await ack();
  });
  app.action(/^media:/, async ({ body, ack, context }) => {
    record(body, context);
    await ack();
  });
  app.view(FORM_CALLBACK_ID, async ({ body, ack, context }) => {
    record(body, context);
    await ack();
  });
  app.shortcut("edit_image", async ({ shortcut, ack, context }) => {
    record(shortcut, context);
    await ack();
  });
  app.function("generate_image", async ({ body, context }) => record(body, context));
  app.event("app_mention", async ({ body, context }) => record(body, context));
  app.event("app_home_opened", async ({ body, context }) => record(body, context));
  app.event("app_uninstalled", async ({ body, context }) => record(body, context));
  server = createServer(receiver.requestListener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fake.close();
});

/** A message of the bot's with one of the core's buttons, as the adapter posts a job's card. */
async function postCard(): Promise<{ ts: string; actionId: string }> {
  const actionId = encodeActionId({ action: "upscale", jobId: "job-1", value: "2" });
  const posted = await app.client.chat.postMessage({
    channel: fake.channelId,
    text: "a job",
    blocks: [
      {
        type: "actions",
        elements: [{ type: "button", action_id: actionId, text: { type: "plain_text", text: "Upscale" } }],
      },
    ],
  });
  return { ts: posted.ts ?? "", actionId };
}

describe("the gesture of", () => {
  it("a slash command: its person, channel, workspace, response_url and trigger", async () => {
    const sent = await fake.slashCommand(eventsUrl, { text: "image a cat" });
    const gesture = await gestureFor(`trigger:${sent.triggerId}`);
    expect(gesture).toEqual({
      teamId: fake.teamId,
      userId: fake.users.requester.id,
      channelId: fake.channelId,
      home: false,
      responseUrl: sent.responseUrl,
      triggerId: sent.triggerId,
      deliveryId: `trigger:${sent.triggerId}`,
    });
    // The core's conversation answers there, through the response_url, with the workspace's token.
    expect(conversationOf({ ...gesture, userId: fake.users.requester.id })).toEqual({
      platform: "slack",
      channelId: fake.channelId,
      data: { user: fake.users.requester.id, team: fake.teamId },
      live: { responseUrl: sent.responseUrl },
    });
  });

  it("a slash command Slack delivers again: the same redelivery key as the first", async () => {
    const built = fake.payloads.slashCommand({ text: "help" });
    await postSigned(eventsUrl, built.payload, fake.signingSecret);
    await postSigned(eventsUrl, built.payload, fake.signingSecret, {
      retryNum: 1,
      retryReason: "http_timeout",
    });
    const copies = await fake.waitFor(() => {
      const both = read.filter((g) => g.triggerId === built.triggerId);
      return both.length === 2 && both;
    });
    expect(copies[0]).toEqual(copies[1]);
    expect(copies[0]?.deliveryId).toBe(`trigger:${built.triggerId}`);
  });

  it("a click on a message: the message, its channel and the click's response_url", async () => {
    const card = await postCard();
    const sent = await fake.blockAction(eventsUrl, {
      actionId: card.actionId,
      message: card.ts,
      user: fake.users.other.id,
    });
    expect(await gestureFor(`trigger:${sent.triggerId}`)).toEqual({
      teamId: fake.teamId,
      userId: fake.users.other.id,
      channelId: fake.channelId,
      messageTs: card.ts,
      home: false,
      responseUrl: sent.responseUrl,
      triggerId: sent.triggerId,
      deliveryId: `trigger:${sent.triggerId}`,
    });
  });

  it("a click in the App Home tab: no channel and no message, the person's own id stands for the place", async () => {
    const actionId = encodeActionId({ action: "settings", jobId: "-" });
    const user = fake.users.requester.id;
    await app.client.views.publish({
      user_id: user,
      view: {
        type: "home",
        blocks: [
          {
            type: "actions",
            elements: [
              { type: "button", action_id: actionId, text: { type: "plain_text", text: "Settings" } },
            ],
          },
        ],
      },
    });
    const sent = await fake.homeAction(eventsUrl, { user, actionId });
    expect(await gestureFor(`trigger:${sent.triggerId}`)).toEqual({
      teamId: fake.teamId,
      userId: user,
      channelId: user,
      home: true,
      triggerId: sent.triggerId,
      deliveryId: `trigger:${sent.triggerId}`,
    });
  });

  /** A follow-up's form opened with a slash command's trigger, as the bot opens one, then submitted. */
  async function submitted(form: FormContext) {
    const command = commandByName(form.command);
    if (!command) throw new Error(`the catalogue has no ${form.command}`);
    const opener = await fake.slashCommand(eventsUrl, { text: "" });
    const opened = await app.client.views.open({
      trigger_id: opener.triggerId,
      view: formView(command, {}, form),
    });
    return fake.viewSubmission(eventsUrl, { viewId: opened.view?.id ?? "" });
  }

  it("a settings form opened from a private panel: the panel's channel and response_url, kept in its metadata", async () => {
    const panel = await fake.slashCommand(eventsUrl, { text: "settings" });
    const form: FormContext = {
      command: "image.generate",
      channelId: fake.channelId,
      followUp: { action: "negative_prompt", jobId: "-" },
      responseUrl: panel.responseUrl ?? "",
    };
    const sent = await submitted(form);
    expect(await gestureFor(`trigger:${sent.triggerId}`)).toEqual({
      teamId: fake.teamId,
      userId: fake.users.requester.id,
      channelId: fake.channelId,
      home: false,
      form,
      responseUrl: panel.responseUrl,
      triggerId: sent.triggerId,
      deliveryId: `trigger:${sent.triggerId}`,
    });
  });

  it("a form opened from the App Home: the Home, with the person's id for its place", async () => {
    const user = fake.users.requester.id;
    const form: FormContext = {
      command: "image.generate",
      channelId: user,
      followUp: { action: "negative_prompt", jobId: "-" },
      home: true,
    };
    const sent = await submitted(form);
    expect(await gestureFor(`trigger:${sent.triggerId}`)).toEqual({
      teamId: fake.teamId,
      userId: user,
      channelId: user,
      home: true,
      form,
      triggerId: sent.triggerId,
      deliveryId: `trigger:${sent.triggerId}`,
    });
  });

  it("a message shortcut: the message's channel and the shortcut's response_url", async () => {
    const message = fake.postAsUser({ text: "look" });
    const sent = await fake.messageShortcut(eventsUrl, { callbackId: "edit_image", message: message.ts });
    expect(await gestureFor(`trigger:${sent.triggerId}`)).toEqual({
      teamId: fake.teamId,
      userId: fake.users.requester.id,
      channelId: fake.channelId,
      messageTs: message.ts,
      home: false,
      responseUrl: sent.responseUrl,
      triggerId: sent.triggerId,
      deliveryId: `trigger:${sent.triggerId}`,
    });
  });

  it("a workflow step: the person of its Person input, and the execution with its own token", async () => {
    const person = fake.users.other.id;
    const { execution } = await fake.functionExecuted(eventsUrl, {
      callbackId: "generate_image",
      inputs: { [USER_INPUT]: { id: person, secret: "s" }, prompt: "a cat" },
    });
    const gesture = await lastGesture((g) => g.step?.executionId === execution.id);
    expect(gesture).toMatchObject({
      teamId: fake.teamId,
      userId: person,
      home: false,
      step: { executionId: execution.id, token: execution.token },
    });
    expect(gesture.deliveryId).toMatch(/^event:Ev/);
    expect(gesture.responseUrl).toBeUndefined();
  });

  it("a workflow step without its person: no person, still the execution to end with the reason", async () => {
    const { execution } = await fake.functionExecuted(eventsUrl, {
      callbackId: "generate_image",
      inputs: {},
    });
    const gesture = await lastGesture((g) => g.step?.executionId === execution.id);
    expect(gesture.userId).toBeUndefined();
    expect(gesture.step).toEqual({ executionId: execution.id, token: execution.token });
  });

  it("a mention: its channel and thread, or the thread it starts", async () => {
    const user = fake.users.requester.id;
    await fake.event(eventsUrl, fake.teamId, {
      type: "app_mention",
      user,
      channel: fake.channelId,
      ts: "1.000100",
      text: "hi",
    });
    await fake.event(eventsUrl, fake.teamId, {
      type: "app_mention",
      user,
      channel: fake.channelId,
      ts: "1.000300",
      thread_ts: "1.000200",
      text: "hi again",
    });
    const started = await lastGesture((g) => g.threadId === "1.000100");
    expect(started).toMatchObject({
      teamId: fake.teamId,
      userId: user,
      channelId: fake.channelId,
      home: false,
    });
    expect(started.deliveryId).toMatch(/^event:Ev/);
    const inThread = await lastGesture((g) => g.threadId === "1.000200");
    expect(inThread.deliveryId).not.toBe(started.deliveryId);
  });

  it("the Home tab opened: its person, in the workspace", async () => {
    const user = fake.users.admin.id;
    await fake.openHome(eventsUrl, user);
    const gesture = await lastGesture(
      (g) => g.userId === user && g.deliveryId?.startsWith("event:") === true,
    );
    expect(gesture).toMatchObject({ teamId: fake.teamId, userId: user, home: false });
  });

  it("a workspace's own event: its workspace, and nobody", async () => {
    const before = read.length;
    await fake.event(eventsUrl, fake.teamId, { type: "app_uninstalled" });
    const gesture = await fake.waitFor(() => read.slice(before).find((g) => g.userId === undefined));
    expect(gesture.teamId).toBe(fake.teamId);
    expect(gesture.deliveryId).toMatch(/^event:Ev/);
  });
});
