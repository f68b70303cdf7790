import { commandFor, commandGroups } from "../core/commands/catalogue.js";
import type { AnyCommand } from "../core/commands/define.js";
import { markEscapes, readFlags, splitWords, withEscapes } from "./grammar.js";
import { optionsOf } from "./options.js";

/**
 * What `/media ...` asks for, read against the catalogue: a command with its raw options (the
 * core validates them), or a command name the core does not know (it says so).
 */
export interface CommandRequest {
  /** A catalogue name, or the unknown name as typed ("image.bogus"). */
  name: string;
  command?: AnyCommand;
  options: Record<string, unknown>;
}

const help = (topic?: string): CommandRequest => {
  const command = commandFor(["help"])?.command;
  return { name: "help", ...(command && { command }), options: topic ? { topic } : {} };
};

export function readCommandLine(text: string): CommandRequest {
  // Mentions and links are read as markers, and put back once it is known which option has them.
  const { text: marked, escapes } = markEscapes(text);
  const words = splitWords(marked);
  const [first, second] = words.map((w) => withEscapes(w.value, escapes, "words").toLowerCase());
  if (first === undefined) return help();
  const found = commandFor([first, ...(second === undefined ? [] : [second])]);
  if (!found) {
    // `/media image` lists the group's commands; `/media image bogus` is the core's "no such command".
    const group = first.replaceAll("-", "_");
    const isGroup = commandGroups().some((g) => g.name === group);
    if (isGroup && second === undefined) return help(group);
    return { name: second === undefined || !isGroup ? first : `${first}.${second}`, options: {} };
  }
  const { command } = found;
  const infos = optionsOf(command);
  const booleans = new Set(infos.filter((o) => o.type === "boolean").map((o) => o.name));
  const { text: free, flags } = readFlags(words.slice(found.used), booleans);
  // API keys are entered only in the form (it always opens for such commands), never typed.
  const secret = new Set(command.secret ?? []);
  const options: Record<string, unknown> = Object.fromEntries(
    Object.entries(flags).filter(([name]) => !secret.has(name)),
  );
  // Commands without a main text (usage, jobs) have nothing to put free words in.
  if (command.main && free && options[command.main] === undefined) options[command.main] = free;
  const mentions = new Set<string>(command.mentions ?? []);
  for (const [name, value] of Object.entries(options)) {
    if (typeof value === "string")
      options[name] = withEscapes(value, escapes, mentions.has(name) ? "escaped" : "words");
  }
  return { name: command.name, command, options };
}
