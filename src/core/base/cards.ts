import type { Readable } from "node:stream";

/**
 * The neutral view model every adapter renders (Discord embeds and components, Slack Block Kit).
 * Text is plain: adapters escape it and render links and mentions, so no platform markup leaks
 * into the core.
 */

export type Tone = "info" | "progress" | "success" | "warning" | "error";

/** A person named in a line: each platform shows the mention in its own syntax. */
export interface Mention {
  userId: string;
}

/** A paragraph: plain text, or pieces of it when it names people. */
export type Line = string | readonly (string | Mention)[];

export interface Card {
  title: string;
  tone: Tone;
  /** Paragraphs. */
  lines: Line[];
  /** Shown as a bar; `percent` null means "working, no figure yet". */
  progress?: { percent: number | null; label: string };
  fields: CardField[];
  /**
   * How a result was made, whole: the prompts and the settings it was made with. Shown apart from
   * the fields and small (Discord: fields, a long prompt in the description; Slack: a context block).
   */
  recipe?: { name: string; value: string }[];
  links: { label: string; url: string }[];
  media: CardMedia[];
  actions: CardAction[];
  /** Picks from a list (a settings panel's defaults), each shown with its label, before the buttons. */
  selects?: CardSelect[];
  footer?: string;
  /** The language its words are in (a job's requester's): what an adapter adds to it speaks it too. */
  locale?: string;
}

/** What the service makes and the core fetches as results. */
export type ResultKind = "image" | "video";
/** A file the bot sends; opened only when the adapter uploads it, so big videos stream through. */
export interface OutgoingFile {
  name: string;
  contentType: string;
  /** Known size in bytes, when the source says it. */
  size?: number;
  open(): Promise<Readable>;
}

/**
 * A result to show: uploaded when `file` is present (the core leaves it out when the result is
 * bigger than the conversation accepts), otherwise reachable at `url`. A "file" is a document the
 * bot made (a CSV export): attached as it is, never shown as a picture or a player.
 */
export interface CardMedia {
  kind: ResultKind | "file";
  name: string;
  file?: OutgoingFile;
  url?: string;
  alt?: string;
  /** Drawn by the bot (the usage chart), not made by the service: nothing else keeps a copy. */
  drawn?: true;
}

export interface CardField {
  name: string;
  value: string;
  inline?: boolean;
  /** Shown after the value as a link (a job's message in the jobs list). */
  link?: { label: string; url: string };
}

export type ButtonStyle = "primary" | "secondary" | "success" | "danger";

/**
 * A button. `jobId` is what the control acts on: our job id, or for the controls of a list (its
 * pages, Show) the list's name. `value` must be what every adapter can carry (`CONTROL_VALUE`).
 */
export interface CardAction {
  type: "button";
  action: string;
  jobId: string;
  value?: string;
  label: string;
  style: ButtonStyle;
}

/**
 * A pick from a short list: a control like a button whose value is the option chosen. `selected`
 * is shown as chosen; without it the placeholder says what holds (a server's default).
 */
export interface CardSelect {
  action: string;
  /** What the control acts on, as a button's `jobId` (a setting's name). */
  jobId: string;
  /** What is chosen: "Aspect ratio". */
  label: string;
  placeholder: string;
  options: { label: string; value: string }[];
  selected?: string;
  /**
   * The list behind `options` can be searched as it is typed (an account's avatars): a platform
   * that can (Slack's external select) asks the core's autocomplete of this command's option, and
   * `options` are only its first entries.
   */
  search?: { command: string; option: string };
}

export function card(title: string, tone: Tone, parts: Partial<Omit<Card, "title" | "tone">> = {}): Card {
  return { title, tone, lines: [], fields: [], links: [], media: [], actions: [], ...parts };
}

/** A line as plain text (an error's log copy): a person is their id after an "@". */
export function plainText(line: Line): string {
  return typeof line === "string"
    ? line
    : line.map((piece) => (typeof piece === "string" ? piece : `@${piece.userId}`)).join("");
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
