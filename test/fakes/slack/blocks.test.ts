import { describe, expect, it } from "vitest";
import { LIMITS, messageBlockErrors, viewErrors } from "./blocks.js";

const plain = (text: string) => ({ type: "plain_text", text });
const button = (action_id: string, text = "Go") => ({ type: "button", action_id, text: plain(text) });

describe("Block Kit limits of the fake Slack", () => {
  it("accepts a message within every limit", () => {
    expect(
      messageBlockErrors([
        { type: "header", text: plain("h".repeat(LIMITS.headerText)) },
        {
          type: "section",
          text: { type: "mrkdwn", text: "s".repeat(LIMITS.sectionText) },
          accessory: button("a"),
        },
        { type: "image", image_url: "https://cdn.example/p/fox.JPG?sig=1", alt_text: "a fox" },
        { type: "actions", elements: [button("keep_1", "k".repeat(LIMITS.buttonText)), button("keep_2")] },
        { type: "context", elements: [{ type: "mrkdwn", text: "footer" }] },
        { type: "divider" },
      ]),
    ).toEqual([]);
  });

  it("shows an uploaded file by slack_file only when it names one file the workspace has", () => {
    const image = (slack_file: unknown, more = {}) => ({
      type: "image",
      slack_file,
      alt_text: "fox",
      ...more,
    });
    const known = (id: string) => id === "F1";
    expect(messageBlockErrors([image({ id: "F1" })], known)).toEqual([]);
    expect(messageBlockErrors([image({ url: "https://files.slack.com/F1/fox.png" })], known)).toEqual([]);
    expect(
      messageBlockErrors(
        [
          image({ id: "F2" }),
          image({ id: "F1", url: "https://files.slack.com/F1" }),
          image("F1"),
          image({ id: "F1" }, { image_url: "https://x.test/fox.png" }),
        ],
        known,
      ),
    ).toEqual([
      "must provide exactly one of id or url [json-pointer:/blocks/1/slack_file]",
      "failed to match all allowed schemas [json-pointer:/blocks/2/slack_file]",
      "must provide either image_url or slack_file, not both [json-pointer:/blocks/3]",
      "invalid slack file: F2 [json-pointer:/blocks/0/slack_file]",
    ]);
  });

  it("names each broken limit with Slack's wording and a json-pointer", () => {
    expect(
      messageBlockErrors([
        { type: "section", text: { type: "mrkdwn", text: "s".repeat(LIMITS.sectionText + 1) } },
        { type: "header", text: { type: "mrkdwn", text: "not plain" } },
        { type: "header", text: plain("h".repeat(LIMITS.headerText + 1)) },
        { type: "image", image_url: "https://cdn.example/fox.mp4", alt_text: "video" },
        { type: "image", image_url: "https://cdn.example/fox.png" },
        {
          type: "actions",
          elements: [
            button("same"),
            button("same", "b".repeat(LIMITS.buttonText + 1)),
            button("x".repeat(LIMITS.actionId + 1)),
          ],
        },
        { type: "section", text: plain("") },
        { type: "carousel_of_dreams" },
      ]),
    ).toEqual([
      "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
      "failed to match all allowed schemas [json-pointer:/blocks/1/text]",
      "must be less than 151 characters [json-pointer:/blocks/2/text/text]",
      "downloading image failed [json-pointer:/blocks/3/image_url]",
      "missing required field: alt_text [json-pointer:/blocks/4]",
      "duplicate action_id: same [json-pointer:/blocks/5/elements/1/action_id]",
      "must be less than 76 characters [json-pointer:/blocks/5/elements/1/text/text]",
      "must be less than 256 characters [json-pointer:/blocks/5/elements/2/action_id]",
      "must be more than 0 characters [json-pointer:/blocks/6/text/text]",
      "failed to match all allowed schemas [json-pointer:/blocks/7]",
    ]);
  });

  it("allows the same action_id in different blocks but not a repeated block_id", () => {
    expect(
      messageBlockErrors([
        { type: "actions", block_id: "row", elements: [button("go")] },
        { type: "actions", block_id: "row", elements: [button("go")] },
      ]),
    ).toEqual(["duplicate block_id: row [json-pointer:/blocks/1/block_id]"]);
  });

  it("caps a message at 50 blocks and a modal at 100", () => {
    const dividers = (n: number) => Array.from({ length: n }, () => ({ type: "divider" }));
    const modal = (n: number) => ({ type: "modal", title: plain("Media"), blocks: dividers(n) });

    expect(messageBlockErrors(dividers(LIMITS.messageBlocks))).toEqual([]);
    expect(messageBlockErrors(dividers(LIMITS.messageBlocks + 1))).toEqual([
      "no more than 50 items allowed [json-pointer:/blocks]",
    ]);
    expect(viewErrors(modal(LIMITS.viewBlocks))).toEqual([]);
    expect(viewErrors(modal(LIMITS.viewBlocks + 1))).toEqual([
      "failed to match all allowed schemas [json-pointer:/view]",
      "no more than 100 items allowed [json-pointer:/view/blocks]",
    ]);
  });

  it("checks a modal's own fields and its inputs", () => {
    expect(
      viewErrors({
        type: "modal",
        title: plain("t".repeat(LIMITS.viewTitle + 1)),
        private_metadata: "m".repeat(LIMITS.privateMetadata + 1),
        blocks: [
          {
            type: "input",
            label: plain("Ratio"),
            element: {
              type: "static_select",
              action_id: "ratio",
              options: Array.from({ length: LIMITS.options + 1 }, (_, i) => ({
                text: plain(`${i}`),
                value: `${i}`,
              })),
            },
          },
          {
            type: "input",
            label: plain("File"),
            element: { type: "file_input", action_id: "f", max_files: 11 },
          },
        ],
      }),
    ).toEqual([
      "failed to match all allowed schemas [json-pointer:/view]",
      "must be less than 25 characters [json-pointer:/view/title/text]",
      "must be less than 3001 characters [json-pointer:/view/private_metadata]",
      "no more than 100 items allowed [json-pointer:/view/blocks/0/element/options]",
      "must be between 1 and 10 [json-pointer:/view/blocks/1/element/max_files]",
      "missing required field: submit [json-pointer:/view]",
    ]);
  });
});
