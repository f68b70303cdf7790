import type { Line } from "../../core/base/cards.js";
import { SLACK_LIMITS } from "../limits.js";

/**
 * Plain text from the core becomes Slack text here: escaped, so a prompt with `<` or `&` shows as
 * typed, and cut to the limit of the field it goes in.
 */

export function escapeText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Cuts to `max` characters with an ellipsis, never in the middle of an escape or an emoji. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = text.slice(0, max - 1).replace(/&[a-z]*$/, "");
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}…`;
}

/** Escaped and cut: what every mrkdwn text of a message gets. */
export function mrkdwn(text: string, max: number): string {
  return cut(escapeText(text), max);
}

/** A card line as mrkdwn, not cut: text escaped, people as mentions (`<@U…>`). */
export function lineText(line: Line): string {
  const pieces = typeof line === "string" ? [line] : line;
  return pieces
    .map((piece) => (typeof piece === "string" ? escapeText(piece) : `<@${piece.userId}>`))
    .join("");
}

/** `<url|label>`; characters that would end the link early are percent-encoded. */
export function link(url: string, label: string): string {
  const safe = url.replace(/[<>|\s]/g, (c) => encodeURIComponent(c));
  return `<${safe}|${escapeText(label).replaceAll("|", "¦")}>`;
}

/** A link is only worth sending when Slack will accept it. */
export function linkable(url: string): boolean {
  return /^https?:\/\//i.test(url) && url.length <= SLACK_LIMITS.url;
}
