import { describe, expect, it } from "vitest";
import { LOCALES } from "../../../src/core/i18n/catalogues.js";
import { type CommandTexts, commandTexts } from "../../../src/core/i18n/command-texts.js";

/** Every key of a commands catalogue, with what it holds: "commands.image generate.description". */
function keysOf(texts: CommandTexts): string[] {
  return Object.entries(texts)
    .flatMap(([section, entries]) =>
      Object.entries(entries as Record<string, unknown>).flatMap(([key, value]) =>
        typeof value === "string"
          ? [`${section}.${key}`]
          : Object.keys(value as object).map((field) => `${section}.${key}.${field}`),
      ),
    )
    .sort();
}

describe("the commands' words in every language", () => {
  const english = keysOf(commandTexts("en"));

  for (const locale of LOCALES) {
    it(`${locale} names and describes every command, option and choice English does, and nothing else`, () => {
      const texts = commandTexts(locale);
      expect(keysOf(texts)).toEqual(english);
      const empty = keysOf(texts).filter((key) => {
        const [section, entry, field] = key.split(".") as [keyof CommandTexts, string, string?];
        const value = texts[section][entry] as unknown;
        const words = field ? (value as Record<string, string>)[field] : value;
        return typeof words !== "string" || words.trim() === "";
      });
      expect(empty).toEqual([]);
    });
  }
});
