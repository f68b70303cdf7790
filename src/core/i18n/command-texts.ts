import type { Locale } from "./catalogues.js";
import de from "./commands/de.json" with { type: "json" };
import en from "./commands/en.json" with { type: "json" };
import es from "./commands/es.json" with { type: "json" };
import fr from "./commands/fr.json" with { type: "json" };
import ja from "./commands/ja.json" with { type: "json" };
import ptBR from "./commands/pt-BR.json" with { type: "json" };

/**
 * The commands as each language names and describes them, one file per locale in
 * `commands/`, beside the message catalogues: a platform that lets a command's words be
 * localized (Discord's `name_localizations` and `description_localizations`) reads them here.
 * The people who use the bot still type the options as the commands define them when a platform
 * has no such thing (Slack's grammar): these are names to show, never names to parse.
 *
 * Keyed by what they name: `commands` by the command's path ("image", "image generate", a
 * message command's English name), `options` by the option's name (one name in every command),
 * `descriptions` by "<path> <option>" where an option says something else in one command than
 * in the others, `choices` by the choice's value. English is the reference: its file holds what
 * the commands say in English (test/discord/localizations.test.ts compares it with them), and
 * every other file has its keys.
 */

export interface CommandWords {
  readonly name: string;
  readonly description?: string;
}

export interface CommandTexts {
  readonly commands: Readonly<Record<string, CommandWords>>;
  readonly options: Readonly<Record<string, Required<CommandWords>>>;
  readonly descriptions: Readonly<Record<string, string>>;
  readonly choices: Readonly<Record<string, string>>;
}

const shipped = { en, de, fr, es, "pt-BR": ptBR, ja } satisfies Record<Locale, CommandTexts>;

export function commandTexts(locale: Locale): CommandTexts {
  return shipped[locale];
}

/** Words beside the shipped ones, which nobody can choose: the tests' pseudo-locale. */
const added = new Map<string, CommandTexts>();

export function addCommandTexts(locale: string, texts: CommandTexts): void {
  added.set(locale, texts);
}

/** The words of a translator's locale ("de", "en-XA"), English's where there are none. */
export function commandTextsOf(locale: string): CommandTexts {
  return (shipped as Record<string, CommandTexts>)[locale] ?? added.get(locale) ?? shipped.en;
}

/** The description of option `name` of the command at `path` ("image generate"), if known. */
export function optionDescription(texts: CommandTexts, path: string, name: string): string | undefined {
  return texts.descriptions[`${path} ${name}`] ?? texts.options[name]?.description;
}
