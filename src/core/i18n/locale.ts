import { knownLocales } from "./catalogues.js";

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

/** What is known of a reader's language (an Actor's fields). */
export interface Reader {
  /** Their own choice in the bot (`/settings language`, the panel). */
  readonly chosenLocale?: string;
  /** What their platform says they read: Discord's interaction `locale`, Slack's users.info. */
  readonly locale?: string;
  /** Their server's or workspace's default, set by its admins (`/setup language`). */
  readonly tenantLocale?: string;
  /** The server's own language (Discord's `guild_locale`). */
  readonly placeLocale?: string;
}

/**
 * Which catalogue speaks to a reader, most particular first: their own choice in the bot, what
 * their platform says they read, their server's or workspace's default set by its admins, the
 * server's own. The first that names a language the bot speaks wins; English when none does
 * (a Slack user whose users.info gives no locale, or one the bot does not speak, gets the
 * workspace's default).
 */
export function readerLocale(reader: Reader | undefined): string {
  return localeOf([reader?.chosenLocale, reader?.locale, reader?.tenantLocale, reader?.placeLocale]);
}

export function localeOf(candidates: readonly (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const locale = supported(candidate);
    if (locale) return locale;
  }
  return "en";
}
