/**
 * `@Name` typed in a pane's command box, as a person picked from the client's member list: the
 * clients send the bot a mention of their id, `<@id>` (Discord's user mention; Slack's too, with a
 * `U…` id). Pure.
 */

export interface Person {
  id: string;
  name: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The line with each `@Name` of `people` (longest names first, any case) as their mention. */
export function withMentions(line: string, people: readonly Person[]): string {
  return [...people]
    .sort((a, b) => b.name.length - a.name.length)
    .reduce(
      (text, person) =>
        text.replace(
          new RegExp(`(?<![\\w.])@${escapeRegExp(person.name)}(?![\\w-])`, "gi"),
          `<@${person.id}>`,
        ),
      line,
    );
}
