import { english } from "../i18n/translator.js";

/** Small text helpers the renderers share; plain text only (adapters escape and format). */

/**
 * The first `end` UTF-16 units of text, one fewer when the cut would split a surrogate pair: half
 * an emoji is not valid Unicode, and the service (and chat platforms) refuse or mangle it.
 */
export function sliceWhole(text: string, end: number): string {
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

export function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${sliceWhole(oneLine, max - 1)}…`;
}

/**
 * A name (a job's title, made from a prompt) inside a sentence of ours: without the full stop,
 * comma or colon it may end with, so that "a test." reads "a test is ready.", not "a test. is ready.".
 * A question or exclamation mark, and the ellipsis of a cut title, stay.
 */
export function inSentence(name: string): string {
  return name.replace(/[\s.,;:]+$/u, "") || name;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "2026-12-01T00:00:00Z" -> "2026-12-01"; anything unparsable is shown as given. */
export function day(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const parsed = Date.parse(iso);
  return Number.isNaN(parsed) ? iso : new Date(parsed).toISOString().slice(0, 10);
}

/** "12 MB", "5.0 MB", in English: a card in the reader's language asks its translator. */
export function megabytes(bytes: number): string {
  return english().bytes(bytes);
}

/** "45 s", "3 min 20 s", "1 h 5 min": a duration as people say it, to the second under an hour. */
export function duration(ms: number): string {
  return english().duration(ms);
}

/** "film_35mm_editorial" -> "Film 35mm editorial", for select labels and cards. */
export function styleLabel(style: string): string {
  const words = style.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
