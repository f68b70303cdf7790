import type { MessageKey } from "./catalogues.js";

/**
 * What the bot means to say, before it is said in anyone's language: a catalogue key and the
 * values its placeholders take. An error made deep in the core (or in an adapter) carries one,
 * and is put into words where its reader is known (a gesture's person, a job's requester).
 * Plain JSON but for its values' kinds, so a descriptor can wait in a queue or be logged.
 */
export interface Msg {
  readonly key: MessageKey;
  readonly values?: Readonly<Record<string, Arg>>;
}

/** A person named in a sentence: each platform shows the mention in its own syntax. */
export interface Mention {
  readonly userId: string;
}

/** A command, named as it is typed in every language ("the video list command"). */
export interface CommandRef {
  readonly command: string;
}

/** A size in bytes, said in megabytes ("12.3 MB", "12,3 Mo"). */
export interface Bytes {
  readonly bytes: number;
}

/** A length of time, said as people say it ("3 min 20 s"). */
export interface Lasting {
  readonly ms: number;
}

/**
 * A placeholder's value: text and numbers as they are (the service's words are quoted as they
 * came), a person, another message (said in the same language), a command, a size, a length of
 * time, a list of words (joined as the language joins lists: "a, b and c"), or a list of clauses
 * (messages, joined by the language's clause separator: "a; b").
 */
export type Arg =
  | string
  | number
  | Mention
  | Msg
  | CommandRef
  | Bytes
  | Lasting
  | readonly string[]
  | readonly Msg[];

export type Values = Readonly<Record<string, Arg>>;

export function msg(key: MessageKey, values?: Values): Msg {
  return values === undefined ? { key } : { key, values };
}

export function command(name: string): CommandRef {
  return { command: name };
}

export const isMsg = (value: unknown): value is Msg =>
  typeof value === "object" && value !== null && "key" in value && typeof value.key === "string";
