import { type Card, type CardSelect, card } from "../base/cards.js";
import { LOCALES, type Locale } from "../i18n/catalogues.js";
import { AUTOMATIC, LANGUAGE_NAMES } from "../i18n/languages.js";
import { translatorFor } from "../i18n/translator.js";
import { controlSelect } from "./controls.js";

/**
 * The person's language: what the bot speaks to them in and a select to choose another (a card
 * of its own on a home; in a settings message, on the Presets tab, the one with room for it), each language named in its own words (someone who cannot read the bot's current
 * language still finds theirs).
 */

export interface LanguageView {
  /** The language the person chose in the bot; none: automatic. */
  chosen?: Locale;
  /** The language the bot speaks to them in now (their choice, else their platform's...). */
  speaking: string;
}

/** What the bot speaks to the person in, in that language. */
export function languageLine(view: LanguageView): string {
  const spoken = LANGUAGE_NAMES[view.speaking as Locale] ?? LANGUAGE_NAMES.en;
  return translatorFor(view.speaking).text("language.line", { language: spoken });
}

export function languageSelect(view: LanguageView): CardSelect {
  const t = translatorFor(view.speaking);
  const automatic = t.text("language.automatic");
  return controlSelect("my_language", "mine", {
    label: t.text("language.title"),
    placeholder: `${t.text("language.title")}: ${view.chosen ? LANGUAGE_NAMES[view.chosen] : automatic}`,
    options: [
      { label: automatic, value: AUTOMATIC },
      ...LOCALES.map((locale) => ({ label: LANGUAGE_NAMES[locale], value: locale })),
    ],
    selected: view.chosen ?? AUTOMATIC,
  });
}

/** The language on a home: a card of its own. */
export function languageCard(view: LanguageView): Card {
  return card(translatorFor(view.speaking).text("language.title"), "info", {
    lines: [languageLine(view)],
    selects: [languageSelect(view)],
  });
}
