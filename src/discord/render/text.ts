import type { Line } from "../../core/base/cards.js";

/**
 * The core's plain text as Discord markdown: escaped, so a prompt with `*` or `_` shows as typed,
 * and cut to the limit of the field it goes in.
 */

/** Cuts to `max` characters with an ellipsis, never between a backslash and what it escapes or inside an emoji. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = text.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  if (/(^|[^\\])(\\\\)*\\$/.test(head)) head = head.slice(0, -1);
  return `${head}…`;
}

const INLINE = /[\\*_~`|[\]]/g;
// Headings, quotes, subtext and lists only start a line.
const LINE_START = /^(\s*)([#>-]|\d+\.)/gm;

/**
 * Markdown shown as typed. Written here because discord.js's escapeMarkdown takes about 100 ms
 * on a 5000-character prompt (it is quadratic), and a card escapes dozens of texts.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(INLINE, "\\$&").replace(LINE_START, "$1\\$2");
}

/** Escaped and cut: what every markdown text of a message gets (cut first too, escaping only grows). */
export function markdown(text: string, max: number): string {
  return cut(escapeMarkdown(cut(text, max)), max);
}

/** A card line as markdown: text escaped and cut like any other, people as mentions (`<@id>`). */
export function lineMarkdown(line: Line, max: number): string {
  const pieces = typeof line === "string" ? [line] : line;
  return cut(
    pieces.map((piece) => (typeof piece === "string" ? markdown(piece, max) : `<@${piece.userId}>`)).join(""),
    max,
  );
}

/** `[label](url)`; characters that would end the link early are percent-encoded. */
export function link(label: string, url: string): string {
  // encodeURIComponent leaves parentheses alone, and ")" would end the link.
  const safe = url.replace(
    /[()\s<>]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
  return `[${escapeMarkdown(label.replace(/[[\]]/g, ""))}](${safe})`;
}

/** Only web addresses are worth a link or an embed image. */
export function isWebUrl(url: string | undefined): url is string {
  return url !== undefined && /^https?:\/\/\S+$/i.test(url);
}
