import { type Card, card } from "../cards.js";

export interface HelpEntry {
  name: string;
  help: string;
  /** The free-text option, shown as the usage hint. */
  main?: string;
}

/** "image.generate" -> "image generate": how people type it on both platforms. */
export function spoken(name: string): string {
  return name.replace(".", " ");
}

/** The whole catalogue by group, or one group's commands with their main text. */
export function helpCard(entries: readonly HelpEntry[], topic?: string): Card {
  const group = topic?.trim().toLowerCase();
  const shown = group ? entries.filter((e) => e.name === group || e.name.startsWith(`${group}.`)) : entries;
  if (shown.length === 0) {
    return card("Help", "warning", {
      lines: [`There is no command or group called "${topic}".`, "Run help without a topic to see them all."],
    });
  }
  return card(group ? `Help: ${group}` : "Help: media bot commands", "info", {
    lines: group ? [] : ["Run help with a group name (image, video, ...) for its commands and options."],
    fields: shown.map((e) => ({
      name: e.main ? `${spoken(e.name)} <${e.main}>` : spoken(e.name),
      value: e.help,
    })),
  });
}
