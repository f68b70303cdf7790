import { parseArgs } from "node:util";
import { optionKey } from "../core/commands/validate.js";

/**
 * The words of `/media <group> <sub> [main text] [--option value ...]`: a quote-aware split, then
 * node:util parseArgs for the flags. Slack clients turn straight quotes into curly ones and `--`
 * into a dash, so both count as what the person meant to type.
 */

export interface Word {
  value: string;
  /** Written in quotes: never a flag, never a command word. */
  quoted: boolean;
  /** The whitespace in front of it, so the main text keeps its line breaks. */
  before: string;
}

/** An opening quote and the characters that may close it (clients mix straight and curly ones). */
const CLOSERS: Record<string, string> = {
  '"': '"“”',
  "“": '”"',
  "”": '”"',
  "'": "'’",
  "‘": "’'",
};

const SPACE = /\s/;

/** Slack escapes these three in a slash command's text. */
function unescapeSlack(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/**
 * The command is declared with should_escape: Slack sends what a person picked or typed as a
 * mention, a channel or a link as its escape (`<@U…|ann>`, `<#C…|general>`,
 * `<!subteam^S…|@designers>`, `<!here>`, `<https://…>`, `<mailto:…|…>`), and what they typed as
 * `<` as `&lt;`, so an escape is never typed text. Before the words are read, each escape is taken
 * out and a marker left in its place (it may hold a space in its label, never a quote or a flag),
 * and put back once the options are known: as Slack sent it for an option that takes mentions,
 * as the words it stands for anywhere else (a prompt reads "@ann", a link option the address).
 */
const ESCAPE = /<((?:[@#!]|https?:|mailto:)[^<>|]*)(?:\|([^<>]*))?>/g;
const OPEN = "\u{F8F0}";
const CLOSE = "\u{F8F1}";
const MARKER = new RegExp(`${OPEN}(\\d+)${CLOSE}`, "gu");

export interface Escaped {
  /** The text with a marker in place of each escape. */
  text: string;
  /** The escapes as Slack sent them, by the markers' numbers. */
  escapes: string[];
}

export function markEscapes(input: string): Escaped {
  const escapes: string[] = [];
  const text = input.replace(ESCAPE, (sent) => `${OPEN}${escapes.push(sent) - 1}${CLOSE}`);
  return { text, escapes };
}

/** What an escape stands for, as a person would have written it. */
function readable(sent: string): string {
  const [, target = "", label] = /^<([^|>]*)(?:\|([^>]*))?>$/.exec(sent) ?? [];
  const shown = label?.trim();
  if (target.startsWith("@")) return `@${shown || target.slice(1)}`;
  if (target.startsWith("#")) return `#${shown || target.slice(1)}`;
  if (target.startsWith("!subteam^")) return shown?.startsWith("@") ? shown : `@${shown || target.slice(9)}`;
  if (target.startsWith("!")) return shown || `@${target.slice(1).split("^")[0]}`;
  if (target.startsWith("mailto:")) return target.slice(7);
  return target;
}

/** A value read from marked text, with its escapes put back as Slack sent them, or as their words. */
export function withEscapes(value: string, escapes: readonly string[], as: "escaped" | "words"): string {
  return value.replace(MARKER, (_, n: string) => {
    const sent = escapes[Number(n)] ?? "";
    // Slack escapes & < > inside an escape too (a link's query string).
    return as === "escaped" ? sent : unescapeSlack(readable(sent));
  });
}

/**
 * The end of the quote opened at `open`: a closer followed by whitespace or the end, so an
 * apostrophe inside a word (“the fox’s den”) does not end it. -1 when it is never closed, and the
 * quote is then an ordinary character.
 */
function closingQuote(text: string, open: number): number {
  const closers = CLOSERS[text[open] ?? ""];
  if (!closers) return -1;
  for (let i = open + 1; i < text.length; i += 1) {
    if (closers.includes(text[i]!) && (i + 1 === text.length || SPACE.test(text[i + 1]!))) return i;
  }
  return -1;
}

export function splitWords(input: string): Word[] {
  const text = unescapeSlack(input);
  const words: Word[] = [];
  let i = 0;
  while (i < text.length) {
    const start = i;
    while (i < text.length && SPACE.test(text[i]!)) i += 1;
    if (i === text.length) break;
    const before = text.slice(start, i);
    const close = closingQuote(text, i);
    if (close >= 0) {
      words.push({ value: text.slice(i + 1, close), quoted: true, before });
      i = close + 1;
      continue;
    }
    let value = "";
    while (i < text.length && !SPACE.test(text[i]!)) {
      // `--name="a red fox"`: a quote right after `=` holds the flag's value.
      const inner = text[i - 1] === "=" ? closingQuote(text, i) : -1;
      if (inner >= 0) {
        value += text.slice(i + 1, inner);
        i = inner + 1;
      } else {
        value += text[i];
        i += 1;
      }
    }
    words.push({ value, quoted: false, before });
  }
  return words;
}

/** `--seed`, `—seed` and `–seed=7` (a client's autocorrected dashes). */
const FLAG = /^(?:--|[—–])([^\s=]+)(?:=([\s\S]*))?$/;
/** What a yes/no option accepts as its value; any other word after it is free text. */
const BOOLEAN_WORD = /^(true|false|yes|no|on|off|1|0)$/i;
/**
 * parseArgs reads a word starting with `-` as a short option; free text may hold one ("-5", "-ish"),
 * so such words are masked while parsing.
 */
const MASK = "\u{F8FF}";

export interface Flags {
  /** The free words, in order, with their spacing. */
  text: string;
  /** By option name (`aspect-ratio` -> `aspect_ratio`); a flag given alone is true. */
  flags: Record<string, string | true>;
}

function flagOf(word: Word): { name: string; inline?: string } | undefined {
  const match = word.quoted ? null : FLAG.exec(word.value);
  if (!match) return undefined;
  return { name: optionKey(match[1]!), ...(match[2] !== undefined && { inline: match[2] }) };
}

/**
 * Flags and free text of the words after the command. `booleans` names the yes/no options: they
 * take the next word only when it is a yes/no word, every other option takes the next word
 * unless it is another flag (then it is true, and the core says what it wanted).
 */
export function readFlags(words: readonly Word[], booleans: ReadonlySet<string>): Flags {
  const parsed = words.map(flagOf);
  const takesValue = new Map<string, boolean>();
  parsed.forEach((flag, i) => {
    if (!flag) return;
    const next = words[i + 1];
    const hasValue =
      flag.inline !== undefined ||
      (next !== undefined &&
        parsed[i + 1] === undefined &&
        !(next.value === "--" && !next.quoted) &&
        (!booleans.has(flag.name) || BOOLEAN_WORD.test(next.value)));
    takesValue.set(flag.name, (takesValue.get(flag.name) ?? true) && hasValue);
  });

  const args = words.map((word, i) => {
    const flag = parsed[i];
    if (flag) return `--${flag.name}${flag.inline === undefined ? "" : `=${flag.inline}`}`;
    if (word.value === "--" && !word.quoted) return "--";
    return word.value.startsWith("-") ? `${MASK}${word.value}` : word.value;
  });
  const unmask = (value: string) => (value.startsWith(MASK) ? value.slice(MASK.length) : value);
  const { values, tokens } = parseArgs({
    args,
    options: Object.fromEntries(
      [...takesValue].map(([name, string]) => [name, { type: string ? "string" : "boolean" }] as const),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });

  const free = tokens.flatMap((token) => (token.kind === "positional" ? [words[token.index]!] : []));
  const text = free.map((word, i) => (i === 0 ? "" : word.before) + unmask(word.value)).join("");
  const flags: Record<string, string | true> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === true || typeof value === "string") flags[name] = value === true ? true : unmask(value);
  }
  return { text: text.trim(), flags };
}
