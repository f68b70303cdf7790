import type { WebClient } from "@slack/web-api";
import { slackErrorCode } from "./error-code.js";

/**
 * Reads a conversation (or one thread of it) back for what the bot did before a crash kept it
 * from recording it: a keyed post (its metadata names the key) or a file shared into a thread.
 * Only after such a crash, and only since the call began, give or take the clocks' skew.
 *
 * Reading needs the history scopes (channels:history, groups:history, im:history, mpim:history)
 * and membership of the conversation. Where Slack refuses, nothing is found and the caller acts
 * again: a notice or a file twice, never none.
 */

/** What the bot looks for in a message of the history. */
export interface Seen {
  ts?: string;
  metadata?: { event_type?: string; event_payload?: unknown };
  files?: { id?: string; name?: string }[];
}

export interface Where {
  channelId: string;
  /** Only this thread's replies. */
  threadTs?: string;
}

/** How far back of the ledger's note a read-back starts: the bot's and Slack's clocks differ a little. */
const CLOCK_SKEW_MS = 60_000;
const PAGE = 200;
/** A crash's window is seconds: a few pages of a busy channel cover it. */
const PAGES = 5;

export async function lookBack<T>(
  client: WebClient,
  where: Where,
  since: number,
  pick: (message: Seen) => T | undefined,
): Promise<T | undefined> {
  const query = {
    channel: where.channelId,
    oldest: ((since - CLOCK_SKEW_MS) / 1000).toFixed(6),
    include_all_metadata: true,
    limit: PAGE,
  };
  let cursor: string | undefined;
  try {
    for (let page = 0; page < PAGES; page++) {
      const answer = where.threadTs
        ? await client.conversations.replies({ ...query, ts: where.threadTs, ...(cursor && { cursor }) })
        : await client.conversations.history({ ...query, ...(cursor && { cursor }) });
      for (const message of (answer.messages ?? []) as Seen[]) {
        const found = pick(message);
        if (found !== undefined) return found;
      }
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
  } catch (error) {
    // Slack could not be reached: the caller's retry looks again.
    if (slackErrorCode(error) === undefined) throw error;
  }
  return undefined;
}
