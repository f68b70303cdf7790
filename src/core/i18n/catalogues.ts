import deAccount from "./locales/account/de.json" with { type: "json" };
import enAccount from "./locales/account/en.json" with { type: "json" };
import esAccount from "./locales/account/es.json" with { type: "json" };
import frAccount from "./locales/account/fr.json" with { type: "json" };
import jaAccount from "./locales/account/ja.json" with { type: "json" };
import ptBRAccount from "./locales/account/pt-BR.json" with { type: "json" };
import deBase from "./locales/de.json" with { type: "json" };
import deDelete from "./locales/delete/de.json" with { type: "json" };
import enDelete from "./locales/delete/en.json" with { type: "json" };
import esDelete from "./locales/delete/es.json" with { type: "json" };
import frDelete from "./locales/delete/fr.json" with { type: "json" };
import jaDelete from "./locales/delete/ja.json" with { type: "json" };
import ptBRDelete from "./locales/delete/pt-BR.json" with { type: "json" };
import enBase from "./locales/en.json" with { type: "json" };
import esBase from "./locales/es.json" with { type: "json" };
import frBase from "./locales/fr.json" with { type: "json" };
import deHome from "./locales/home/de.json" with { type: "json" };
import enHome from "./locales/home/en.json" with { type: "json" };
import esHome from "./locales/home/es.json" with { type: "json" };
import frHome from "./locales/home/fr.json" with { type: "json" };
import jaHome from "./locales/home/ja.json" with { type: "json" };
import ptBRHome from "./locales/home/pt-BR.json" with { type: "json" };
import jaBase from "./locales/ja.json" with { type: "json" };
import deJobs from "./locales/jobs/de.json" with { type: "json" };
import enJobs from "./locales/jobs/en.json" with { type: "json" };
import esJobs from "./locales/jobs/es.json" with { type: "json" };
import frJobs from "./locales/jobs/fr.json" with { type: "json" };
import jaJobs from "./locales/jobs/ja.json" with { type: "json" };
import ptBRJobs from "./locales/jobs/pt-BR.json" with { type: "json" };
import deLists from "./locales/lists/de.json" with { type: "json" };
import enLists from "./locales/lists/en.json" with { type: "json" };
import esLists from "./locales/lists/es.json" with { type: "json" };
import frLists from "./locales/lists/fr.json" with { type: "json" };
import jaLists from "./locales/lists/ja.json" with { type: "json" };
import ptBRLists from "./locales/lists/pt-BR.json" with { type: "json" };
import dePlatforms from "./locales/platforms/de.json" with { type: "json" };
import enPlatforms from "./locales/platforms/en.json" with { type: "json" };
import esPlatforms from "./locales/platforms/es.json" with { type: "json" };
import frPlatforms from "./locales/platforms/fr.json" with { type: "json" };
import jaPlatforms from "./locales/platforms/ja.json" with { type: "json" };
import ptBRPlatforms from "./locales/platforms/pt-BR.json" with { type: "json" };
import ptBRBase from "./locales/pt-BR.json" with { type: "json" };
import deRefusals from "./locales/refusals/de.json" with { type: "json" };
import enRefusals from "./locales/refusals/en.json" with { type: "json" };
import esRefusals from "./locales/refusals/es.json" with { type: "json" };
import frRefusals from "./locales/refusals/fr.json" with { type: "json" };
import jaRefusals from "./locales/refusals/ja.json" with { type: "json" };
import ptBRRefusals from "./locales/refusals/pt-BR.json" with { type: "json" };
import deSettings from "./locales/settings/de.json" with { type: "json" };
import enSettings from "./locales/settings/en.json" with { type: "json" };
import esSettings from "./locales/settings/es.json" with { type: "json" };
import frSettings from "./locales/settings/fr.json" with { type: "json" };
import jaSettings from "./locales/settings/ja.json" with { type: "json" };
import ptBRSettings from "./locales/settings/pt-BR.json" with { type: "json" };
import deLanguage from "./locales/settings-language/de.json" with { type: "json" };
import enLanguage from "./locales/settings-language/en.json" with { type: "json" };
import esLanguage from "./locales/settings-language/es.json" with { type: "json" };
import frLanguage from "./locales/settings-language/fr.json" with { type: "json" };
import jaLanguage from "./locales/settings-language/ja.json" with { type: "json" };
import ptBRLanguage from "./locales/settings-language/pt-BR.json" with { type: "json" };
import deSpending from "./locales/spending/de.json" with { type: "json" };
import enSpending from "./locales/spending/en.json" with { type: "json" };
import esSpending from "./locales/spending/es.json" with { type: "json" };
import frSpending from "./locales/spending/fr.json" with { type: "json" };
import jaSpending from "./locales/spending/ja.json" with { type: "json" };
import ptBRSpending from "./locales/spending/pt-BR.json" with { type: "json" };

/**
 * The message catalogues, one per locale, keyed by meaning ("job.queued.line"): ICU
 * MessageFormat, English the reference every other locale matches key for key
 * (test/core/i18n/catalogues.test.ts). Adding a language is adding its files here.
 *
 * A locale's catalogue is its main file (`locales/<tag>.json`) and one file per area moved into
 * the catalogues since (`locales/<area>/<tag>.json`): areas are added without rewriting the main
 * file, and no key is in two files (the catalogue test).
 */
const en = {
  ...enBase,
  ...enRefusals,
  ...enJobs,
  ...enPlatforms,
  ...enAccount,
  ...enLanguage,
  ...enLists,
  ...enSpending,
  ...enSettings,
  ...enHome,
  ...enDelete,
};
const de = {
  ...deBase,
  ...deRefusals,
  ...deJobs,
  ...dePlatforms,
  ...deAccount,
  ...deLanguage,
  ...deLists,
  ...deSpending,
  ...deSettings,
  ...deHome,
  ...deDelete,
};
const fr = {
  ...frBase,
  ...frRefusals,
  ...frJobs,
  ...frPlatforms,
  ...frAccount,
  ...frLanguage,
  ...frLists,
  ...frSpending,
  ...frSettings,
  ...frHome,
  ...frDelete,
};
const es = {
  ...esBase,
  ...esRefusals,
  ...esJobs,
  ...esPlatforms,
  ...esAccount,
  ...esLanguage,
  ...esLists,
  ...esSpending,
  ...esSettings,
  ...esHome,
  ...esDelete,
};
const ptBR = {
  ...ptBRBase,
  ...ptBRRefusals,
  ...ptBRJobs,
  ...ptBRPlatforms,
  ...ptBRAccount,
  ...ptBRLanguage,
  ...ptBRLists,
  ...ptBRSpending,
  ...ptBRSettings,
  ...ptBRHome,
  ...ptBRDelete,
};
const ja = {
  ...jaBase,
  ...jaRefusals,
  ...jaJobs,
  ...jaPlatforms,
  ...jaAccount,
  ...jaLanguage,
  ...jaLists,
  ...jaSpending,
  ...jaSettings,
  ...jaHome,
  ...jaDelete,
};

export type MessageKey = keyof typeof en;
export type Catalogue = Readonly<Record<MessageKey, string>>;

/** The locales people can choose, as BCP 47 tags; English first, the fallback of every other. */
export const LOCALES = ["en", "de", "fr", "es", "pt-BR", "ja"] as const;
export type Locale = (typeof LOCALES)[number];

export const ENGLISH: Catalogue = en;

/** A schema's error message that names a message of the catalogues (a control's value). */
export const isMessageKey = (text: string): text is MessageKey => Object.hasOwn(ENGLISH, text);

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
