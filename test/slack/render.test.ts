import { Readable } from "node:stream";
import type { KnownBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { type Card, card } from "../../src/core/base/cards.js";
import { listCard, PAGE_SIZE, readPageValue, SEARCH_BYTES } from "../../src/core/render/lists.js";
import { SLACK_LIMITS } from "../../src/slack/limits.js";
import { decodeActionId, encodeActionId } from "../../src/slack/render/action-id.js";
import { readSearchBlockId, renderMessage } from "../../src/slack/render/card.js";
import { cut, escapeText, link } from "../../src/slack/render/mrkdwn.js";
import { messageBlockErrors } from "../fakes/slack/blocks.js";

/** Renders and checks the blocks the way the fake Slack (and Slack) would refuse them. */
function render(message: Card | { text: string }, options = {}) {
  const rendered = renderMessage(message, options);
  expect(messageBlockErrors(rendered.blocks)).toEqual([]);
  return rendered;
}

const texts = (blocks: KnownBlock[]) => JSON.stringify(blocks);

const file = {
  name: "fox.png",
  contentType: "image/png",
  size: 3,
  open: async () => Readable.from([Buffer.from("png")]),
};

describe("mrkdwn helpers", () => {
  it("escapes & < > and makes links whose label and URL cannot break out", () => {
    expect(escapeText("a < b && c > d")).toBe("a &lt; b &amp;&amp; c &gt; d");
    expect(link("https://x.test/a b|c>", "Fox <1> | 2")).toBe(
      "<https://x.test/a%20b%7Cc%3E|Fox &lt;1&gt; ¦ 2>",
    );
  });

  it("cuts with an ellipsis, never inside an escape or an emoji", () => {
    expect(cut("abcdef", 4)).toBe("abc…");
    expect(cut(escapeText("ab<cd"), 6)).toBe("ab…");
    expect(cut("ab🦊cd", 4)).toBe("ab…");
  });
});

describe("action ids", () => {
  it("round-trip our action, the job id and the value", () => {
    const id = encodeActionId({ action: "confirm", jobId: "job:1/ä", value: "2" });
    expect(id.startsWith("media:confirm:")).toBe(true);
    expect(decodeActionId(id)).toEqual({ action: "confirm", jobId: "job:1/ä", value: "2" });
    expect(decodeActionId(encodeActionId({ action: "animate", jobId: "j1" }))).toEqual({
      action: "animate",
      jobId: "j1",
    });
  });

  it("refuse ids over Slack's 255 characters and ignore foreign ones", () => {
    expect(() => encodeActionId({ action: "confirm", jobId: "x".repeat(250) })).toThrow(/255/);
    expect(decodeActionId("keep_1")).toBeUndefined();
    expect(decodeActionId("media:confirm")).toBeUndefined();
    expect(decodeActionId("media:confirm:%E0:1")).toBeUndefined();
  });
});

describe("renderMessage", () => {
  it("renders a card as header, text, progress, fields, links, actions and footer", () => {
    const { text, blocks } = render(
      card("Image: a <red> fox", "progress", {
        lines: ["Working on it & more"],
        progress: { percent: 40, label: "Working" },
        fields: [
          { name: "Seed", value: "7", inline: true },
          { name: "Ratio", value: "16:9", inline: true },
          { name: "Prompt", value: "a red fox" },
        ],
        links: [{ label: "Download", url: "https://cdn.test/fox.mp4?sig=a&b=c" }],
        actions: [
          { type: "button", action: "confirm", jobId: "j1", value: "1", label: "Keep 1", style: "primary" },
          { type: "button", action: "confirm_both", jobId: "j1", label: "Keep both", style: "success" },
          { type: "button", action: "regenerate", jobId: "j1", label: "Again", style: "secondary" },
        ],
        footer: "Job j1",
      }),
    );

    expect(text).toBe("Image: a &lt;red&gt; fox: Working: Working on it &amp; more");
    expect(blocks).toEqual([
      { type: "header", text: { type: "plain_text", text: "⏳ Image: a <red> fox", emoji: true } },
      { type: "section", text: { type: "mrkdwn", text: "Working on it &amp; more" } },
      { type: "section", text: { type: "mrkdwn", text: "*Working*   ▰▰▰▰▱▱▱▱▱▱ 40%" } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: "*Seed*\n7" },
          { type: "mrkdwn", text: "*Ratio*\n16:9" },
        ],
      },
      { type: "section", text: { type: "mrkdwn", text: "*Prompt*\na red fox" } },
      { type: "section", text: { type: "mrkdwn", text: "<https://cdn.test/fox.mp4?sig=a&b=c|Download>" } },
      {
        type: "actions",
        elements: [
          expect.objectContaining({ action_id: "media:confirm:j1:1", style: "primary" }),
          expect.objectContaining({ action_id: "media:confirm_both:j1", style: "primary" }),
          expect.not.objectContaining({ style: expect.anything() }),
        ],
      },
      { type: "context", elements: [{ type: "mrkdwn", text: "Job j1" }] },
    ]);
  });

  it("shows images by URL, links other media, and announces files that go into the thread", () => {
    const { blocks } = render(
      card("Variants", "info", {
        media: [
          {
            kind: "image",
            name: "Variant 1",
            url: "https://s3.test/storage/files/a/v1.png?X-Sig=1",
            alt: "first",
          },
          { kind: "image", name: "Preview", url: "https://s3.test/preview?id=2" },
          { kind: "video", name: "Clip", url: "https://s3.test/clip.mp4" },
          { kind: "image", name: "Result", file, url: "https://s3.test/result.png" },
        ],
      }),
      { filesInThread: "uploaded", fileIds: { "fox.png": "F0RESULT" } },
    );

    expect(blocks).toContainEqual(
      expect.objectContaining({
        type: "image",
        image_url: "https://s3.test/storage/files/a/v1.png?X-Sig=1",
        alt_text: "first",
      }),
    );
    expect(blocks).toContainEqual(expect.objectContaining({ type: "image", slack_file: { id: "F0RESULT" } }));
    expect(texts(blocks)).toContain("<https://s3.test/preview?id=2|Preview>");
    expect(texts(blocks)).toContain("<https://s3.test/clip.mp4|Clip>");
    expect(texts(blocks)).toContain("📎 fox.png: in the thread of this message");
    expect(texts(blocks)).not.toContain("result.png");
  });

  it("links an uploaded image Slack has not processed yet (no id to show it by), which stays in the thread", () => {
    const result = card("Image", "success", {
      media: [{ kind: "image", name: "Result", file, url: "https://s3.test/result.png" }],
    });
    const { blocks } = render(result, { filesInThread: "uploaded", fileIds: {} });

    expect(blocks.some((b) => b.type === "image")).toBe(false);
    expect(texts(blocks)).toContain("📎 fox.png: in the thread of this message");
    expect(texts(blocks)).toContain("<https://s3.test/result.png|Result>");
  });

  it("says a file is still on its way into the thread while it uploads", () => {
    const result = card("Video", "success", {
      media: [{ kind: "video", name: "Clip", file, url: "https://s3.test/c.mp4" }],
    });
    expect(texts(render(result, { filesInThread: "uploading" }).blocks)).toContain(
      "📎 fox.png: uploading into the thread of this message…",
    );
  });

  it("puts a document (a CSV export) into the thread and never shows it as an image", () => {
    const csv = { ...file, name: "spending.csv", contentType: "text/csv" };
    const exported = card("Spending export", "success", {
      media: [{ kind: "file", name: "spending.csv", file: csv }],
    });
    const { blocks } = render(exported, { filesInThread: "uploaded", fileIds: { "spending.csv": "F1" } });
    expect(blocks.filter((b) => b.type === "image")).toEqual([]);
    expect(texts(blocks)).toContain("📎 spending.csv: in the thread of this message");
    expect(texts(render(exported, { filesInThread: "uploading" }).blocks)).toContain(
      "📎 spending.csv: uploading into the thread of this message…",
    );
  });

  it("shows a file's link instead when it cannot go into a thread (ephemeral)", () => {
    const { blocks } = render(
      card("Video", "success", {
        media: [{ kind: "video", name: "Clip", file, url: "https://s3.test/c.mp4" }],
      }),
    );
    expect(texts(blocks)).toContain("<https://s3.test/c.mp4|Clip>");
    expect(texts(blocks)).not.toContain("📎");
  });

  it("fits a full list page, its Show buttons, its pages, links and the longest search in Slack's limits", () => {
    const search = "ü".repeat(SEARCH_BYTES / 2);
    const entries = Array.from({ length: PAGE_SIZE }, (_, i) => ({
      title: `${"Mockup video ".repeat(10)}${i}`,
      detail: "d".repeat(3000),
      show: `cm2yaz9j10008l0qg9npyjg${i}`.padEnd(48, "x"),
      link: { label: "message", url: `https://slack.com/archives/C1/p100000000${i}` },
    }));
    const paging = { page: 999, totalPages: 1000, totalCount: 9999 };
    const { blocks } = render(
      listCard("Mockup videos", entries, paging, { empty: "none" }, { list: "mockup_videos", search }),
    );
    const actions = blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements);
    expect(actions).toHaveLength(PAGE_SIZE + 2);
    for (const element of actions) {
      const id = "action_id" in element ? element.action_id! : "";
      expect(id.length).toBeLessThanOrEqual(SLACK_LIMITS.actionId);
    }
    const next = decodeActionId((actions.at(-1) as { action_id: string }).action_id)!;
    expect(next).toMatchObject({ action: "page", jobId: "mockup_videos" });
    expect(readPageValue(next.value!)).toEqual({ page: 1000, search });
    // Every field keeps its link whole, even when its text is cut.
    expect(texts(blocks).match(/\|message>/g)).toHaveLength(PAGE_SIZE);
  });

  it("cuts everything to Slack's limits and keeps a long message within 50 blocks", () => {
    const { blocks, text } = render(
      card("T".repeat(500), "success", {
        lines: ["x".repeat(5000), "<".repeat(2000)],
        fields: [
          ...Array.from({ length: 25 }, (_, i) => ({ name: `F${i}`, value: "v".repeat(3000), inline: true })),
          ...Array.from({ length: 200 }, (_, i) => ({ name: `Entry ${i}`, value: "w".repeat(1500) })),
        ],
        actions: [
          { type: "button", action: "regenerate", jobId: "j", label: "L".repeat(100), style: "secondary" },
        ],
        footer: "Job j",
      }),
    );

    expect(blocks).toHaveLength(SLACK_LIMITS.messageBlocks);
    expect(blocks.at(-1)).toEqual({ type: "context", elements: [{ type: "mrkdwn", text: "Job j" }] });
    expect(blocks.at(-2)).toMatchObject({ type: "actions" });
    expect(texts(blocks)).toContain("The rest is longer than a Slack message can show.");
    expect(text.length).toBeLessThanOrEqual(SLACK_LIMITS.fallbackText);
  });

  it("shows a person a card line names as a mention, in the blocks and the notification text", () => {
    const { text, blocks } = render(
      card("Not allowed", "error", { lines: [["Only ", { userId: "U0REQ" }, " & <admins> may click."]] }),
    );
    expect(blocks[1]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: "Only <@U0REQ> &amp; &lt;admins&gt; may click." },
    });
    expect(text).toBe("Not allowed: Only <@U0REQ> &amp; &lt;admins&gt; may click.");
  });

  it("renders text messages with a mention", () => {
    const { text, blocks } = render({ text: "Fox <1> is ready." }, { mentionUserId: "U1" });
    expect(text).toBe("<@U1> Fox &lt;1&gt; is ready.");
    expect(blocks).toEqual([
      { type: "section", text: { type: "mrkdwn", text: "<@U1> Fox &lt;1&gt; is ready." } },
    ]);
  });
});

describe("how a result was made", () => {
  it("is one context block under the card: the whole prompt and each setting, within Slack's limits", () => {
    const prompt = `${"a fox in the snow ".repeat(111)}END`;
    const { blocks } = render(
      card("Image: a fox", "success", {
        recipe: [
          { name: "Prompt", value: prompt },
          { name: "Negative prompt", value: "blur & <noise>" },
          { name: "Seed", value: "42" },
        ],
      }),
    );
    const contexts = blocks.filter((b) => b.type === "context") as { elements: { text: string }[] }[];
    expect(contexts[0]?.elements.map((e) => e.text)).toEqual([
      `*Prompt:* ${prompt}`,
      "*Negative prompt:* blur &amp; &lt;noise&gt;",
      "*Seed:* 42",
    ]);
  });

  it("keeps to ten elements of 3000 characters however long the recipe", () => {
    const recipe = Array.from({ length: 14 }, (_, i) => ({ name: `Setting ${i}`, value: "v".repeat(5000) }));
    const { blocks } = render(card("Video", "success", { recipe }));
    const [context] = blocks.filter((b) => b.type === "context") as { elements: { text: string }[] }[];
    expect(context?.elements).toHaveLength(SLACK_LIMITS.contextElements);
    for (const e of context!.elements) expect(e.text.length).toBeLessThanOrEqual(SLACK_LIMITS.contextText);
  });
});

describe("selects", () => {
  const select = {
    action: "my_default",
    jobId: "aspect_ratio",
    label: "Aspect ratio",
    placeholder: "Aspect ratio: 1:1, the server's",
    options: [
      { label: "16:9", value: "16:9" },
      { label: "Clear", value: "-" },
    ],
  };

  it("is a section with its label and the list beside it, the chosen entry shown, before the buttons", () => {
    const { blocks } = render(card("Defaults", "info", { selects: [{ ...select, selected: "16:9" }] }));
    expect(blocks[1]).toMatchObject({
      type: "section",
      text: { text: "*Aspect ratio*" },
      accessory: {
        type: "static_select",
        action_id: encodeActionId({ action: "my_default", jobId: "aspect_ratio" }),
        initial_option: { value: "16:9" },
      },
    });
  });

  it("searches a long list as it is typed, its block naming the command and option to ask", () => {
    const search = { command: "settings", option: "avatar" };
    const { blocks } = render(
      card("Defaults", "info", { selects: [{ ...select, jobId: "avatar", search }] }),
    );
    const section = blocks[1] as { block_id: string; accessory: { type: string; options?: unknown } };
    expect(section.accessory.type).toBe("external_select");
    expect(section.accessory.options).toBeUndefined();
    expect(readSearchBlockId(section.block_id)).toEqual(search);
  });
});
