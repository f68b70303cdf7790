import type { OutgoingFile } from "./ports.js";

/**
 * The neutral view model every adapter renders (Discord embeds and components, Slack Block Kit).
 * Text is plain: adapters escape it and render links, so no platform markup leaks into the core.
 */

export type Tone = "info" | "progress" | "success" | "warning" | "error";

export interface Card {
  title: string;
  tone: Tone;
  /** Paragraphs of plain text. */
  lines: string[];
  /** Shown as a bar; `percent` null means "working, no figure yet". */
  progress?: { percent: number | null; label: string };
  fields: { name: string; value: string; inline?: boolean }[];
  links: { label: string; url: string }[];
  media: CardMedia[];
  actions: CardAction[];
  footer?: string;
}

/**
 * A result to show: uploaded when `file` is present (the core leaves it out when the result is
 * bigger than the conversation accepts), otherwise reachable at `url`.
 */
export interface CardMedia {
  kind: "image" | "video";
  name: string;
  file?: OutgoingFile;
  url?: string;
  alt?: string;
}

export type ButtonStyle = "primary" | "secondary" | "success" | "danger";

export type CardAction =
  | { type: "button"; action: string; jobId: string; value?: string; label: string; style: ButtonStyle }
  | {
      type: "select";
      action: string;
      jobId: string;
      placeholder: string;
      options: { label: string; value: string; description?: string }[];
    };

export function card(title: string, tone: Tone, parts: Partial<Omit<Card, "title" | "tone">> = {}): Card {
  return { title, tone, lines: [], fields: [], links: [], media: [], actions: [], ...parts };
}

export function isCard(message: Card | { text: string }): message is Card {
  return "title" in message;
}

/** A text bar both platforms show the same way: "▰▰▰▰▰▱▱▱▱▱ 50%". */
export function progressBar(percent: number | null, width = 10): string {
  if (percent === null) return `${"▱".repeat(width)} …`;
  const clamped = Math.min(100, Math.max(0, percent));
  const filled = Math.round((clamped / 100) * width);
  return `${"▰".repeat(filled)}${"▱".repeat(width - filled)} ${Math.round(clamped)}%`;
}
