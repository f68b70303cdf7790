import { describe, expect, it } from "vitest";
import { pseudoMessage } from "../core/i18n/pseudo.js";
import { grammarWords, uncatalogued, visibleTexts } from "./check.js";

describe("the pseudo-locale run's check", () => {
  it("reads the strings people see in a Discord message and a Slack view, not ids or links", () => {
    const discord = {
      content: "hello",
      embeds: [{ title: "T", description: "D", fields: [{ name: "N", value: "V" }], footer: { text: "F" } }],
      components: [
        { type: 1, components: [{ type: 2, label: "L", custom_id: "media:x:1", url: "https://x" }] },
      ],
    };
    expect(visibleTexts(discord)).toEqual(["hello", "T", "D", "N", "V", "F", "L"]);
    const slack = {
      type: "modal",
      title: { type: "plain_text", text: "Title" },
      blocks: [
        {
          type: "input",
          block_id: "b",
          label: { type: "plain_text", text: "Prompt" },
          element: { action_id: "a" },
        },
      ],
    };
    expect(visibleTexts(slack)).toEqual(["Title", "Prompt"]);
  });

  it("finds English outside the catalogues, and lets through typed words, commands, links and mentions", () => {
    const allowed = new Set(["fox", "snow", ...grammarWords()]);
    expect(
      uncatalogued(`${pseudoMessage("Queued at the media service.")} a fox in the snow`, allowed),
    ).toEqual([]);
    expect(
      uncatalogued(
        `\`/media image generate\` <@U123> <https://x.test/a|${pseudoMessage("link")}> image`,
        allowed,
      ),
    ).toEqual([]);
    expect(uncatalogued(`${pseudoMessage("Job")} xqzc8DvqoY_V kkNvOoRdRNnL`, allowed)).toEqual([]);
    expect(uncatalogued("Nothing was charged.", allowed)).toEqual(["nothing", "charged"]);
  });
});
