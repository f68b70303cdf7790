import type { APIMessage } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import type { Message } from "../fakes/slack/index.js";
import { discordChannel } from "./render/discord.js";
import { slackChannel, slackDirect } from "./render/slack.js";

const bot = {
  id: "1",
  username: "media-bot",
  discriminator: "0",
  global_name: null,
  avatar: null,
  bot: true,
};

function discordMessage(fields: Partial<APIMessage>): APIMessage {
  return {
    id: "10",
    type: 0,
    channel_id: "2",
    author: bot,
    content: "",
    timestamp: "2026-01-01T00:00:00.000Z",
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    ...fields,
  };
}

function slackMessage(fields: Partial<Message>): Message {
  return {
    type: "message",
    channel: "C1",
    ts: "1.000100",
    text: "",
    blocks: [],
    user: "UBOT",
    team: "T1",
    ...fields,
  };
}

describe("the playground's renderers", () => {
  it("shows what users typed as text, never as markup", () => {
    const html = discordChannel(
      [discordMessage({ embeds: [{ title: "Image: <img src=x onerror=alert(1)>", color: 0x57f287 }] })],
      {},
    );
    expect(html).toContain("Image: &lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<img src=x");
  });

  it("shows Discord's escaped markdown characters as themselves", () => {
    const html = discordChannel([discordMessage({ content: "job 2lUBNy8BQc\\_2 · **done**" })], {});
    expect(html).toContain("job 2lUBNy8BQc_2 · <strong>done</strong>");
  });

  it("shows an attachment an embed displays once, in the embed, through the playground's file route", () => {
    const url = "http://127.0.0.1:9/attachments/2/3/fox.png";
    const html = discordChannel(
      [
        discordMessage({
          attachments: [
            { id: "3", filename: "fox.png", size: 1, url, proxy_url: url, content_type: "image/png" },
          ],
          embeds: [{ title: "Image: fox", image: { url } }],
        }),
      ],
      {},
    );
    expect(html.match(/<img /g)).toHaveLength(1);
    expect(html).toContain(`src="/file?url=${encodeURIComponent(url).replaceAll("&", "&amp;")}"`);
  });

  it("puts Slack thread replies and their files under their message, and mentions by name", () => {
    const parent = slackMessage({ ts: "1.000100", text: "<@U1> done", blocks: [] });
    const reply = slackMessage({
      ts: "1.000200",
      thread_ts: "1.000100",
      files: [
        {
          name: "clip.mp4",
          mimetype: "video/mp4",
          url_private: "http://127.0.0.1:9/files-pri/T1-F1/clip.mp4",
        },
      ],
    } as Partial<Message>);
    const html = slackChannel([parent, reply], [], { U1: "Requester", UBOT: "media-bot" }, "media-bot");
    expect(html).toContain('<span class="mention">@Requester</span> done');
    expect(html).toMatch(/<div class="thread">.*<video class="media"/s);
  });

  it("shows Slack's escaped characters as the characters", () => {
    const html = slackChannel(
      [slackMessage({ text: "*image edit &lt;prompt&gt;* fish &amp; chips" })],
      [],
      {},
      "media-bot",
    );
    expect(html).toContain("<strong>image edit &lt;prompt&gt;</strong> fish &amp; chips");
  });

  it("shows a file that is no picture as a chip that downloads it under its name, with its size", () => {
    const url = "http://127.0.0.1:9/attachments/2/3/spending-2026-12-01.csv";
    const html = discordChannel(
      [
        discordMessage({
          attachments: [
            {
              id: "3",
              filename: "spending-2026-12-01.csv",
              size: 2300,
              url,
              proxy_url: url,
              content_type: "text/csv",
            },
          ],
        }),
      ],
      {},
    );
    expect(html).toContain('download="spending-2026-12-01.csv"');
    expect(html).toContain(
      '<span class="name">spending-2026-12-01.csv</span><span class="size">2.2 KB</span>',
    );
    expect(html).not.toContain("<img");
  });

  it("shows a person's Slack DM with the app under a line naming both, its files in the thread", () => {
    const names = { U1: "Requester", UBOT: "media-bot" };
    expect(slackDirect([], names, "media-bot", "U1")).toContain("Nothing here yet");
    const card = slackMessage({ channel: "D1", ts: "1.000100", text: "Media service usage" });
    const chart = slackMessage({
      channel: "D1",
      ts: "1.000200",
      thread_ts: "1.000100",
      files: [
        {
          name: "usage.png",
          mimetype: "image/png",
          url_private: "http://127.0.0.1:9/files-pri/T1-F1/usage.png",
        },
      ],
    } as Partial<Message>);
    const html = slackDirect([card, chart], names, "media-bot", "U1");
    expect(html).toContain('just between <span class="mention">@Requester</span> and media-bot.</div>');
    expect(html).toMatch(
      /Media service usage.*<div class="thread">.*<img class="media"[^>]*alt="usage.png"/s,
    );
  });
});
