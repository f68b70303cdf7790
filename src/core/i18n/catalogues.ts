import deMain from "./locales/de.json" with { type: "json" };
import enMain from "./locales/en.json" with { type: "json" };
import esMain from "./locales/es.json" with { type: "json" };
import frMain from "./locales/fr.json" with { type: "json" };
import jaMain from "./locales/ja.json" with { type: "json" };
import ptBRMain from "./locales/pt-BR.json" with { type: "json" };
import deLanguage from "./locales/settings-language/de.json" with { type: "json" };
import enLanguage from "./locales/settings-language/en.json" with { type: "json" };
import esLanguage from "./locales/settings-language/es.json" with { type: "json" };
import frLanguage from "./locales/settings-language/fr.json" with { type: "json" };
import jaLanguage from "./locales/settings-language/ja.json" with { type: "json" };
import ptBRLanguage from "./locales/settings-language/pt-BR.json" with { type: "json" };

/**
 * The message catalogues, one JSON file per locale in `locales/`, keyed by meaning
 * ("job.queued.line"): ICU MessageFormat, English the reference every other locale matches
 * key for key (test/core/i18n/catalogues.test.ts). Adding a language is adding its file here.
 */

// An area's messages may live in a file of their own (`locales/<area>/<tag>.json`), merged here.
const en = { ...enMain, ...enLanguage };
const de = { ...deMain, ...deLanguage };
const fr = { ...frMain, ...frLanguage };
const es = { ...esMain, ...esLanguage };
const ptBR = { ...ptBRMain, ...ptBRLanguage };
const ja = { ...jaMain, ...jaLanguage };

export type MessageKey = keyof typeof en;
export type Catalogue = Readonly<Record<MessageKey, string>>;

/** The locales people can choose, as BCP 47 tags; English first, the fallback of every other. */
export const LOCALES = ["en", "de", "fr", "es", "pt-BR", "ja"] as const;
export type Locale = (typeof LOCALES)[number];

export const ENGLISH: Catalogue = en;

/** `satisfies`: a catalogue that misses a key of English does not compile. */
const shipped = { en, de, fr, es, "pt-BR": ptBR, ja } satisfies Record<Locale, Catalogue>;

/**
 * Catalogues beside the shipped ones, which nobody can choose: the pseudo-locale the end-to-end
 * tests run in (accented, longer), added by the test that uses it.
 */
const added = new Map<string, Catalogue>();

export function addCatalogue(locale: string, catalogue: Catalogue): void {
  added.set(locale, catalogue);
}

export function catalogueOf(locale: string): Catalogue | undefined {
  return (shipped as Record<string, Catalogue>)[locale] ?? added.get(locale);
}

/** The tags with a catalogue: the shipped locales, then any added one. */
export function knownLocales(): string[] {
  return [...LOCALES, ...added.keys()];
}
