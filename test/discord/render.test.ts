import { Readable } from "node:stream";
import {
  IncomingWebhookRequestPartialSchema,
  IncomingWebhookUpdateRequestPartialSchema,
  MessageCreateRequestSchema,
  MessageEditRequestPartialSchema,
  ModalInteractionCallbackRequestSchema,
} from "discord-api-spec/zod";
import { TextInputStyle } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { actionByName } from "../../src/core/actions/catalogue.js";
import { card } from "../../src/core/base/cards.js";
import type { OutgoingFile } from "../../src/core/base/ports.js";
import { COMMANDS } from "../../src/core/commands/catalogue.js";
import { errorCard } from "../../src/core/render/errors.js";
import { progressCard, queuedCard, resultCard, variantsCard } from "../../src/core/render/job.js";
import { listCard, PAGE_SIZE, readPageValue, SEARCH_BYTES } from "../../src/core/render/lists.js";
import { decodeControlId } from "../../src/discord/custom-id.js";
import { formFields, formOptions, optionsOf } from "../../src/discord/forms.js";
import { DISCORD_LIMITS } from "../../src/discord/limits.js";
import { TONE_COLOURS } from "../../src/discord/render/embed.js";
import { type MessageBody, renderMessage } from "../../src/discord/render/message.js";
import { formModal } from "../../src/discord/render/modal.js";
import { cut, markdown } from "../../src/discord/render/text.js";
import { messageRules, modalRules } from "../fakes/discord/rules.js";
import { checkSchema } from "../fakes/discord/validate.js";

/** A body is sent as a followup, an interaction edit, a channel message or a channel edit: all must pass. */
function expectValid(body: MessageBody & { flags?: number }) {
  const issues = [
    ...checkSchema(MessageCreateRequestSchema, body),
    ...checkSchema(MessageEditRequestPartialSchema, body),
    ...checkSchema(IncomingWebhookRequestPartialSchema, body),
    ...checkSchema(IncomingWebhookUpdateRequestPartialSchema, body),
    ...messageRules(body as unknown as Record<string, unknown>, ""),
  ];
  expect(issues).toEqual([]);
}

const embedChars = (body: MessageBody) =>
  body.embeds.reduce(
    (n, e) =>
      n +
      (e.title?.length ?? 0) +
      (e.description?.length ?? 0) +
      (e.footer?.text.length ?? 0) +
      (e.fields ?? []).reduce((m, f) => m + f.name.length + f.value.length, 0),
    0,
  );

function file(name: string, contentType: string): OutgoingFile {
  return { name, contentType, size: 3, open: async () => Readable.from([Buffer.from("abc")]) };
}

const view = { id: "Job_1234abcd", title: "Image: a red fox" };

describe("cards as Discord messages", () => {
  it("shows progress as a bar in a progress-coloured embed, with the job id in the footer", () => {
    const { body, files } = renderMessage(
      progressCard(view, { state: "working", progress: 40, terminal: false }),
    );
    expectValid(body);
    expect(files).toEqual([]);
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0]).toMatchObject({
      title: "Image: a red fox",
      color: TONE_COLOURS.progress,
      footer: { text: "Job Job_1234abcd" },
    });
    expect(body.embeds[0]!.description).toContain("▰▰▰▰▱▱▱▱▱▱ 40% · Working");
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(renderMessage(queuedCard(view)).body.embeds[0]!.description).toContain("▱▱▱▱▱▱▱▱▱▱ …");
  });

  it("puts the two variants in captioned embeds and the three choices on one row of buttons", () => {
    const { body } = renderMessage(
      variantsCard(view, ["https://cdn.example/v1.png", "https://cdn.example/v2.png"]),
    );
    expectValid(body);
    expect(body.embeds.map((e) => [e.title, e.image?.url])).toEqual([
      ["Image: a red fox", undefined],
      ["Variant 1", "https://cdn.example/v1.png"],
      ["Variant 2", "https://cdn.example/v2.png"],
    ]);
    expect(body.components).toHaveLength(1);
    const buttons = body.components[0]!.components;
    expect(buttons.map((b) => "label" in b && b.label)).toEqual(["Keep 1", "Keep 2", "Keep both"]);
    expect(buttons.map((b) => "custom_id" in b && decodeControlId(b.custom_id))).toEqual([
      { action: "confirm", jobId: view.id, value: "1" },
      { action: "confirm", jobId: view.id, value: "2" },
      { action: "confirm_both", jobId: view.id },
    ]);
  });

  it("uploads an image result and shows it inside the embed by its attachment name", () => {
    const image = file("My fox (1).png", "image/png");
    const { body, files } = renderMessage(
      resultCard(
        view,
        { kind: "image", name: "My fox", file: image, alt: "My fox" },
        {
          actions: [
            { type: "button", action: "regenerate", jobId: view.id, label: "Regenerate", style: "secondary" },
          ],
        },
      ),
    );
    expectValid(body);
    expect(files).toEqual([{ name: "My_fox_1_.png", file: image }]);
    expect(body.attachments).toEqual([{ id: "0", filename: "My_fox_1_.png", description: "My fox" }]);
    expect(body.embeds[0]!.image).toEqual({ url: "attachment://My_fox_1_.png" });
    expect(body.embeds[0]!.color).toBe(TONE_COLOURS.success);
  });

  it("attaches an MP4 as a file, not as an embed image", () => {
    const video = file("clip.mp4", "video/mp4");
    const { body, files } = renderMessage(
      resultCard(view, { kind: "video", name: "clip", file: video, url: "https://dl.example/clip.mp4" }),
    );
    expectValid(body);
    expect(files.map((f) => f.name)).toEqual(["clip.mp4"]);
    expect(body.embeds[0]!.image).toBeUndefined();
    expect(body.embeds[0]!.description).toContain("[Download the video](https://dl.example/clip.mp4)");
  });

  it("attaches a document (a CSV export) as it is, never as an embed image", () => {
    const csv = file("spending.csv", "text/csv");
    const { body, files } = renderMessage(
      card("Spending export: 3 jobs this period", "success", {
        media: [{ kind: "file", name: "spending.csv", file: csv, alt: "The period's jobs" }],
      }),
    );
    expectValid(body);
    expect(files).toEqual([{ name: "spending.csv", file: csv }]);
    expect(body.attachments).toEqual([
      { id: "0", filename: "spending.csv", description: "The period's jobs" },
    ]);
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0]!.image).toBeUndefined();
    expect(JSON.stringify(body.embeds)).not.toContain("attachment://");
  });

  it("gives a result over the upload limit as a link with the reason, and uploads nothing", () => {
    const url = "https://dl.example/big.mp4?X-Amz-Signature=abc(1)";
    const { body, files } = renderMessage(
      resultCard(view, {
        kind: "video",
        name: "big",
        url,
        oversize: { bytes: 50 * 1024 * 1024, limit: 10 * 1024 * 1024 },
      }),
    );
    expectValid(body);
    expect(files).toEqual([]);
    expect(body.attachments).toEqual([]);
    const description = body.embeds[0]!.description!;
    expect(description).toContain("50 MB, more than the 10 MB this conversation accepts");
    expect(description).toContain("(https://dl.example/big.mp4?X-Amz-Signature=abc%281%29)");
  });

  it("fits a full list page, its Show buttons, its pages and the longest search in Discord's limits", () => {
    const search = "é".repeat(SEARCH_BYTES / 2);
    const entries = Array.from({ length: PAGE_SIZE }, (_, i) => ({
      title: `${"Mockup video ".repeat(10)}${i}`,
      detail: "d".repeat(300),
      show: `cm2yaz9j10008l0qg9npyjg${i}`.padEnd(48, "x"),
      link: { label: "message", url: `https://discord.com/channels/1/2/${i}` },
    }));
    const paging = { page: 999, totalPages: 1000, totalCount: 9999 };
    const { body } = renderMessage(
      listCard("Mockup videos", entries, paging, { empty: "none" }, { list: "mockup_videos", search }),
    );
    expectValid(body);
    const ids = body.components.flatMap((row) =>
      row.components.map((c) => ("custom_id" in c ? c.custom_id : "")),
    );
    // Ten Show, Previous and Next: three rows of five at most.
    expect(ids).toHaveLength(PAGE_SIZE + 2);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(DISCORD_LIMITS.customId);
    const next = decodeControlId(ids.at(-1)!)!;
    expect(next).toMatchObject({ action: "page", jobId: "mockup_videos" });
    expect(readPageValue(next.value!)).toEqual({ page: 1000, search });
    const fields = body.embeds[0]!.fields!;
    // Numbered as the Show buttons are (Discord's escapes aside).
    expect(fields[0]!.name.replaceAll("\\", "")).toMatch(/^1\. Mockup video/);
    expect(fields[0]!.value).toContain("[message](https://discord.com/channels/1/2/0)");
  });

  it("cuts an oversized card to every embed limit and the 6000-character total", () => {
    const huge = card("T".repeat(400), "info", {
      lines: ["x".repeat(5000), "y".repeat(5000)],
      fields: Array.from({ length: 40 }, (_, i) => ({
        name: `Field ${i} ${"n".repeat(300)}`,
        value: "v".repeat(2000),
      })),
      links: [{ label: "Open", url: "https://example.com/a" }],
      footer: "f".repeat(3000),
    });
    const { body } = renderMessage(huge);
    expectValid(body);
    const [embed] = body.embeds;
    expect(embed!.title!.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedTitle);
    expect(embed!.description!.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedDescription);
    expect(embed!.fields!.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedFields);
    expect(embed!.footer!.text.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedFooter);
    expect(embedChars(body)).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
    // The link survives the cut: it is what the reader needs.
    expect(embed!.description).toContain("[Open](https://example.com/a)");
  });

  it("shows how a result was made: the whole prompt, the settings as fields, within every limit", () => {
    const prompt = `${"a fox in the snow ".repeat(111)}END`; // 2001 characters: over a field's 1024
    const made = card("Image: a fox", "success", {
      recipe: [
        { name: "Prompt", value: prompt },
        { name: "Negative prompt", value: "blur" },
        { name: "Aspect ratio", value: "16:9" },
        { name: "Seed", value: "42" },
      ],
    });
    const { body } = renderMessage(made);
    expectValid(body);
    const [embed] = body.embeds;
    expect(embed!.description).toContain(prompt);
    expect(embed!.fields).toEqual([
      { name: "Negative prompt", value: "blur", inline: true },
      { name: "Aspect ratio", value: "16:9", inline: true },
      { name: "Seed", value: "42", inline: true },
    ]);

    // Beside a full card, the recipe is cut with the rest to the 6000-character total.
    const crowded = renderMessage({
      ...made,
      lines: ["x".repeat(3000)],
      recipe: [...made.recipe!, { name: "Script", value: "s".repeat(5000) }],
      fields: Array.from({ length: 30 }, (_, i) => ({ name: `F${i}`, value: "v".repeat(1000) })),
    }).body;
    expectValid(crowded);
    expect(crowded.embeds[0]!.description!.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedDescription);
    expect(crowded.embeds[0]!.fields!.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedFields);
    expect(embedChars(crowded)).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
  });

  it("escapes markdown in the core's plain text and never cuts an escape in half", () => {
    const { body } = renderMessage(card("a *fox*", "error", { lines: ["use __init__ and `x`"] }));
    expect(body.embeds[0]!.title).toBe("a \\*fox\\*");
    expect(body.embeds[0]!.description).toBe("use \\_\\_init\\_\\_ and \\`x\\`");
    expect(cut("ab\\*cd", 4)).toBe("ab…");
    expect(markdown("**", 3)).toBe("\\*…");
    expect(errorCard(new Error("x")).tone).toBe("error");
  });

  it("shows a person a card line names as a mention, in the embed, which pings nobody", () => {
    const { body } = renderMessage(
      card("Not allowed", "error", {
        lines: [["Only ", { userId: "123456789012345678" }, ", who *started* it, may click."]],
      }),
    );
    expectValid(body);
    expect(body.embeds[0]!.description).toBe("Only <@123456789012345678>, who \\*started\\* it, may click.");
    expect(body.content).toBe("");
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it("mentions only the requester, even when the text names everyone", () => {
    const { body } = renderMessage(
      { text: "@everyone Image: a fox is ready." },
      { mentionUserId: "123456789012345678" },
    );
    expectValid(body);
    expect(body.content).toBe("<@123456789012345678> @everyone Image: a fox is ready.");
    expect(body.allowed_mentions).toEqual({ parse: [], users: ["123456789012345678"] });
    expect(renderMessage({ text: "x".repeat(3000) }).body.content).toHaveLength(DISCORD_LIMITS.content);
  });
});

describe("forms as modals", () => {
  const byName = (name: string) => COMMANDS.find((c) => c.name === name)!;

  it("asks the photo-avatar traits in a modal Discord accepts", () => {
    const fields = formFields(formOptions(byName("photo_avatar.design"), {}));
    const modal = formModal("mb1form:abc", "Photo avatar design", fields);
    expect(checkSchema(ModalInteractionCallbackRequestSchema, { type: 9, data: modal })).toEqual([]);
    expect(modalRules(modal as unknown as Record<string, unknown>, "data")).toEqual([]);
    expect(fields.map((f) => [f.name, f.label, f.required])).toEqual([
      ["gender", "Gender", false],
      ["age", "Age", false],
      ["ethnicity", "Ethnicity", false],
      ["outfit", "Outfit", false],
      ["background", "Background", false],
    ]);
  });

  it("asks Animate's duration in a one-line box and its prompt in a paragraph", () => {
    const animate = actionByName("animate_image")!.form!;
    const modal = formModal("mb1form:a", animate.title, formFields(optionsOf(animate.of({} as never))));
    expect(checkSchema(ModalInteractionCallbackRequestSchema, { type: 9, data: modal })).toEqual([]);
    const styleOf = Object.fromEntries(
      modal.components.map((label) => {
        const input = (label as unknown as { component: { custom_id: string; style?: number } }).component;
        return [input.custom_id, input.style];
      }),
    );
    expect(styleOf).toMatchObject({ prompt: TextInputStyle.Paragraph, duration: TextInputStyle.Short });
    const duration = formFields(optionsOf(animate.of({} as never))).find((f) => f.name === "duration");
    expect(duration?.maxLength).toBe(2);
  });

  it("asks setup's API key in a modal only when the admin asked to enter one", () => {
    const setup = byName("setup");
    expect(formOptions(setup, { remove_api_key: true })).toEqual([]);
    const fields = formFields(formOptions(setup, { api_key: true }));
    expect(fields).toEqual([expect.objectContaining({ name: "api_key", label: "API key", required: true })]);
    const modal = formModal("mb1form:k", "Setup", fields);
    expect(checkSchema(ModalInteractionCallbackRequestSchema, { type: 9, data: modal })).toEqual([]);
    expect(() => formModal("x", "t", [])).toThrow(RangeError);
  });
});

describe("selects", () => {
  it("take a row each, each option saying what it sets, the chosen one default", () => {
    const selects = ["aspect_ratio", "style", "resolution", "duration", "delivery"].map((jobId) => ({
      action: "my_default",
      jobId,
      label: jobId,
      placeholder: `${jobId}: not set`,
      options: [
        { label: "a", value: "a" },
        { label: "b", value: "b" },
      ],
      selected: "b",
    }));
    const { body } = renderMessage(card("Defaults", "info", { selects }));
    expectValid(body);
    // Five rows at most: the fifth select is left out rather than the message refused.
    expect(body.components).toHaveLength(DISCORD_LIMITS.actionRows);
    const first = body.components[0]!.components[0] as {
      type: number;
      custom_id: string;
      options: unknown[];
    };
    expect(first.type).toBe(3);
    expect(decodeControlId(first.custom_id)).toEqual({ action: "my_default", jobId: "aspect_ratio" });
    expect(first.options).toEqual([
      { label: "aspect_ratio: a", value: "a" },
      { label: "aspect_ratio: b", value: "b", default: true },
    ]);
  });
});
