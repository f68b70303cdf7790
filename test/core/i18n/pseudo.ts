import { type MessageFormatElement, parse, TYPE } from "@formatjs/icu-messageformat-parser";
import { printAST } from "@formatjs/icu-messageformat-parser/printer.js";
import { addCatalogue, type Catalogue, ENGLISH } from "../../../src/core/i18n/catalogues.js";
import { addCommandTexts, type CommandTexts, commandTexts } from "../../../src/core/i18n/command-texts.js";

/**
 * The pseudo-locale `en-XA`: English with every letter accented and each text 40 % longer, its
 * placeholders untouched. A user-visible string that did not come from a catalogue stays plain
 * ASCII in it (`bypasses`), and a limit that only fits English is passed.
 */
export const PSEUDO = "en-XA";

const ACCENTED: Record<string, string> = Object.fromEntries(
  [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"].map((letter, i) => [
    letter,
    [..."àƀçđéƒĝĥíĵķĺɱñóþǫŕšţúṽŵẋýžÀƁÇĐÉƑĜĤÍĴĶĹṀÑÓÞǪŔŠŢÚṼŴẊÝŽ"][i]!,
  ]),
);

const accent = (text: string) => [...text].map((c) => ACCENTED[c] ?? c).join("");

function pseudoElements(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((element) => {
    if (element.type === TYPE.literal) return { ...element, value: accent(element.value) };
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      const options = Object.fromEntries(
        Object.entries(element.options).map(([key, option]) => [
          key,
          { ...option, value: pseudoElements(option.value) },
        ]),
      );
      return { ...element, options } as MessageFormatElement;
    }
    return element;
  });
}

export function pseudoMessage(english: string): string {
  const said = printAST(pseudoElements(parse(english, { ignoreTag: true })));
  // 40 % longer, as German and French run; a separator nobody writes marks the padding.
  const padding = Math.ceil(english.length * 0.4);
  return padding > 0 && english.trim() !== "" && /[A-Za-z]/.test(english)
    ? `${said} ·${"~".repeat(Math.max(0, padding - 2))}`
    : said;
}

/** A command's word (a name, a description, a choice's label), not ICU: accented and longer. */
function pseudoWord(english: string): string {
  const padding = Math.ceil(english.length * 0.4);
  return /[A-Za-z]/.test(english) ? `${accent(english)} ·${"~".repeat(Math.max(0, padding - 2))}` : english;
}

const pseudoEntries = <T>(entries: Readonly<Record<string, T>>, word: (value: T) => T) =>
  Object.fromEntries(Object.entries(entries).map(([key, value]) => [key, word(value)]));

/** The commands' words in the pseudo-locale: what forms show of them (labels, hints, choices). */
function pseudoTexts(english: CommandTexts): CommandTexts {
  const words = <W extends { name: string; description?: string }>(w: W): W => ({
    ...w,
    name: pseudoWord(w.name),
    ...(w.description !== undefined && { description: pseudoWord(w.description) }),
  });
  return {
    commands: pseudoEntries(english.commands, words),
    options: pseudoEntries(english.options, words),
    descriptions: pseudoEntries(english.descriptions, pseudoWord),
    choices: pseudoEntries(english.choices, pseudoWord),
  };
}

export function addPseudoLocale(): void {
  const catalogue = Object.fromEntries(
    Object.entries(ENGLISH).map(([key, text]) => [key, pseudoMessage(text)]),
  );
  addCatalogue(PSEUDO, catalogue as Catalogue);
  addCommandTexts(PSEUDO, pseudoTexts(commandTexts("en")));
}

/**
 * English words in a text shown in the pseudo-locale: runs of 4+ plain ASCII letters, except
 * `allowed` (the service's own words, ids, command names, quoted as they came).
 */
export function bypasses(text: string, allowed: readonly string[] = []): string[] {
  let rest = text;
  // Longest first: "negative_prompt" before "prompt".
  for (const value of [...allowed].sort((a, b) => b.length - a.length)) rest = rest.replaceAll(value, " ");
  return rest.match(/[A-Za-z]{4,}/g) ?? [];
}
