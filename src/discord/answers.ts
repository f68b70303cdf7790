import { DiscordAPIError, HTTPError } from "discord.js";
import {
  BotError,
  DeleteRefusedError,
  FileRefusedError,
  MessageGoneError,
  UndeliverableError,
} from "../core/base/errors.js";
import type { MessageKey } from "../core/i18n/catalogues.js";
import { type Msg, msg } from "../core/i18n/msg.js";
import { english } from "../core/i18n/translator.js";

/**
 * Every answer the bot can get from the Discord routes it calls, sorted once into what the bot
 * does about it. The routes: an interaction's callback; with its token (the interaction's
 * webhook) a followup, an edit and a delete of its messages; with the bot token a channel
 * message's create and edit (a DM's too) and the DM's opening. A JSON code means the same on each
 * of them; what differs is the credential, which decides where a dead one leads (see `Verdict`).
 *
 * Codes: https://discord.com/developers/docs/topics/opcodes-and-status-codes#json (the list that
 * discord-api-types mirrors as RESTJSONErrorCodes; a test walks it, so a code Discord adds fails
 * the test until it is sorted here). An answer without a code is sorted by its HTTP status.
 */
export type Verdict =
  /** The place refuses the bot for good: never sent again; the core tries the person's DM. */
  | "conversation"
  /** The message would be taken, not its file: never sent again with it; the core links it. */
  | "file"
  /** The message to edit is gone: the core posts anew. */
  | "gone"
  /**
   * The credential is dead: an interaction's token moves on to the bot token. The bot token has
   * nothing after it: retried later like an outage, while the operator fixes DISCORD_TOKEN.
   */
  | "credential"
  /** Waiting may fix it: retried later, with backoff. */
  | "transient";

export interface Answer {
  verdict: Verdict;
  /** For a refusal: what the person is told, plainly, with who can fix it (in their language). */
  said?: Msg;
  /** `said` in English: what logs read. */
  readonly reason?: string;
}

const refusal = (verdict: "conversation" | "file", key: MessageKey): Answer => {
  const said = msg(key);
  return {
    verdict,
    said,
    get reason() {
      return english().say(said);
    },
  };
};
const conversation = (key: MessageKey): Answer => refusal("conversation", key);
const file = (key: MessageKey): Answer => refusal("file", key);
const GONE: Answer = { verdict: "gone" };
const DEAD: Answer = { verdict: "credential" };
const LATER: Answer = { verdict: "transient" };

const CHANNEL_KIND = conversation("platform.discord.channel_kind");
const BLOCKED = conversation("platform.discord.blocked");
const FILE_INVALID = file("platform.discord.file_invalid");
const FILE_TOO_BIG = file("platform.discord.file_too_big");
/** A request Discord will never take as it is: a fault of the bot, not of the place. */
const FAULT = conversation("platform.discord.fault");
const UNVERIFIED = conversation("platform.discord.unverified");

/**
 * Codes of Discord's endpoints the bot never calls (guild and member administration, emojis,
 * stickers, invites, OAuth2, monetization, events, polls, onboarding, the Social SDK): one can only
 * come from a message route by a fault, and the same request would meet it again.
 */
const OTHER_ENDPOINTS = [
  10001, 10002, 10005, 10006, 10007, 10009, 10010, 10011, 10012, 10014, 10016, 10020, 10021, 10026, 10027,
  10028, 10029, 10030, 10031, 10032, 10033, 10036, 10038, 10049, 10050, 10057, 10059, 10060, 10061, 10063,
  10065, 10066, 10067, 10068, 10069, 10070, 10071, 10087, 10097, 10124, 10129, 20001, 20002, 20012, 20015,
  20017, 20018, 20024, 20031, 20035, 30001, 30002, 30003, 30004, 30005, 30007, 30008, 30010, 30011, 30013,
  30016, 30018, 30019, 30030, 30031, 30032, 30033, 30034, 30035, 30037, 30038, 30039, 30040, 30042, 30045,
  30047, 30048, 30052, 30056, 30058, 30060, 30061, 40007, 40009, 40012, 40018, 40019, 40032, 40033, 40041,
  40043, 40061, 40066, 40067, 40074, 50002, 50004, 50010, 50011, 50012, 50015, 50016, 50017, 50019, 50020,
  50026, 50028, 50033, 50034, 50036, 50039, 50054, 50055, 50057, 50067, 50070, 50073, 50074, 50080, 50081,
  50084, 50085, 50086, 50091, 50095, 50097, 50101, 50131, 50132, 50138, 50144, 50145, 50151, 50159, 50160,
  50161, 50162, 50163, 50167, 50173, 50600, 60003, 80004, 90001, 90002, 150006, 160004, 160006, 160007,
  160009, 160010, 160014, 170001, 170002, 170003, 170004, 170005, 170006, 170007, 180000, 180002, 220001,
  220002, 220003, 220004, 340015, 350000, 350001, 500000, 520000, 520001, 520002, 520003, 520004, 520006,
  530000, 530001, 530002, 530003, 530004, 530007,
];

/** Every JSON code Discord documents, by what it means on the routes the bot calls. */
export const ANSWERS: ReadonlyMap<number, Answer> = new Map<number, Answer>([
  // The place does not take the bot's messages.
  [10003, conversation("platform.discord.channel_gone")],
  [10004, conversation("platform.discord.not_in_server")],
  [10013, conversation("platform.discord.person_unknown")],
  [50001, conversation("platform.discord.cannot_see")],
  [50013, conversation("platform.discord.cannot_post")],
  [50007, conversation("platform.discord.dm_refused")],
  [50278, conversation("platform.discord.dm_no_server")],
  [50083, conversation("platform.discord.thread_archived")],
  [160005, conversation("platform.discord.thread_locked")],
  [160002, conversation("platform.discord.no_history")],
  [50009, conversation("platform.discord.verification_level")],
  [40002, UNVERIFIED],
  [50178, UNVERIFIED],
  [50008, CHANNEL_KIND],
  [50024, CHANNEL_KIND],
  [40058, CHANNEL_KIND],
  [50003, CHANNEL_KIND],
  [40094, conversation("platform.discord.followups_full")],
  [20009, conversation("platform.discord.explicit_filter")],
  [200000, BLOCKED],
  [200001, BLOCKED],
  [240000, BLOCKED],
  // The message as the bot made it: no place takes it, and the same request would fail again.
  // (Code 0, "general error", is sorted by its HTTP status: Discord gives it to 5xx answers too.)
  [50005, FAULT],
  [50006, FAULT],
  [50021, FAULT],
  [50035, FAULT],
  [50041, FAULT],
  [50068, FAULT],
  [50109, FAULT],
  [40060, FAULT],
  // The file, not the message.
  [40005, FILE_TOO_BIG],
  [50045, FILE_TOO_BIG],
  [50046, FILE_INVALID],
  [50110, FILE_INVALID],
  [50123, file("platform.discord.file_type")],
  [50124, FILE_INVALID],
  [50146, FILE_INVALID],
  [50192, FILE_INVALID],
  [30015, file("platform.discord.files_full")],
  [400001, file("platform.discord.uploads_limited")],
  // The message to edit was deleted.
  [10008, GONE],
  // A dead credential: an interaction's token past its 15 minutes (or one Discord forgot), the bot token.
  [10015, DEAD],
  [10062, DEAD],
  [50027, DEAD],
  [40001, DEAD],
  [50014, DEAD],
  [50025, DEAD],
  // Limits that pass, and Discord's own trouble.
  [20016, LATER],
  [20022, LATER],
  [20028, LATER],
  [20029, LATER],
  [30046, LATER],
  [40003, LATER],
  [40004, LATER],
  [40006, LATER],
  [40062, LATER],
  [40333, LATER],
  [110000, LATER],
  [110001, LATER],
  [130000, LATER],
  [530006, LATER],
  ...OTHER_ENDPOINTS.map((code): [number, Answer] => [code, FAULT]),
]);

/** An answer without a code (0, or none: a proxy's), or with one Discord added since, by its HTTP status. */
export function answerOfStatus(status: number): Answer {
  if (status === 401) return DEAD;
  if (status === 413) return FILE_TOO_BIG;
  if (status === 403) return ANSWERS.get(50013)!;
  if (status === 408 || status === 429 || status >= 500) return LATER;
  return FAULT;
}

/**
 * What to do about `error`, thrown by a discord.js REST call: Discord's answer, sorted; anything
 * that is no answer of Discord's (a network failure, a timeout) is passing trouble.
 */
export function answerOf(error: unknown): Answer {
  if (error instanceof DiscordAPIError) {
    const code = Number(error.code);
    return (code !== 0 && ANSWERS.get(code)) || answerOfStatus(error.status);
  }
  if (error instanceof HTTPError) return answerOfStatus(error.status);
  return LATER;
}

/** Discord's answer as one line for the log. */
function described(error: unknown): string {
  if (error instanceof DiscordAPIError) return `Discord ${error.status} ${error.code}: ${error.message}`;
  if (error instanceof HTTPError) return `Discord ${error.status}: ${error.message}`;
  return String((error as Error | undefined)?.message ?? error);
}

/**
 * The core's error for what a call to Discord threw (core/base/ports.ts): a refusal of the place, of the
 * file, a deleted message; anything else as it is, which the core retries. The adapter's own
 * errors (a file it refused before sending) pass as they are.
 */
export function chatErrorOf(error: unknown): unknown {
  if (error instanceof BotError) return error;
  const { verdict, said } = answerOf(error);
  const detail = { message: described(error), cause: error };
  switch (verdict) {
    case "conversation":
      return new UndeliverableError(said!, detail);
    case "file":
      return new FileRefusedError(said!, detail);
    case "gone":
      return new MessageGoneError(detail);
    default:
      return error;
  }
}

/** Why Discord would not delete a message, by its code; any other refusal says only that. */
const NOT_DELETED = new Map<number, Msg>([
  [50013, msg("platform.discord.delete_permission")],
  [50001, msg("platform.discord.delete_unseen")],
  [10003, msg("platform.discord.delete_channel_gone")],
]);

/**
 * What a refused delete means: undefined when the message was gone already (Unknown Message,
 * which is what the person wanted), a `DeleteRefusedError` saying why for a refusal, and anything
 * else (passing trouble) as `chatErrorOf` has it.
 */
export function deleteErrorOf(error: unknown): unknown {
  if (error instanceof BotError) return error;
  const { verdict } = answerOf(error);
  if (verdict === "gone") return undefined;
  if (verdict !== "conversation" && verdict !== "credential") return chatErrorOf(error);
  const code = error instanceof DiscordAPIError ? Number(error.code) : 0;
  const why =
    verdict === "credential"
      ? PRIVATE_REPLY
      : (NOT_DELETED.get(code) ?? msg("platform.discord.delete_refused"));
  return new DeleteRefusedError(why, { message: described(error), cause: error });
}

/** A reply only an interaction reaches, once its token died (15 minutes), cannot be deleted by the bot. */
export const PRIVATE_REPLY = msg("platform.discord.private_reply");
