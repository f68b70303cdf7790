import { LogLevel, webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "./index.js";

let fake: FakeSlack;

afterEach(async () => {
  await fake.close();
});

async function setUp(): Promise<webApi.WebClient> {
  fake = await startFakeSlack();
  return new webApi.WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
}

const picker = {
  type: "section" as const,
  block_id: "pick",
  text: { type: "mrkdwn" as const, text: "Voice" },
  accessory: {
    type: "static_select" as const,
    action_id: "voice",
    options: [{ text: { type: "plain_text" as const, text: "Anna" }, value: "v-1" }],
  },
};

function postTo(url: string, body: object): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("payloads and response_urls of the fake Slack", () => {
  it("builds block_actions as Slack sends them, for channel and ephemeral messages", async () => {
    const web = await setUp();
    const { ts } = await web.chat.postMessage({ channel: fake.channelId, text: "Pick", blocks: [picker] });
    const { message_ts } = await web.chat.postEphemeral({
      channel: fake.channelId,
      user: fake.users.requester.id,
      text: "Only you",
      blocks: [
        {
          type: "actions",
          elements: [{ type: "button", action_id: "retry", text: { type: "plain_text", text: "Retry" } }],
        },
      ],
    });

    const select = fake.payloads.blockAction({ actionId: "voice", message: ts!, value: "v-1" }).payload;
    const click = fake.payloads.blockAction({ actionId: "retry", message: message_ts! }).payload;

    expect(select).toMatchObject({
      type: "block_actions",
      user: { id: fake.users.requester.id },
      container: { type: "message", message_ts: ts, channel_id: fake.channelId, is_ephemeral: false },
      message: { ts, text: "Pick" },
      actions: [
        { type: "static_select", action_id: "voice", block_id: "pick", selected_option: { value: "v-1" } },
      ],
    });
    expect(click).toMatchObject({
      container: { is_ephemeral: true },
      actions: [{ type: "button", action_id: "retry" }],
    });
    expect(click).not.toHaveProperty("message");
    expect(() => fake.payloads.blockAction({ actionId: "voice", message: ts!, value: "v-9" })).toThrow(
      /no option v-9/,
    );
    expect(() => fake.payloads.blockAction({ actionId: "gone", message: ts! })).toThrow(/no element gone/);
  });

  it("fills every input of a submitted view, with files for file_input", async () => {
    const web = await setUp();
    const photo = fake.addUserFile(new Uint8Array([1, 2, 3]), { name: "me.jpg", mimetype: "image/jpeg" });
    const opened = await web.views.open({
      trigger_id: fake.payloads.slashCommand().triggerId,
      view: {
        type: "modal",
        title: { type: "plain_text", text: "Selfie" },
        submit: { type: "plain_text", text: "Go" },
        blocks: [
          {
            type: "input",
            block_id: "photo",
            label: { type: "plain_text", text: "Photo" },
            element: { type: "file_input", action_id: "photo_file" },
          },
          {
            type: "input",
            block_id: "note",
            optional: true,
            label: { type: "plain_text", text: "Note" },
            element: { type: "plain_text_input", action_id: "note_text" },
          },
        ],
      },
    });
    const viewId = opened.view!.id!;

    const { payload } = fake.payloads.viewSubmission({ viewId, values: { photo_file: [photo] } });

    expect(payload).toMatchObject({
      type: "view_submission",
      view: {
        id: viewId,
        state: {
          values: {
            photo: {
              photo_file: {
                type: "file_input",
                files: [{ id: photo.id, url_private_download: photo.url_private_download }],
              },
            },
            note: { note_text: { type: "plain_text_input", value: null } },
          },
        },
      },
    });
    expect(() => fake.payloads.viewSubmission({ viewId, values: { nope: "x" } })).toThrow(/no input nope/);
  });

  it("applies response_url posts: in_channel posts, delete_original removes the clicked message (a tombstone while its thread has replies)", async () => {
    const web = await setUp();
    const { ts } = await web.chat.postMessage({ channel: fake.channelId, text: "Pick", blocks: [picker] });
    const { responseUrl } = fake.payloads.blockAction({ actionId: "voice", message: ts!, value: "v-1" });

    const shared = await postTo(responseUrl!, {
      response_type: "in_channel",
      text: "Anna it is",
      thread_ts: ts,
    });
    const deleted = await postTo(responseUrl!, { delete_original: true });
    const broken = await postTo(responseUrl!, {
      text: "x",
      blocks: [{ type: "header", text: { type: "plain_text", text: "" } }],
    });

    expect([shared.status, deleted.status, broken.status]).toEqual([200, 200, 400]);
    expect(await broken.json()).toMatchObject({ ok: false, error: "invalid_blocks" });
    expect(fake.messages()).toEqual([
      expect.objectContaining({ ts, subtype: "tombstone", text: "This message was deleted.", blocks: [] }),
      expect.objectContaining({ text: "Anna it is", thread_ts: ts }),
    ]);
    expect(fake.responseUrlPosts.map((p) => p.status)).toEqual([200, 200, 400]);
  });
});
