import {
  type APIApplicationCommandOption,
  type APIApplicationCommandOptionChoice,
  ApplicationCommandOptionType,
  Locale as DiscordLocale,
  type LocalizationMap,
  type RESTPostAPIApplicationCommandsJSONBody,
} from "discord-api-types/v10";
import { LOCALES, type Locale } from "../core/i18n/catalogues.js";
import { type CommandTexts, commandTexts, optionDescription } from "../core/i18n/command-texts.js";
import { DISCORD_LIMITS as L } from "./limits.js";
import { cut } from "./render/text.js";

/**
 * The commands' names and descriptions in every language the bot speaks, as Discord shows them
 * to each person in their client's language (`name_localizations`,
 * `description_localizations`, and `name_localizations` of choices). Discord still sends the
 * English names in every interaction, so parsing never reads these.
 * https://discord.com/developers/docs/interactions/application-commands#localization
 */

/** Discord's locales for each catalogue: Spanish is the same for Spain and Latin America. */
export const DISCORD_LOCALES: Readonly<Record<Exclude<Locale, "en">, readonly DiscordLocale[]>> = {
  de: [DiscordLocale.German],
  fr: [DiscordLocale.French],
  es: [DiscordLocale.SpanishES, DiscordLocale.SpanishLATAM],
  "pt-BR": [DiscordLocale.PortugueseBR],
  ja: [DiscordLocale.Japanese],
};

const TRANSLATED = LOCALES.filter((locale): locale is Exclude<Locale, "en"> => locale !== "en");

/**
 * One entry per Discord locale of the words `pick` finds in each language; none when no language
 * has any. Descriptions are cut to `max` as the English ones are; names never are (a cut name
 * would break Discord's rules): the catalogue test holds them to 32 characters.
 */
function localizations(
  pick: (texts: CommandTexts) => string | undefined,
  max?: number,
): LocalizationMap | undefined {
  const map: LocalizationMap = {};
  for (const locale of TRANSLATED) {
    const words = pick(commandTexts(locale));
    if (words === undefined) continue;
    for (const discord of DISCORD_LOCALES[locale]) map[discord] = max === undefined ? words : cut(words, max);
  }
  return Object.keys(map).length > 0 ? map : undefined;
}

function localizedChoice(choice: APIApplicationCommandOptionChoice): APIApplicationCommandOptionChoice {
  const value = String(choice.value);
  const english = commandTexts("en").choices[value];
  const names = localizations((texts) => texts.choices[value], L.choiceName);
  return {
    ...choice,
    ...(english !== undefined && { name: cut(english, L.choiceName) }),
    ...(names && { name_localizations: names }),
  };
}

function localizedOption(path: string, option: APIApplicationCommandOption): APIApplicationCommandOption {
  const nested =
    option.type === ApplicationCommandOptionType.Subcommand ||
    option.type === ApplicationCommandOptionType.SubcommandGroup;
  const here = `${path} ${option.name}`;
  const names = localizations((texts) =>
    nested ? texts.commands[here]?.name : texts.options[option.name]?.name,
  );
  const descriptions = localizations(
    (texts) => (nested ? texts.commands[here]?.description : optionDescription(texts, path, option.name)),
    L.commandDescription,
  );
  const localized = {
    ...option,
    ...(names && { name_localizations: names }),
    ...(descriptions && { description_localizations: descriptions }),
  };
  if ("options" in localized && localized.options) {
    return {
      ...localized,
      options: localized.options.map((inner) => localizedOption(here, inner)),
    } as APIApplicationCommandOption;
  }
  if ("choices" in localized && localized.choices) {
    return {
      ...localized,
      choices: localized.choices.map(localizedChoice),
    } as APIApplicationCommandOption;
  }
  return localized as APIApplicationCommandOption;
}

/** `command` with its words in every language the bot speaks, its options' and choices' too. */
export function localized<C extends RESTPostAPIApplicationCommandsJSONBody>(command: C): C {
  const path = command.name;
  const names = localizations((texts) => texts.commands[path]?.name);
  const descriptions =
    "description" in command && command.description
      ? localizations((texts) => texts.commands[path]?.description, L.commandDescription)
      : undefined;
  return {
    ...command,
    ...(names && { name_localizations: names }),
    ...(descriptions && { description_localizations: descriptions }),
    ...("options" in command &&
      command.options && { options: command.options.map((option) => localizedOption(path, option)) }),
  };
}
