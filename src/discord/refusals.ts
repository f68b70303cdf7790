import { DiscordAPIError } from "discord.js";
import { MessageGoneError, UndeliverableError } from "../core/errors.js";

/**
 * Discord's JSON error codes that waiting will not fix, as the core's chat errors: the job engine
 * stops retrying a delivery the channel refuses, and posts anew what a deleted message was to show.
 * https://discord.com/developers/docs/topics/opcodes-and-status-codes#json
 */
const REFUSALS: Record<number, string> = {
  10003: "This channel no longer exists.",
  50001: "The bot cannot see this channel. A server admin can give it the View Channel permission there.",
  50007:
    "Discord refused a direct message from the bot to you (your privacy settings, or a block), so what was to come by DM cannot reach you. Allow direct messages from the bot (in a server you share with it: its Privacy Settings), or use the bot where it can post.",
  50013:
    "The bot may not post in this channel. A server admin can give it Send Messages, Embed Links and Attach Files there.",
  50083: "This thread is archived. Unarchive it so that the bot can post in it.",
};
const UNKNOWN_MESSAGE = 10008;

/** The core's error for a refusal, or `error` itself (an outage, a rate limit: worth retrying). */
export function refusalOf(error: unknown): unknown {
  if (!(error instanceof DiscordAPIError)) return error;
  const code = Number(error.code);
  if (code === UNKNOWN_MESSAGE) return new MessageGoneError({ cause: error });
  const reason = REFUSALS[code];
  return reason
    ? new UndeliverableError(reason, { message: `Discord ${code}: ${error.message}`, cause: error })
    : error;
}
