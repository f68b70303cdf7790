import { createIntl, createIntlCache, type IntlShape } from "@formatjs/intl";
import { catalogueOf, ENGLISH, type MessageKey } from "./catalogues.js";
import { supported } from "./locale.js";
import { type Arg, isMsg, type Mention, type Msg, msg, type Values } from "./msg.js";

/**
 * The bot's words in one reader's language: catalogue messages (ICU MessageFormat through
 * @formatjs/intl), sizes, durations and lists through `Intl`. Text only: adapters escape it and
 * add their markup.
 */
export interface Translator {
  /** The catalogue's locale ("de", "pt-BR"). */
  readonly locale: string;
  text(key: MessageKey, values?: Values): string;
  /** A descriptor said; a person in it reads `@id` (plain text: a log, a workflow's activity). */
  say(message: Msg): string;
  /** A descriptor as a card's line: the people it names stay mentions. */
  line(message: Msg): string | (string | Mention)[];
  /** "12 MB", "5.0 MB", "5,0 Mo". */
  bytes(bytes: number): string;
  /** "45 s", "3 min 20 s", "1 Std. 5 Min.": to the second under an hour, to the minute above. */
  duration(ms: number): string;
  /** "a, b, and c", "a, b und c". */
  list(items: readonly string[]): string;
}

const cache = createIntlCache();
const made = new Map<string, Translator>();

export function translatorFor(tag: string | null | undefined): Translator {
  const locale = supported(tag) ?? "en";
  let translator = made.get(locale);
  if (!translator) {
    translator = create(locale);
    made.set(locale, translator);
  }
  return translator;
}

/** English: what logs, an error's `message` and a job's stored reason read. */
export const english = (): Translator => translatorFor("en");

function create(locale: string): Translator {
  const intl: IntlShape = createIntl(
    {
      locale,
      defaultLocale: "en",
      // Every locale's gaps read in English; the catalogue test keeps there from being any.
      messages: { ...ENGLISH, ...catalogueOf(locale) },
      onError: (error) => {
        throw error;
      },
    },
    cache,
  );

  /** Each value as the message takes it: a nested message said, a list joined, a size, a time. */
  const resolved = (values: Values | undefined, mentions: Mention[] | undefined) => {
    const out: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(values ?? {})) out[name] = argText(value, mentions);
    return out;
  };
  const argText = (value: Arg, mentions: Mention[] | undefined): string | number => {
    if (typeof value === "string" || typeof value === "number") return value;
    if (Array.isArray(value)) {
      const items = value as readonly (string | Msg)[];
      return items.every((item) => typeof item === "string")
        ? intl.formatList(items as string[], { type: "conjunction" })
        : items
            .map((item) => (typeof item === "string" ? item : formatted(item, mentions)))
            .join(format("list.clauses", {}));
    }
    if (isMsg(value)) return formatted(value, mentions);
    // A command is typed as its words, the same in every language ("video list").
    if ("command" in value) return value.command.replaceAll(".", " ");
    if ("bytes" in value) return bytesIn(intl, value.bytes);
    if ("ms" in value) return durationIn(format, value.ms);
    const person = value as Mention;
    if (!mentions) return `@${person.userId}`;
    mentions.push(person);
    return `${MARK}${mentions.length - 1}${MARK}`;
  };
  const formatted = (message: Msg, mentions: Mention[] | undefined): string =>
    // Our texts hold "<prompt>" and the like: no rich-text tags.
    String(intl.formatMessage({ id: message.key }, resolved(message.values, mentions), { ignoreTag: true }));
  const format = (key: MessageKey, values: Values | undefined) => formatted(msg(key, values), undefined);

  return {
    locale,
    text: format,
    say: (message) => formatted(message, undefined),
    line(message) {
      const mentions: Mention[] = [];
      const text = formatted(message, mentions);
      if (mentions.length === 0) return text;
      return text
        .split(MARK)
        .map((piece, i) => (i % 2 === 0 ? piece : mentions[Number(piece)]!))
        .filter((piece) => piece !== "");
    },
    bytes: (count) => bytesIn(intl, count),
    duration: (ms) => durationIn(format, ms),
    list: (items) => intl.formatList(items, { type: "conjunction" }),
  };
}

/** To the megabyte from 10 MB, to a tenth below: "12 MB", "5.0 MB", "5,0 Mo". */
function bytesIn(intl: IntlShape, count: number): string {
  const mb = count / (1024 * 1024);
  const digits = mb >= 10 ? 0 : 1;
  return intl.formatNumber(mb, {
    style: "unit",
    unit: "megabyte",
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/**
 * "45 s", "3 min 20 s", "1 h 5 min", said through the catalogue (`Intl.DurationFormat` writes
 * English as "3 min, 20 sec"): to the second under an hour, to the minute above.
 */
function durationIn(say: (key: MessageKey, values: Values) => string, ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return say("duration.seconds", { s: seconds });
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return seconds % 60
      ? say("duration.minutes_seconds", { m: minutes, s: seconds % 60 })
      : say("duration.minutes", { m: minutes });
  }
  const hours = Math.floor(minutes / 60);
  return minutes % 60
    ? say("duration.hours_minutes", { h: hours, m: minutes % 60 })
    : say("duration.hours", { h: hours });
}

/** Where a mention sits in a formatted line until it is put back: a private-use character. */
const MARK = "\u{F8F2}";
