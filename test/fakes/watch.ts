/**
 * What the fakes carry, for a run that watches it (the pseudo-locale run, test/pseudo/): what the
 * bot shows people (each message, card, form and workflow error it sends Discord or Slack), words
 * that came from elsewhere (what people typed, what the media service answered), and each body a
 * fake refused. Nothing watches in an ordinary run, and the fakes answer the same either way.
 */

export type Platform = "discord" | "slack";

export interface Watcher {
  /** The language every person's client is set to, unless a test sets one. */
  readonly locale?: string;
  shown(platform: Platform, where: string, body: unknown): void;
  given(value: unknown): void;
  refused(platform: Platform, where: string, problems: readonly string[]): void;
}

let watcher: Watcher | undefined;

export function watchFakes(next: Watcher | undefined): void {
  watcher = next;
}

export const watched = {
  locale: (): string | undefined => watcher?.locale,
  shown: (platform: Platform, where: string, body: unknown): void => watcher?.shown(platform, where, body),
  given: (value: unknown): void => watcher?.given(value),
  refused: (platform: Platform, where: string, problems: readonly string[]): void => {
    if (problems.length > 0) watcher?.refused(platform, where, problems);
  },
};
