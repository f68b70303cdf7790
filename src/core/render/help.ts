import { type Card, card } from "../base/cards.js";
import { command } from "../i18n/msg.js";
import { english, type Translator } from "../i18n/translator.js";

export interface HelpEntry {
  name: string;
  /** What the command does, in the reader's language. */
  help: string;
  /** The free-text option, shown as the usage hint. */
  main?: string;
  /** The other options as typed on a command line (Slack): "--seed 0-2147483647", with allowed values. */
  flags?: string[];
}

/** "image.generate" -> "image generate": how people type it on both platforms. */
export function spoken(name: string): string {
  return name.replace(".", " ");
}

/**
 * The whole catalogue by group, or one group's commands with their main text. Commands and
 * options are named as they are typed, the same in every language.
 */
export function helpCard(entries: readonly HelpEntry[], topic?: string, t: Translator = english()): Card {
  const group = topic?.trim().toLowerCase();
  const shown = group ? entries.filter((e) => e.name === group || e.name.startsWith(`${group}.`)) : entries;
  const help = command("help");
  if (shown.length === 0) {
    return card(t.text("lists.help.title"), "warning", {
      lines: [t.text("lists.help.no_such", { topic: topic ?? "" }), t.text("lists.help.run_bare", { help })],
    });
  }
  const usage = (e: HelpEntry, name: string) => (e.main ? `${name} <${e.main}>` : name);
  if (group) {
    return card(t.text("lists.help.title_group", { group }), "info", {
      fields: shown.map((e) => ({
        name: usage(e, spoken(e.name)),
        value: e.flags?.length ? `${e.help}\n${e.flags.join("  ")}` : e.help,
      })),
    });
  }
  // One field per group: a field per command would pass Discord's 25 fields per embed.
  const groups = new Map<string, HelpEntry[]>();
  for (const e of shown) {
    const name = e.name.split(".")[0]!;
    groups.set(name, [...(groups.get(name) ?? []), e]);
  }
  return card(t.text("lists.help.title_all"), "info", {
    lines: [t.text("lists.help.groups_hint", { help })],
    fields: [...groups].map(([name, members]) =>
      members.length === 1 && members[0]!.name === name
        ? { name: usage(members[0]!, name), value: members[0]!.help }
        : { name, value: members.map((e) => usage(e, spoken(e.name))).join(" · ") },
    ),
  });
}

/** What a flag shows of an option (the catalogue's OptionInfo, commands/define.ts). */
export interface FlagOption {
  name: string;
  type: string;
  required: boolean;
  choices?: string[] | undefined;
  min?: number | undefined;
  max?: number | undefined;
  pick?: string | undefined;
}

/**
 * An option as a command-line flag with what it takes: its allowed values, its range, a yes/no
 * switch, or the kind of text (in the reader's words). Optional ones are in brackets.
 */
export function flagOf(option: FlagOption, t: Translator = english()): string {
  const flag = `--${option.name.replaceAll("_", "-")}`;
  const takes =
    option.type === "boolean"
      ? ""
      : option.choices
        ? ` ${option.choices.join("|")}`
        : option.min !== undefined && option.max !== undefined
          ? ` ${option.min}-${option.max}`
          : option.pick
            ? ` <${t.text("lists.help.takes_pick", { list: option.pick })}>`
            : option.type === "string"
              ? ` <${t.text("lists.help.takes_text")}>`
              : ` <${t.text("lists.help.takes_kind", { type: option.type })}>`;
  return option.required ? `${flag}${takes}` : `[${flag}${takes}]`;
}
