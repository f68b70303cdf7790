import { createIntl, createIntlCache, type FormatNumberOptions, type IntlShape } from "@formatjs/intl";
import type { Platform } from "../../common/types.js";
import { catalogueOf, ENGLISH, type MessageKey } from "./catalogues.js";
import { supported } from "./locale.js";
import { type Arg, type CommandRef, isMsg, type Mention, type Msg, msg, type Values } from "./msg.js";

/**
 * The bot's words in one reader's language: catalogue messages (ICU MessageFormat through
 * @formatjs/intl), and numbers, sizes, durations, days and lists through `Intl`. Made per locale
 * and platform, since a command is written the way the reader's platform types it. Text only:
 * adapters escape it and add their markup.
 */
export interface Translator {
  /** The catalogue's locale ("de", "pt-BR"). */
  readonly locale: string;
  /** Whose command syntax it writes; undefined for the log's (plain command names). */
  readonly platform: Platform | undefined;
  text(key: MessageKey, values?: Values): string;
  /** A descriptor said; a person in it reads `@id` (plain text: a log, a workflow's activity). */
  say(message: Msg): string;
  /** A descriptor as a card's line: the people it names stay mentions. */
  line(message: Msg): string | (string | Mention)[];
  number(value: number, options?: FormatNumberOptions): string;
  /** "12.3 MB", "12,3 Mo". */
  bytes(bytes: number): string;
  /** "45 s", "3 min 20 s", "1 Std. 5 Min.": to the second under an hour, to the minute above. */
  duration(ms: number): string;
  /** An ISO date or time as the day it is in UTC ("Dec 1, 2026"); unparsable input as given. */
  day(iso: string): string;
  /** A moment to the minute in UTC ("Dec 1, 2026, 14:05 UTC"). */
  time(at: number): string;
  list(items: readonly string[]): string;
  /** A command as typed, after its slash: `/einstellungen bereich:server`, `/media settings --scope server`. */
  command(ref: CommandRef): string;
  /** A command's name as its reader's platform shows it: "bild erzeugen" (Discord, German), "image generate". */
  commandName(name: string): string;
  /** An option's name as its reader's platform shows it: "seitenverhältnis" (Discord, German), "aspect_ratio". */
  optionName(option: string): string;
}

const cache = createIntlCache();
const made = new Map<string, Translator>();

/** The Slack app's slash command, which every Slack command is typed after. */
export const SLACK_COMMAND = "/media";

export function translatorFor(tag: string | null | undefined, platform?: Platform): Translator {
  const locale = supported(tag) ?? "en";
  const key = `${locale}:${platform ?? ""}`;
  let translator = made.get(key);
  if (!translator) {
    translator = create(locale, platform);
    made.set(key, translator);
  }
  return translator;
}

/** English without a platform: what logs and an error's `message` read. */
export const english = (): Translator => translatorFor("en");

function create(locale: string, platform: Platform | undefined): Translator {
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

  /** Discord shows commands and options under their names in the reader's language; Slack as typed. */
  const named = (key: string, fallback: string) =>
    platform === "discord" && Object.hasOwn(ENGLISH, key) ? format(key as MessageKey, {}) : fallback;
  const commandName = (name: string) => {
    const words = name.split(".");
    return words.map((word, i) => named(`command_name.${words.slice(0, i + 1).join(".")}`, word)).join(" ");
  };
  const optionName = (option: string) => named(`option_name.${option}`, option);
  const commandText = (ref: CommandRef): string => {
    const options = Object.entries(ref.options ?? {});
    if (platform === "discord") {
      const typed = options.map(([name, value]) => `${optionName(name)}:${value}`);
      return `/${[commandName(ref.command), ...typed].join(" ")}`;
    }
    if (platform !== "slack") return commandName(ref.command);
    const flags = options.map(([name, value]) => {
      const shown = String(value);
      return `--${name.replaceAll("_", "-")} ${/\s/.test(shown) ? `"${shown}"` : shown}`;
    });
    return [SLACK_COMMAND, commandName(ref.command), ...flags].join(" ");
  };

  /** Each value as the message takes it: a nested message said, a list joined, a command typed. */
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
    if ("command" in value) return commandText(value);
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
    platform,
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
    number: (value, options) => intl.formatNumber(value, options),
    bytes: (count) => bytesIn(intl, count),
    duration: (ms) => durationIn(format, ms),
    day(iso) {
      const parsed = Date.parse(iso);
      return Number.isNaN(parsed) ? iso : intl.formatDate(parsed, { dateStyle: "medium", timeZone: "UTC" });
    },
    time: (at) =>
      intl.formatDate(at, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC", hourCycle: "h23" }) +
      " UTC",
    list: (items) => intl.formatList(items, { type: "conjunction" }),
    command: commandText,
    commandName,
    optionName,
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
