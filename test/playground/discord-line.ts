/**
 * Discord's slash-command grammar, as its client offers it, over the commands the bot registered
 * with the fake (built from the catalogue by src/discord/commands.ts): `/image generate
 * prompt:a red fox aspect_ratio:16:9`. Pure: the completion menu the page shows, and the line
 * parsed into what the fake's injector sends.
 */
import { type APIApplicationCommandOption, ApplicationCommandOptionType as Opt } from "discord-api-types/v10";
import type { CommandInput, FakeFile, OptionValue } from "../fakes/discord/index.js";

/** What a registered command (or its registration body) says about itself. */
export interface CommandShape {
  name: string;
  description: string;
  type?: number;
  options?: APIApplicationCommandOption[];
}

export interface MenuOption {
  name: string;
  description: string;
  type: "string" | "integer" | "number" | "boolean" | "user" | "channel" | "role" | "file" | "other";
  required: boolean;
  choices?: string[];
  autocomplete?: true;
  /** Slack: the command's main text, typed first without a flag. */
  main?: true;
}

/** One command as the user picks it: "image generate", "usage". */
export interface MenuCommand {
  path: string;
  description: string;
  options: MenuOption[];
}

const TYPE: Partial<Record<Opt, MenuOption["type"]>> = {
  [Opt.String]: "string",
  [Opt.Integer]: "integer",
  [Opt.Number]: "number",
  [Opt.Boolean]: "boolean",
  [Opt.User]: "user",
  [Opt.Channel]: "channel",
  [Opt.Role]: "role",
  [Opt.Attachment]: "file",
};

const isBranch = (o: APIApplicationCommandOption) =>
  o.type === Opt.Subcommand || o.type === Opt.SubcommandGroup;

function leaves(
  path: string,
  description: string,
  options: readonly APIApplicationCommandOption[],
): { path: string; description: string; options: APIApplicationCommandOption[] }[] {
  const branches = options.filter(isBranch);
  if (!branches.length) return [{ path, description, options: [...options] }];
  return branches.flatMap((b) =>
    leaves(`${path} ${b.name}`, b.description, "options" in b ? (b.options ?? []) : []),
  );
}

function leafCommands(commands: readonly CommandShape[]) {
  return commands
    .filter((c) => (c.type ?? 1) === 1)
    .flatMap((c) => leaves(c.name, c.description, c.options ?? []));
}

export function commandMenu(commands: readonly CommandShape[]): MenuCommand[] {
  return leafCommands(commands).map((leaf) => ({
    path: leaf.path,
    description: leaf.description,
    options: leaf.options.map((o) => ({
      name: o.name,
      description: o.description,
      type: TYPE[o.type] ?? "other",
      required: "required" in o && o.required === true,
      ...("choices" in o && o.choices?.length ? { choices: o.choices.map((c) => String(c.value)) } : {}),
      ...("autocomplete" in o && o.autocomplete ? { autocomplete: true as const } : {}),
    })),
  }));
}

/** A line the user cannot send, said as Discord's client would refuse it. */
export class LineError extends Error {}

function value(option: APIApplicationCommandOption, raw: string): OptionValue {
  if (option.type === Opt.Integer || option.type === Opt.Number) {
    const n = Number(raw);
    if (raw === "" || Number.isNaN(n)) throw new LineError(`${option.name} takes a number`);
    return n;
  }
  // A mention picked from the member list (`@Name`, sent as `<@id>`) is the person's id.
  if (option.type === Opt.User || option.type === Opt.Mentionable)
    return /^<@!?(\d+)>$/.exec(raw)?.[1] ?? raw;
  if (option.type === Opt.Boolean) {
    if (raw !== "true" && raw !== "false") throw new LineError(`${option.name} takes true or false`);
    return raw === "true";
  }
  return raw;
}

/**
 * `/name [group] [sub] option:value …`: a value runs to the next `word:` that names an option of
 * the command. Files fill the command's attachment options in their order. `partial`: a line
 * still being typed (for autocomplete), whose required options may be missing.
 */
export function parseLine(
  line: string,
  commands: readonly CommandShape[],
  files: readonly FakeFile[] = [],
  { partial = false }: { partial?: boolean } = {},
): CommandInput {
  const trimmed = line.trim().replace(/^\//, "");
  const leaf = leafCommands(commands)
    .filter((l) => trimmed === l.path || trimmed.startsWith(`${l.path} `))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!leaf) throw new LineError(`No command /${trimmed.split(/\s/)[0] ?? ""} here`);
  const rest = trimmed.slice(leaf.path.length);
  const names = leaf.options.filter((o) => o.type !== Opt.Attachment).map((o) => o.name);
  const starts = [...rest.matchAll(/(?:^|\s)([\w-]+):/g)].filter((m) => names.includes(m[1]!));
  if (rest.trim() && (starts[0]?.index ?? rest.length) > rest.search(/\S/))
    throw new LineError(`Say which option "${rest.trim().split(/\s/)[0]}" is for (name:value)`);
  const options: Record<string, OptionValue> = {};
  starts.forEach((m, i) => {
    const option = leaf.options.find((o) => o.name === m[1])!;
    const raw = rest.slice(m.index! + m[0].length, starts[i + 1]?.index ?? rest.length).trim();
    options[option.name] = value(option, raw);
  });
  const missing = leaf.options.filter(
    (o) => "required" in o && o.required && o.type !== Opt.Attachment && !(o.name in options),
  );
  if (missing.length && !partial)
    throw new LineError(`Missing ${missing.map((o) => `${o.name}:`).join(", ")}`);
  const slots = leaf.options.filter((o) => o.type === Opt.Attachment);
  if (files.length > slots.length) throw new LineError(`/${leaf.path} takes ${slots.length} file(s)`);
  const [name, ...subs] = leaf.path.split(" ") as [string, ...string[]];
  const [group, subcommand] = subs.length === 2 ? subs : [undefined, subs[0]];
  return {
    name,
    ...(group && { group }),
    ...(subcommand && { subcommand }),
    options,
    attachments: files.map((file, i) => ({ ...file, option: slots[i]!.name })),
  };
}
