import { LOCALES, type Locale } from "./catalogues.js";

/**
 * What a person (`/settings language`) or an admin (`/setup language`) may choose: a language the
 * bot speaks, or `automatic`, which leaves it to the platform (the person's client, then the
 * server's or workspace's default). Stored as the `language` entry of the person's or the tenant's
 * defaults; `automatic` is stored as nothing.
 */
export const AUTOMATIC = "automatic";
export const LANGUAGE_CHOICES = [AUTOMATIC, ...LOCALES] as const;
export type LanguageChoice = (typeof LANGUAGE_CHOICES)[number];

/** The key of the choice in a person's or a tenant's defaults. */
export const LANGUAGE_DEFAULT = "language";

/**
 * Each language in its own words, as a language menu lists them: a person who cannot read the
 * bot's current language still finds theirs.
 */
export const LANGUAGE_NAMES: Readonly<Record<Locale, string>> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  "pt-BR": "Português (Brasil)",
  ja: "日本語",
};

/** The chosen language of a defaults record, if a shipped one is chosen. */
export function chosenLanguage(defaults: Readonly<Record<string, unknown>> | undefined): Locale | undefined {
  const value = defaults?.[LANGUAGE_DEFAULT];
  return (LOCALES as readonly unknown[]).includes(value) ? (value as Locale) : undefined;
}

/** `defaults` with the language set to `choice` (`automatic` removes it). */
export function withLanguage<T extends Record<string, unknown>>(defaults: T, choice: LanguageChoice): T {
  const { [LANGUAGE_DEFAULT]: _previous, ...rest } = defaults;
  return (choice === AUTOMATIC ? rest : { ...rest, [LANGUAGE_DEFAULT]: choice }) as T;
}
