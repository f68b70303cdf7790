import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type MessageFormatElement, parse, TYPE } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { catalogueOf, ENGLISH, LOCALES } from "../../../src/core/i18n/catalogues.js";

/** Each placeholder a message takes, with its kind ("reason:argument", "seconds:plural"). */
function placeholders(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    into.add(`${element.value}:${TYPE[element.type]}`);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options)) placeholders(option.value, into);
    }
    if (element.type === TYPE.tag) placeholders(element.children, into);
  }
  return into;
}

const sorted = (set: Set<string>) => [...set].sort();

describe("the message catalogues", () => {
  it("ship English and the languages the issue asks for", () => {
    expect(LOCALES).toEqual(["en", "de", "fr", "es", "pt-BR", "ja"]);
  });

  for (const locale of LOCALES) {
    describe(locale, () => {
      const catalogue = catalogueOf(locale)!;

      it("has every key of English and no other", () => {
        expect(Object.keys(catalogue).sort()).toEqual(Object.keys(ENGLISH).sort());
      });

      it("holds messages that parse as ICU MessageFormat, each with English's placeholders", () => {
        const differing: string[] = [];
        for (const [key, english] of Object.entries(ENGLISH)) {
          const own = catalogue[key as keyof typeof ENGLISH];
          if (own === undefined) continue;
          const theirs = sorted(placeholders(parse(own, { ignoreTag: true })));
          if (theirs.join() !== sorted(placeholders(parse(english, { ignoreTag: true }))).join()) {
            differing.push(`${key}: ${theirs.join(", ")}`);
          }
        }
        expect(differing).toEqual([]);
      });
    });
  }

  describe("each file of the catalogues", () => {
    const root = join(import.meta.dirname, "../../../src/core/i18n/locales");
    const keysOf = (file: string) =>
      Object.keys(JSON.parse(readFileSync(join(root, file), "utf8")) as object);
    // The main files (`<tag>.json`), then each area's (`<area>/<tag>.json`).
    const areas = [
      "",
      ...readdirSync(root, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name),
    ];
    const fileOf = (area: string, locale: string) => (area ? `${area}/${locale}.json` : `${locale}.json`);

    it("has one file per area for each locale, with the keys of English's file of that area", () => {
      const differing: string[] = [];
      for (const area of areas) {
        const english = keysOf(fileOf(area, "en")).sort();
        for (const locale of LOCALES) {
          const own = keysOf(fileOf(area, locale)).sort();
          if (own.join() !== english.join()) differing.push(fileOf(area, locale));
        }
      }
      expect(differing).toEqual([]);
    });

    it("holds each key in one file only, and every key is in the catalogue", () => {
      const seen = new Map<string, string>();
      const twice: string[] = [];
      for (const area of areas) {
        for (const key of keysOf(fileOf(area, "en"))) {
          if (seen.has(key)) twice.push(`${key}: ${seen.get(key)} and ${fileOf(area, "en")}`);
          seen.set(key, fileOf(area, "en"));
        }
      }
      expect(twice).toEqual([]);
      expect([...seen.keys()].sort()).toEqual(Object.keys(ENGLISH).sort());
    });
  });
});
