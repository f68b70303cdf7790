import type { Button, ContextBlock, KnownBlock, PlainTextOption, SectionBlock } from "@slack/types";
import {
  type Card,
  type CardAction,
  type CardMedia,
  type CardSelect,
  isCard,
  progressBar,
  type Tone,
} from "../../core/base/cards.js";
import type { Message } from "../../core/base/ports.js";
import { translatorFor } from "../../core/i18n/translator.js";
import { SLACK_LIMITS as L } from "../limits.js";
import { encodeActionId } from "./action-id.js";
import { cut, escapeText, lineText, link, linkable, mrkdwn } from "./mrkdwn.js";

/**
 * Core messages as Block Kit: a header with the tone, sections for text and fields, the progress
 * bar as text, images by URL, buttons whose action_id routes the click back, and
 * the footer as context. Pure: the adapter decides where files go and says so in `filesInThread`.
 */

export interface Rendered {
  /** Notification and screen-reader text; Slack shows it where blocks cannot be shown. */
  text: string;
  blocks: KnownBlock[];
}

export interface RenderOptions {
  /**
   * Where the card's files stand in the message's thread (never under an ephemeral message):
   * on their way, or there. Left out, the card shows links instead.
   */
  filesInThread?: "uploading" | "uploaded";
  /** Slack's ids of the uploaded files, by name: images show in the message itself too. */
  fileIds?: Record<string, string>;
  /** Notifies this user. */
  mentionUserId?: string;
}

const TONE: Record<Tone, string> = {
  info: "ℹ️",
  progress: "⏳",
  success: "✅",
  warning: "⚠️",
  error: "❌",
};

const plain = (text: string, max: number) => ({
  type: "plain_text" as const,
  text: cut(text, max),
  emoji: true,
});

const section = (text: string): SectionBlock => ({ type: "section", text: { type: "mrkdwn", text } });

const context = (text: string): ContextBlock => ({
  type: "context",
  elements: [{ type: "mrkdwn", text: cut(text, L.contextText) }],
});

/** Paragraphs packed into as few sections as the text limit allows (a long one is cut). */
function paragraphs(texts: readonly string[]): SectionBlock[] {
  const sections: string[] = [];
  for (const text of texts.map((t) => cut(t, L.sectionText))) {
    const last = sections.at(-1);
    if (last !== undefined && last.length + 2 + text.length <= L.sectionText)
      sections[sections.length - 1] = `${last}\n\n${text}`;
    else sections.push(text);
  }
  return sections.map(section);
}

/** The field's link is kept whole: the value is cut to make room for it. */
function fieldText(field: Card["fields"][number], max: number): string {
  const to = field.link && linkable(field.link.url) ? ` · ${link(field.link.url, field.link.label)}` : "";
  return `${cut(`*${escapeText(field.name)}*\n${escapeText(field.value)}`, max - to.length)}${to}`;
}

/** Inline fields side by side (Slack's two columns, ten per section); the others as paragraphs. */
function fieldBlocks(fields: Card["fields"]): SectionBlock[] {
  const blocks: SectionBlock[] = [];
  let inline: SectionBlock | undefined;
  for (const field of fields) {
    if (!field.inline) {
      inline = undefined;
      blocks.push(...paragraphs([fieldText(field, L.sectionText)]));
      continue;
    }
    if (!inline || (inline.fields?.length ?? 0) >= L.sectionFields) {
      inline = { type: "section", fields: [] };
      blocks.push(inline);
    }
    inline.fields!.push({ type: "mrkdwn", text: fieldText(field, L.sectionFieldText) });
  }
  return mergeParagraphs(blocks);
}

/** Consecutive text sections (non-inline fields) become one, so a long list stays within 50 blocks. */
function mergeParagraphs(blocks: SectionBlock[]): SectionBlock[] {
  const merged: SectionBlock[] = [];
  for (const block of blocks) {
    const last = merged.at(-1);
    const text = block.text?.text;
    const lastText = last?.text?.text;
    if (text !== undefined && lastText !== undefined && lastText.length + 2 + text.length <= L.sectionText) {
      merged[merged.length - 1] = section(`${lastText}\n\n${text}`);
    } else merged.push(block);
  }
  return merged;
}

function isImageUrl(media: CardMedia): media is CardMedia & { url: string } {
  return (
    media.kind === "image" &&
    media.url !== undefined &&
    linkable(media.url) &&
    L.imageBlockPath.test(new URL(media.url).pathname)
  );
}

/** Images by URL become image blocks; uploaded files are announced; everything else is a link. */
function mediaBlocks(
  card: Card,
  { filesInThread, fileIds = {} }: RenderOptions,
): { blocks: KnownBlock[]; links: string[] } {
  const blocks: KnownBlock[] = [];
  const links: string[] = [];
  const inThread: string[] = [];
  for (const media of card.media) {
    const uploaded = media.file && filesInThread === "uploaded" ? fileIds[media.file.name] : undefined;
    if (media.kind === "image" && uploaded) {
      // The uploaded file itself, shown in the channel: no second copy, no link that expires.
      blocks.push({
        type: "image",
        slack_file: { id: uploaded },
        alt_text: cut(media.alt ?? media.name, L.altText),
        title: plain(media.name, L.imageTitle),
      });
      inThread.push(media.file!.name);
    } else if (media.file && filesInThread) {
      inThread.push(media.file.name);
      // An uploaded image not shown here (Slack still processing it): its link too.
      if (filesInThread === "uploaded" && media.kind === "image" && media.url && linkable(media.url))
        links.push(link(media.url, media.name));
    } else if (isImageUrl(media)) {
      blocks.push({
        type: "image",
        image_url: media.url,
        alt_text: cut(media.alt ?? media.name, L.altText),
        title: plain(media.name, L.imageTitle),
      });
    } else if (media.url && linkable(media.url) && !card.links.some((l) => l.url === media.url)) {
      links.push(link(media.url, media.name));
    }
  }
  if (inThread.length > 0) {
    const where = translatorFor(card.locale).text(
      filesInThread === "uploading" ? "platform.slack.files_uploading" : "platform.slack.files_in_thread",
    );
    blocks.push(context(`📎 ${inThread.map(escapeText).join(", ")}: ${where}`));
  }
  return { blocks, links };
}

const BUTTON_STYLE: Record<string, Button["style"]> = {
  primary: "primary",
  success: "primary",
  danger: "danger",
};

function control(action: CardAction): Button {
  const style = BUTTON_STYLE[action.style];
  return {
    type: "button",
    action_id: encodeActionId({
      action: action.action,
      jobId: action.jobId,
      ...(action.value !== undefined && { value: action.value }),
    }),
    text: plain(action.label, L.buttonText),
    ...(style && { style }),
  };
}

/** Where a searchable select's suggestions come from: the block_suggestion carries its block_id. */
const SEARCH_BLOCK = "search";
export const SEARCH_BLOCK_ID = /^search:/;

export function searchBlockId(search: NonNullable<CardSelect["search"]>): string {
  return [SEARCH_BLOCK, search.command, search.option].map(encodeURIComponent).join(":");
}

/** The command and option a searchable select's block asks suggestions of. */
export function readSearchBlockId(blockId: string): CardSelect["search"] {
  const [kind, command, option, ...rest] = blockId.split(":");
  if (kind !== SEARCH_BLOCK || !command || !option || rest.length > 0) return undefined;
  return { command: decodeURIComponent(command), option: decodeURIComponent(option) };
}

/**
 * A select beside its label: a section whose accessory is the list, the chosen entry shown. A
 * searchable one is an external select: Slack asks the app for entries as the person types.
 */
function selectBlock(select: CardSelect): SectionBlock {
  const options: PlainTextOption[] = select.options
    .slice(0, L.selectOptions)
    .map((o) => ({ text: plain(o.label, L.optionText), value: o.value.slice(0, L.optionValue) }));
  const initial = options.find((o) => o.value === select.selected);
  const common = {
    action_id: encodeActionId({ action: select.action, jobId: select.jobId }),
    placeholder: plain(select.placeholder, L.placeholder),
    ...(initial && { initial_option: initial }),
  };
  return {
    type: "section",
    text: { type: "mrkdwn", text: `*${escapeText(select.label)}*` },
    ...(select.search && { block_id: searchBlockId(select.search) }),
    accessory: select.search
      ? { type: "external_select", min_query_length: 0, ...common }
      : { type: "static_select", options, ...common },
  };
}

function actionBlocks(actions: readonly CardAction[]): KnownBlock[] {
  const elements = actions.map(control);
  const blocks: KnownBlock[] = [];
  for (let i = 0; i < elements.length; i += L.actionsElements) {
    blocks.push({ type: "actions", elements: elements.slice(i, i + L.actionsElements) });
  }
  return blocks;
}

/** How the result was made, small under it: one context element per entry (at most ten). */
function recipeBlocks(recipe: Card["recipe"]): KnownBlock[] {
  if (!recipe || recipe.length === 0) return [];
  return [
    {
      type: "context",
      elements: recipe.slice(0, L.contextElements).map((r) => ({
        type: "mrkdwn" as const,
        text: cut(`*${escapeText(r.name)}:* ${escapeText(r.value)}`, L.contextText),
      })),
    },
  ];
}

function renderCard(card: Card, options: RenderOptions): Rendered {
  const media = mediaBlocks(card, options);
  const links = [
    ...card.links.filter((l) => linkable(l.url)).map((l) => link(l.url, l.label)),
    ...media.links,
  ];
  const progress = card.progress
    ? [section(`*${escapeText(card.progress.label)}*   ${progressBar(card.progress.percent)}`)]
    : [];
  const head: KnownBlock[] = [
    { type: "header", text: plain(`${TONE[card.tone]} ${card.title}`, L.headerText) },
    ...(options.mentionUserId ? [section(`<@${options.mentionUserId}>`)] : []),
    ...paragraphs(card.lines.map(lineText)),
    ...progress,
    ...fieldBlocks(card.fields),
    ...recipeBlocks(card.recipe),
    ...media.blocks,
    ...(links.length > 0 ? [section(cut(links.join("  ·  "), L.sectionText))] : []),
  ];
  const tail: KnownBlock[] = [
    ...(card.selects ?? []).map(selectBlock),
    ...actionBlocks(card.actions),
    ...(card.footer ? [context(escapeText(card.footer))] : []),
  ];
  const room = L.messageBlocks - tail.length;
  const blocks =
    head.length <= room
      ? [...head, ...tail]
      : [...head.slice(0, room - 1), context("The rest is longer than a Slack message can show."), ...tail];
  const first = card.lines[0];
  const summary = [
    escapeText(card.title),
    card.progress && escapeText(card.progress.label),
    first !== undefined && lineText(first),
  ]
    .filter(Boolean)
    .join(": ");
  const mention = options.mentionUserId ? `<@${options.mentionUserId}> ` : "";
  return { text: mention + cut(summary, L.fallbackText), blocks };
}

export function renderMessage(message: Message, options: RenderOptions = {}): Rendered {
  if (isCard(message)) return renderCard(message, options);
  const mention = options.mentionUserId ? `<@${options.mentionUserId}> ` : "";
  const text = mention + mrkdwn(message.text, L.sectionText - mention.length);
  return { text: cut(text, L.fallbackText), blocks: [section(text)] };
}
