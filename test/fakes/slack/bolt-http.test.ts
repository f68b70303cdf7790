import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { App, LogLevel, type SlashCommand } from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from "./index.js";

const running: { stop(): Promise<unknown> }[] = [];

afterEach(async () => {
  for (const item of running.splice(0).reverse()) await item.stop();
});

async function fakeSlack(opts?: FakeSlackOptions): Promise<FakeSlack> {
  const fake = await startFakeSlack(opts);
  running.push({ stop: () => fake.close() });
  return fake;
}

/** The real Bolt app on a free port; Bolt calls auth.test as it is constructed, so the fake comes first. */
async function bolt(fake: FakeSlack, register: (app: App) => void): Promise<{ url: string; app: App }> {
  const app = new App({
    token: fake.botToken,
    signingSecret: fake.signingSecret,
    port: 0,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
  });
  register(app);
  const server = await app.start();
  running.push(app);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, app };
}

function errorCode(error: unknown): string | undefined {
  return (error as { data?: { error?: string } }).data?.error;
}

const modal: ModalView = {
  type: "modal",
  callback_id: "media_generate",
  private_metadata: "job-1",
  title: { type: "plain_text", text: "Generate an image" },
  submit: { type: "plain_text", text: "Generate" },
  blocks: [
    {
      type: "input",
      block_id: "prompt",
      label: { type: "plain_text", text: "Prompt" },
      element: { type: "plain_text_input", action_id: "prompt_input" },
    },
    {
      type: "input",
      block_id: "ratio",
      optional: true,
      label: { type: "plain_text", text: "Aspect ratio" },
      element: {
        type: "static_select",
        action_id: "ratio_select",
        options: [
          { text: { type: "plain_text", text: "16:9" }, value: "16:9" },
          { text: { type: "plain_text", text: "1:1" }, value: "1:1" },
        ],
      },
    },
  ],
};

describe("the real Bolt app over signed HTTP against the fake Slack", () => {
  it("acks a signed slash command and its chat.postMessage + chat.update land in the fake", async () => {
    const fake = await fakeSlack();
    const commands: SlashCommand[] = [];
    const { url } = await bolt(fake, (app) => {
      app.command("/media", async ({ ack, command, client }) => {
        await ack();
        commands.push(command);
        const posted = await client.chat.postMessage({ channel: command.channel_id, text: "queued" });
        await client.chat.update({ channel: command.channel_id, ts: posted.ts!, text: "done" });
      });
    });

    const answer = await fake.slashCommand(url, { text: "image generate a red fox --seed 7" });

    expect(answer).toMatchObject({ status: 200, body: "" });
    await fake.waitFor(() => fake.messages()[0]?.edited);
    expect(commands[0]).toMatchObject({
      command: "/media",
      text: "image generate a red fox --seed 7",
      user_id: fake.users.requester.id,
      team_id: fake.teamId,
      trigger_id: answer.triggerId,
    });
    expect(fake.messages()).toEqual([
      expect.objectContaining({
        text: "done",
        user: fake.botUserId,
        ts: expect.stringMatching(/^\d{10}\.\d{6}$/),
      }),
    ]);
    expect(fake.calls.map((c) => [c.method, c.answered.ok])).toEqual([
      ["auth.test", true],
      ["chat.postMessage", true],
      ["chat.update", true],
    ]);
    expect(fake.calls[1]?.token).toBe(fake.botToken);
  });

  it("lets Bolt reject unsigned, forged and stale requests", async () => {
    const fake = await fakeSlack();
    let handled = 0;
    const { url } = await bolt(fake, (app) => {
      app.command("/media", async ({ ack }) => {
        handled += 1;
        await ack();
      });
    });
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;

    const answers = await Promise.all([
      fake.slashCommand(url, {}, { signingSecret: null }),
      fake.slashCommand(url, {}, { signingSecret: "not-the-secret" }),
      fake.slashCommand(url, {}, { timestamp: stale }),
    ]);

    expect(answers.map((a) => a.status)).toEqual([401, 401, 401]);
    expect(handled).toBe(0);
  });

  it("passes Slack's retry headers through to the listener", async () => {
    const fake = await fakeSlack();
    const retries: unknown[] = [];
    const { url } = await bolt(fake, (app) => {
      app.command("/media", async ({ ack, context }) => {
        retries.push(context.retryNum);
        await ack();
      });
    });

    await fake.slashCommand(url, {}, { retryNum: 1, retryReason: "http_timeout" });

    expect(retries).toEqual([1]);
  });

  /** Opens the modal twice from one slash command, after `delayMs`, and collects view ids or error codes. */
  async function openTwice(fake: FakeSlack, delayMs: number): Promise<(string | undefined)[]> {
    const outcomes: (string | undefined)[] = [];
    const { url } = await bolt(fake, (app) => {
      app.command("/media", async ({ ack, body, client }) => {
        await ack();
        await sleep(delayMs);
        for (const _ of [1, 2]) {
          try {
            outcomes.push((await client.views.open({ trigger_id: body.trigger_id, view: modal })).view?.id);
          } catch (error) {
            outcomes.push(errorCode(error));
          }
        }
      });
    });
    await fake.slashCommand(url);
    return fake.waitFor(() => outcomes.length === 2 && outcomes);
  }

  it("opens a modal with a trigger_id once; a second use fails as in Slack", async () => {
    const fake = await fakeSlack();

    const outcomes = await openTwice(fake, 0);

    expect(outcomes).toEqual([fake.views[0]?.id, "exchanged_trigger_id"]);
    expect(fake.views).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^V/),
        callback_id: "media_generate",
        private_metadata: "job-1",
        user: fake.users.requester.id,
        open: true,
        state: { values: {} },
      }),
    ]);
  });

  it("refuses a trigger_id used after its lifetime", async () => {
    const fake = await fakeSlack({ triggerTtlMs: 10 });

    expect(await openTwice(fake, 30)).toEqual(["expired_trigger_id", "expired_trigger_id"]);
    expect(fake.views).toEqual([]);
  });

  it("delivers a button click to app.action, whose respond() replaces the message", async () => {
    const fake = await fakeSlack();
    const clicks: { value?: string; ts?: string; user: string }[] = [];
    const { url, app } = await bolt(fake, (app) => {
      app.action("keep_1", async ({ ack, action, body, respond }) => {
        await ack();
        if (action.type !== "button" || body.type !== "block_actions") return;
        clicks.push({ value: action.value, ts: body.message?.ts, user: body.user.id });
        await respond({ replace_original: true, text: "Kept variant 1" });
      });
    });
    const { ts } = await app.client.chat.postMessage({
      channel: fake.channelId,
      text: "Pick a variant",
      blocks: [
        {
          type: "actions",
          block_id: "variants",
          elements: [
            {
              type: "button",
              action_id: "keep_1",
              text: { type: "plain_text", text: "Keep 1" },
              value: "job-1:1",
            },
            {
              type: "button",
              action_id: "keep_2",
              text: { type: "plain_text", text: "Keep 2" },
              value: "job-1:2",
            },
          ],
        },
      ],
    });

    const answer = await fake.blockAction(url, {
      actionId: "keep_1",
      message: ts!,
      user: fake.users.admin.id,
    });

    expect(answer.status).toBe(200);
    await fake.waitFor(() => answer.responseUrlPosts.length > 0);
    expect(clicks).toEqual([{ value: "job-1:1", ts, user: fake.users.admin.id }]);
    expect(answer.responseUrlPosts).toEqual([expect.objectContaining({ status: 200 })]);
    expect(fake.messages()).toEqual([expect.objectContaining({ ts, text: "Kept variant 1", blocks: [] })]);
  });

  it("returns a view_submission's response_action errors to the sender and keeps the modal open", async () => {
    const fake = await fakeSlack();
    const submitted: unknown[] = [];
    const { url } = await bolt(fake, (app) => {
      app.command("/media", async ({ ack, body, client }) => {
        await ack();
        await client.views.open({ trigger_id: body.trigger_id, view: modal });
      });
      app.view("media_generate", async ({ ack, view }) => {
        submitted.push(view.state.values);
        const prompt = view.state.values.prompt?.prompt_input?.value ?? "";
        if (prompt.length < 3) await ack({ response_action: "errors", errors: { prompt: "Too short" } });
        else await ack();
      });
    });
    await fake.slashCommand(url);
    const viewId = (await fake.waitFor(() => fake.views[0])).id;

    const rejected = await fake.viewSubmission(url, { viewId, values: { prompt_input: "ox" } });
    const openAfterErrors = fake.views[0]?.open;
    const accepted = await fake.viewSubmission(url, {
      viewId,
      values: { prompt_input: "a red fox", ratio_select: "16:9" },
    });

    expect(rejected).toMatchObject({
      status: 200,
      body: { response_action: "errors", errors: { prompt: "Too short" } },
    });
    expect(openAfterErrors).toBe(true);
    expect(accepted).toMatchObject({ status: 200, body: "" });
    expect(fake.views[0]?.open).toBe(false);
    expect(submitted[1]).toEqual({
      prompt: { prompt_input: { type: "plain_text_input", value: "a red fox" } },
      ratio: {
        ratio_select: {
          type: "static_select",
          selected_option: { text: { type: "plain_text", text: "16:9" }, value: "16:9" },
        },
      },
    });
  });

  it("follows response_action update and push in the modal stack", async () => {
    const fake = await fakeSlack();
    const { url } = await bolt(fake, (app) => {
      app.command("/media", async ({ ack, body, client }) => {
        await ack();
        await client.views.open({ trigger_id: body.trigger_id, view: modal });
      });
      app.view("media_generate", async ({ ack, view }) => {
        const prompt = view.state.values.prompt?.prompt_input?.value;
        const next = { ...modal, title: { type: "plain_text" as const, text: `Step: ${prompt}` } };
        await ack({ response_action: prompt === "push" ? "push" : "update", view: next });
      });
    });
    await fake.slashCommand(url);
    const root = (await fake.waitFor(() => fake.views[0])).id;

    await fake.viewSubmission(url, { viewId: root, values: { prompt_input: "update" } });
    await fake.viewSubmission(url, { viewId: root, values: { prompt_input: "push" } });

    expect(fake.views).toEqual([
      expect.objectContaining({
        id: root,
        title: expect.objectContaining({ text: "Step: update" }),
        open: true,
      }),
      expect.objectContaining({
        title: expect.objectContaining({ text: "Step: push" }),
        root_view_id: root,
        previous_view_id: root,
        open: true,
      }),
    ]);
  });

  it("takes five response_url posts and refuses the sixth, which Bolt's respond() throws", async () => {
    const fake = await fakeSlack();
    const outcomes: string[] = [];
    const { url } = await bolt(fake, (app) => {
      app.command("/media", async ({ ack, respond }) => {
        await ack();
        for (let i = 1; i <= 6; i += 1) {
          try {
            await respond({ text: `update ${i}` });
            outcomes.push("ok");
          } catch (error) {
            outcomes.push((error as { code?: string }).code ?? String(error));
          }
        }
      });
    });

    const answer = await fake.slashCommand(url);
    await fake.waitFor(() => outcomes.length === 6);

    expect(outcomes).toEqual(["ok", "ok", "ok", "ok", "ok", "slack_bolt_respond_error"]);
    expect(answer.responseUrlPosts.map((p) => p.error ?? p.status)).toEqual([
      200,
      200,
      200,
      200,
      200,
      "used_url",
    ]);
    expect(fake.ephemerals().map((m) => [m.user, m.text])).toEqual(
      [1, 2, 3, 4, 5].map((i) => [fake.users.requester.id, `update ${i}`]),
    );
  });
});
