import { knownLocales } from "./catalogues.js";

/**
 * Which catalogue speaks to a reader, from what is known of them, most particular first: their
 * own choice in the bot, what their platform says they read (Discord's `locale`, Slack's
 * users.info), their server's or workspace's default set by its admins, the server's own
 * (Discord's `guild_locale`). The first that names a language the bot speaks wins; English when
 * none does.
 */

/**
 * The locale of `tag` the bot speaks, if any: the tag itself ("pt-BR", "en-XA"), else its
 * language ("de-DE" is German, "es-419" Spanish, "pt-PT" Brazilian Portuguese, the only
 * Portuguese there is), compared without case.
 */
export function supported(tag: string | null | undefined): string | undefined {
  if (!tag) return undefined;
  const known = knownLocales();
  const wanted = tag.trim().replace("_", "-").toLowerCase();
  const exact = known.find((locale) => locale.toLowerCase() === wanted);
  if (exact) return exact;
  const language = wanted.split("-")[0];
  return (
    known.find((locale) => locale.toLowerCase() === language) ??
    known.find((locale) => locale.toLowerCase().split("-")[0] === language)
  );
}

/** What a reader's platform says of their language (an Actor's fields). */
export interface Reader {
  readonly locale?: string;
  readonly placeLocale?: string;
}

/** The language to answer a reader in: their platform's, then their server's. */
export function readerLocale(reader: Reader | undefined): string {
  return localeOf([reader?.locale, reader?.placeLocale]);
}

export function localeOf(candidates: readonly (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const locale = supported(candidate);
    if (locale) return locale;
  }
  return "en";
}
