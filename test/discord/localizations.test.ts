import {
  type APIApplicationCommandOption,
  ApplicationCommandType,
  ApplicationCommandOptionType as Opt,
  type RESTPostAPIApplicationCommandsJSONBody,
} from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { LOCALES } from "../../src/core/i18n/catalogues.js";
import { commandTexts, optionDescription } from "../../src/core/i18n/command-texts.js";
import { registeredCommands } from "../../src/discord/commands.js";
import { DISCORD_LOCALES } from "../../src/discord/localizations.js";
import { commandListRules } from "../fakes/discord/rules.js";

/**
 * The commands as Discord shows them in each language: every command, option and choice
 * localized, each name and description within Discord's rules, what English says matching the
 * commands themselves.
 */

// Discord's rule for the names of slash commands and their options, lowercase where the script has case.
const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

type Node = RESTPostAPIApplicationCommandsJSONBody | APIApplicationCommandOption;

interface Visited {
  path: string;
  node: Node;
  /** The path of the command the option belongs to ("image generate"), for an option. */
  owner?: string;
  kind: "command" | "message" | "option";
}

function visit(): Visited[] {
  const out: Visited[] = [];
  const walk = (path: string, options: readonly APIApplicationCommandOption[] | undefined) => {
    for (const option of options ?? []) {
      if (option.type === Opt.Subcommand || option.type === Opt.SubcommandGroup) {
        const here = `${path} ${option.name}`;
        out.push({ path: here, node: option, kind: "command" });
        walk(here, option.options);
      } else out.push({ path: `${path} ${option.name}`, node: option, owner: path, kind: "option" });
    }
  };
  for (const command of registeredCommands()) {
    const message = command.type === ApplicationCommandType.Message;
    out.push({ path: command.name, node: command, kind: message ? "message" : "command" });
    if ("options" in command) walk(command.name, command.options);
  }
  return out;
}

const visited = visit();
const TRANSLATED = LOCALES.filter((l) => l !== "en");
const choicesOf = (node: Node) =>
  ("choices" in node && node.choices ? node.choices : []) as { name: string; value: string | number }[];

describe("the commands in every language Discord shows them in", () => {
  it("keeps English's file true to what the commands say in English", () => {
    const en = commandTexts("en");
    const differing: string[] = [];
    for (const { path, node, owner, kind } of visited) {
      const said =
        kind === "option"
          ? { name: en.options[node.name]?.name, description: optionDescription(en, owner!, node.name) }
          : en.commands[path];
      if (said?.name !== node.name) differing.push(`${path}: name ${said?.name}`);
      const description = "description" in node ? node.description : undefined;
      if ((said?.description ?? "") !== (description ?? "")) differing.push(`${path}: ${said?.description}`);
      for (const choice of choicesOf(node)) {
        if (en.choices[String(choice.value)] !== choice.name)
          differing.push(`${path} choice ${choice.value}`);
      }
    }
    expect(differing).toEqual([]);
  });

  it("sends every command, option and choice with words for each Discord locale of each language", () => {
    const wanted = TRANSLATED.flatMap((locale) => DISCORD_LOCALES[locale]).sort();
    expect(wanted).toEqual(["de", "es-419", "es-ES", "fr", "ja", "pt-BR"]);
    const missing: string[] = [];
    for (const { path, node, kind } of visited) {
      const names = Object.keys(node.name_localizations ?? {}).sort();
      if (names.join() !== wanted.join()) missing.push(`${path}: name_localizations ${names}`);
      if (kind !== "message") {
        const described = Object.keys(
          ("description_localizations" in node && node.description_localizations) || {},
        );
        if (described.sort().join() !== wanted.join()) missing.push(`${path}: description_localizations`);
      }
      for (const choice of choicesOf(node) as { value: string; name_localizations?: object }[]) {
        if (
          Object.keys(choice.name_localizations ?? {})
            .sort()
            .join() !== wanted.join()
        )
          missing.push(`${path} choice ${choice.value}`);
      }
    }
    expect(missing).toEqual([]);
  });

  for (const locale of TRANSLATED) {
    const discord = DISCORD_LOCALES[locale][0]!;

    it(`${locale}: names follow Discord's rule, lowercase, descriptions and choices within their lengths`, () => {
      const broken: string[] = [];
      for (const { path, node, kind } of visited) {
        const name = node.name_localizations?.[discord];
        if (typeof name !== "string") continue;
        if (kind === "message") {
          if (name.length < 1 || name.length > 32) broken.push(`${path}: "${name}" is not 1-32 characters`);
        } else if (!NAME.test(name) || name !== name.toLocaleLowerCase(locale)) {
          broken.push(`${path}: "${name}" breaks Discord's name rule`);
        }
        const description =
          "description_localizations" in node ? node.description_localizations?.[discord] : undefined;
        if (
          description !== undefined &&
          description !== null &&
          (description.length < 1 || description.length > 100)
        )
          broken.push(`${path}: description of ${description.length} characters`);
        for (const choice of choicesOf(node) as {
          value: string;
          name_localizations?: Record<string, string>;
        }[]) {
          const shown = choice.name_localizations?.[discord] ?? "";
          if (shown.length < 1 || shown.length > 100)
            broken.push(`${path} choice ${choice.value}: "${shown}"`);
        }
      }
      expect(broken).toEqual([]);
    });

    it(`${locale}: no two commands, nor two options of one command, share a name`, () => {
      const clashes: string[] = [];
      const siblings = new Map<string, Set<string>>();
      for (const { path, node, kind } of visited) {
        const parent = `${kind === "message" ? "message:" : ""}${path.split(" ").slice(0, -1).join(" ")}`;
        const level = kind === "message" ? "message:" : parent;
        const name = node.name_localizations?.[discord] ?? node.name;
        const seen = siblings.get(level) ?? new Set();
        if (seen.has(name)) clashes.push(`${path}: "${name}"`);
        seen.add(name);
        siblings.set(level, seen);
      }
      expect(clashes).toEqual([]);
    });

    it(`${locale}: descriptions are written out, not cut`, () => {
      const texts = commandTexts(locale);
      const long = [
        ...Object.entries(texts.commands).map(([key, words]) => [key, words.description ?? ""] as const),
        ...Object.entries(texts.options).map(([key, words]) => [key, words.description] as const),
        ...Object.entries(texts.descriptions),
      ].filter(([, description]) => description.length > 100);
      expect(long).toEqual([]);
    });
  }

  it("passes the rules the fake Discord holds a registration to", () => {
    expect(commandListRules(registeredCommands() as unknown as Record<string, unknown>[])).toEqual([]);
  });
});
