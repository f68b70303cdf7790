import { COMMANDS, describeOptions } from "../../src/core/commands/catalogue.js";

/**
 * What a pseudo-locale run looks for in what the bot shows people: every user-visible string is
 * the pseudo-locale's (accented letters), so a run of plain ASCII letters in it is English that did
 * not come from a catalogue, unless it is a word that came from elsewhere: what people typed, what
 * the media service said, a command's or option's name and choices (typed the same in every
 * language), a link, a mention, a code span or an id.
 */

/** The keys whose text people read: a message's, an embed's, a block's, a form's, a control's. */
const VISIBLE = new Set(["content", "title", "description", "label", "placeholder", "text", "alt_text"]);

/** Each user-visible string of a body the bot sent (a Discord message or modal, Slack blocks or view). */
export function visibleTexts(node: unknown, key = "", parent = ""): string[] {
  if (typeof node === "string") {
    const field = parent === "fields" && (key === "name" || key === "value");
    return VISIBLE.has(key) || field ? [node] : [];
  }
  if (Array.isArray(node)) return node.flatMap((child) => visibleTexts(child, key, key));
  if (typeof node === "object" && node !== null) {
    return Object.entries(node).flatMap(([k, v]) => visibleTexts(v, k, key));
  }
  return [];
}

/** Words of 4 letters or more, as compared: lower case. */
export const wordsOf = (text: string): string[] =>
  (text.match(/[A-Za-z]{4,}/g) ?? []).map((w) => w.toLowerCase());

/** Every string in a value (what someone typed, what the service answered), as words. */
export function givenWords(value: unknown, into: Set<string>): void {
  if (typeof value === "string") for (const word of wordsOf(value)) into.add(word);
  else if (Array.isArray(value)) for (const child of value) givenWords(child, into);
  else if (typeof value === "object" && value !== null)
    for (const child of Object.values(value)) givenWords(child, into);
}

/** The words of the command grammar, the same in every language: commands, options, choices. */
export function grammarWords(): Set<string> {
  const words = new Set<string>(["media"]);
  for (const command of COMMANDS) {
    givenWords(command.name.split("."), words);
    for (const option of describeOptions(command)) {
      givenWords([option.name, ...(option.choices ?? [])], words);
    }
  }
  return words;
}

/** The plain-ASCII words of `text` that came from no catalogue and from nowhere else. */
export function uncatalogued(text: string, allowed: ReadonlySet<string>): string[] {
  const bare = text
    .replace(/<(?:https?|mailto|slack):[^|>]*\|?/g, " ") // Slack's <url|label>: the label is read
    .replace(/<[@#!][^>]*>/g, " ") // mentions, channels, <!here>, <!date…>
    .replace(/<t:\d+(?::\w)?>/g, " ") // Discord timestamps
    .replace(/\]\([^)]*\)/g, "]") // Markdown links: the label is read
    .replace(/\bhttps?:\/\/\S+/g, " ")
    .replace(/`[^`]*`/g, " ") // code: commands as typed, ids
    .replace(/[\w-]*(?:\d|[a-z][A-Z])[\w-]*/g, " "); // ids: letters with digits, or mixed case inside
  return wordsOf(bare).filter((word) => !allowed.has(word));
}
