import { Locale } from "discord-api-types/v10";
import type { Issue } from "./validate.js";

// Discord refuses these with 400 / 50035 (or 50006) although the OpenAPI schemas accept them.

type Json = Record<string, unknown>;

export const MessageFlag = {
  SuppressEmbeds: 1 << 2,
  Ephemeral: 1 << 6,
  Loading: 1 << 7,
  SuppressNotifications: 1 << 12,
  IsVoiceMessage: 1 << 13,
  IsComponentsV2: 1 << 15,
} as const;

const ACTION_ROW = 1;
const BUTTON = 2;
const SELECTS = new Set([3, 5, 6, 7, 8]);
const LINK_STYLE = 5;
const PREMIUM_STYLE = 6;
const EMBED_TOTAL = 6000;
// MessageCreateRequest allows 4000 (Nitro users); a bot's content stops at 2000.
const BOT_CONTENT = 2000;
const COMMAND_TOTAL = 8000;
const MODAL_TOP_LEVEL = 5;
// Discord's documented pattern for command and option names (CHAT_INPUT commands must be lowercase).
const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

const LOCALES: ReadonlySet<string> = new Set(Object.values(Locale));
const DESCRIPTION = 100;
const CHOICE_NAME = 100;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** Every component in a tree (rows, sections, containers, labels), with its path. */
export function walkComponents(components: unknown, path: string): { component: Json; path: string }[] {
  return list(components).flatMap((component, i) => {
    const here = `${path}.${i}`;
    const nested = [
      ...walkComponents(component.components, `${here}.components`),
      ...(isObject(component.accessory) ? walkComponents([component.accessory], `${here}.accessory`) : []),
      ...(isObject(component.component) ? walkComponents([component.component], `${here}.component`) : []),
    ];
    return [{ component, path: here }, ...nested];
  });
}

function uniqueCustomIds(components: unknown, path: string): Issue[] {
  const seen = new Set<string>();
  return walkComponents(components, path).flatMap(({ component, path: at }) => {
    const id = component.custom_id;
    if (typeof id !== "string") return [];
    if (seen.has(id))
      return [{ path: `${at}.custom_id`, message: `custom_id "${id}" is used twice in one message` }];
    seen.add(id);
    return [];
  });
}

/** Content, embeds, components and flags of a message about to be created or changed. */
export function messageRules(body: Json, prefix: string, existingFlags = 0): Issue[] {
  const issues: Issue[] = [];
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  const flags = (typeof body.flags === "number" ? body.flags : 0) | existingFlags;
  const topLevel = list(body.components);

  if (text(body.content).length > BOT_CONTENT) {
    issues.push({ path: at("content"), message: `a bot's content holds at most ${BOT_CONTENT} characters` });
  }
  if (topLevel.some((c) => c.type !== ACTION_ROW) && !(flags & MessageFlag.IsComponentsV2)) {
    issues.push({
      path: at("components"),
      message: "components other than action rows need the IS_COMPONENTS_V2 flag",
    });
  }
  if (flags & MessageFlag.IsComponentsV2) {
    for (const field of ["content", "embeds", "poll", "sticker_ids"]) {
      const value = body[field];
      if (value != null && value !== "" && !(Array.isArray(value) && value.length === 0)) {
        issues.push({ path: at(field), message: `${field} cannot be used with the IS_COMPONENTS_V2 flag` });
      }
    }
  }

  for (const { component, path } of walkComponents(body.components, at("components"))) {
    if (component.type === ACTION_ROW) {
      const children = list(component.components);
      if (children.some((c) => SELECTS.has(c.type as number)) && children.length > 1) {
        issues.push({ path: `${path}.components`, message: "a select menu must be alone in its action row" });
      }
    }
    if (component.type === BUTTON) {
      const style = component.style;
      if (style === LINK_STYLE && (component.url == null || component.custom_id != null)) {
        issues.push({ path, message: "a link button needs a url and no custom_id" });
      } else if (style === PREMIUM_STYLE && component.sku_id == null) {
        issues.push({ path, message: "a premium button needs a sku_id" });
      } else if (
        style !== LINK_STYLE &&
        style !== PREMIUM_STYLE &&
        (component.custom_id == null || component.url != null)
      ) {
        issues.push({ path, message: "a button needs a custom_id and no url" });
      }
    }
  }
  issues.push(...uniqueCustomIds(body.components, at("components")));

  const embedChars = list(body.embeds).reduce(
    (sum, embed) =>
      sum +
      text(embed.title).length +
      text(embed.description).length +
      (isObject(embed.footer) ? text(embed.footer.text).length : 0) +
      (isObject(embed.author) ? text(embed.author.name).length : 0) +
      list(embed.fields).reduce((n, f) => n + text(f.name).length + text(f.value).length, 0),
    0,
  );
  if (embedChars > EMBED_TOTAL) {
    issues.push({
      path: at("embeds"),
      message: `embeds hold ${embedChars} characters; at most ${EMBED_TOTAL}`,
    });
  }
  return issues;
}

export function modalRules(data: Json, prefix: string): Issue[] {
  const issues = uniqueCustomIds(data.components, `${prefix}.components`);
  if (list(data.components).length > MODAL_TOP_LEVEL) {
    issues.push({
      path: `${prefix}.components`,
      message: `a modal holds at most ${MODAL_TOP_LEVEL} components`,
    });
  }
  return issues;
}

/**
 * A localization map (`name_localizations`, `description_localizations`): keyed by Discord's
 * locales only, each value held to the rule of the field it localizes. Discord refuses the whole
 * registration otherwise (50035).
 */
function localizationRules(
  map: unknown,
  path: string,
  valid: (value: string, locale: string) => string | undefined,
): Issue[] {
  if (map == null) return [];
  if (!isObject(map)) return [{ path, message: "a localization map must be an object" }];
  return Object.entries(map).flatMap(([locale, value]): Issue[] => {
    if (!LOCALES.has(locale))
      return [{ path: `${path}.${locale}`, message: `"${locale}" is not a Discord locale` }];
    const problem = typeof value === "string" ? valid(value, locale) : "must be a string";
    return problem ? [{ path: `${path}.${locale}`, message: problem }] : [];
  });
}

const lowercaseName = (value: string, locale: string) =>
  NAME.test(value) && value === value.toLocaleLowerCase(locale)
    ? undefined
    : `"${value}" is not a valid lowercase name`;
const withinLength = (max: number) => (value: string) =>
  value.length >= 1 && value.length <= max ? undefined : `"${value}" is not 1-${max} characters`;

function optionRules(options: Json[], path: string): Issue[] {
  const issues: Issue[] = [];
  const names = new Set<string>();
  const nesting = options.filter((o) => o.type === 1 || o.type === 2);
  if (nesting.length && nesting.length !== options.length) {
    issues.push({ path, message: "subcommands and groups cannot sit beside plain options" });
  }
  let optionalSeen = false;
  options.forEach((option, i) => {
    const here = `${path}.${i}`;
    const name = text(option.name);
    if (!NAME.test(name) || name !== name.toLowerCase()) {
      issues.push({ path: `${here}.name`, message: `"${name}" is not a valid lowercase option name` });
    }
    if (names.has(name))
      issues.push({ path: `${here}.name`, message: `option name "${name}" is used twice` });
    names.add(name);
    issues.push(
      ...localizationRules(option.name_localizations, `${here}.name_localizations`, lowercaseName),
      ...localizationRules(
        option.description_localizations,
        `${here}.description_localizations`,
        withinLength(DESCRIPTION),
      ),
      ...list(option.choices).flatMap((choice, c) =>
        localizationRules(
          choice.name_localizations,
          `${here}.choices.${c}.name_localizations`,
          withinLength(CHOICE_NAME),
        ),
      ),
    );
    if (option.type !== 1 && option.type !== 2) {
      if (option.required === true && optionalSeen) {
        issues.push({ path: `${here}.required`, message: "required options must come before optional ones" });
      }
      if (option.required !== true) optionalSeen = true;
    }
    if (option.autocomplete === true && list(option.choices).length) {
      issues.push({ path: here, message: "an option cannot have both autocomplete and choices" });
    }
    issues.push(...optionRules(list(option.options), `${here}.options`));
  });
  return issues;
}

/** A field's length as Discord counts it toward a command's size: its longest localization or itself. */
function longest(value: unknown, localizations: unknown): number {
  const localized = isObject(localizations) ? Object.values(localizations).map(text) : [];
  return Math.max(text(value).length, ...localized.map((l) => l.length));
}

function commandChars(node: Json): number {
  return (
    longest(node.name, node.name_localizations) +
    longest(node.description, node.description_localizations) +
    list(node.choices).reduce(
      (n, c) => n + longest(c.name, c.name_localizations) + String(c.value ?? "").length,
      0,
    ) +
    list(node.options).reduce((n, o) => n + commandChars(o), 0)
  );
}

export function commandRules(command: Json, path: string): Issue[] {
  const issues: Issue[] = [];
  const type = command.type ?? 1;
  const name = text(command.name);
  if (type === 1) {
    if (!NAME.test(name) || name !== name.toLowerCase()) {
      issues.push({ path: `${path}.name`, message: `"${name}" is not a valid lowercase command name` });
    }
    if (!text(command.description)) {
      issues.push({ path: `${path}.description`, message: "a slash command needs a description" });
    }
    issues.push(
      ...localizationRules(command.name_localizations, `${path}.name_localizations`, lowercaseName),
      ...localizationRules(
        command.description_localizations,
        `${path}.description_localizations`,
        withinLength(DESCRIPTION),
      ),
    );
  } else {
    if (text(command.description) || list(command.options).length) {
      issues.push({ path, message: "user and message commands take no description and no options" });
    }
    if (name.length < 1 || name.length > 32) {
      issues.push({ path: `${path}.name`, message: `"${name}" is not 1-32 characters` });
    }
    issues.push(
      ...localizationRules(command.name_localizations, `${path}.name_localizations`, withinLength(32)),
    );
  }
  issues.push(...optionRules(list(command.options), `${path}.options`));
  const chars = commandChars(command);
  if (chars > COMMAND_TOTAL) {
    issues.push({ path, message: `the command holds ${chars} characters; at most ${COMMAND_TOTAL}` });
  }
  return issues;
}

export function commandListRules(commands: Json[]): Issue[] {
  const seen = new Set<string>();
  return commands.flatMap((command, i) => {
    const key = `${command.type ?? 1}:${text(command.name)}`;
    const duplicate = seen.has(key)
      ? [{ path: `${i}.name`, message: `command name "${text(command.name)}" is used twice` }]
      : [];
    seen.add(key);
    return [...duplicate, ...commandRules(command, String(i))];
  });
}
