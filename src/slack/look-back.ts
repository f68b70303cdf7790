import type { WebClient } from "@slack/web-api";
import { BotError } from "../core/base/errors.js";
import { SLACK_LIMITS } from "./limits.js";

/**
 * Reads a conversation (or one thread of it) back for what the bot did before a crash kept it
 * from recording it: a keyed post (its metadata names the key) or a file shared into a thread.
 * Only after such a crash (the ledger's note of a call begun and never answered), and only since
 * the call began, give or take the clocks' skew.
 *
 * Reading needs the history scopes (channels:history, groups:history, im:history, mpim:history)
 * and membership of the conversation. Where Slack refuses, nothing is found and the caller acts
 * again: a notice or a file twice, never none.
 *
 * The pages keep to the install's limits: an app distributed outside the Slack Marketplace (an
 * OAuth install) reads 15 messages a page at one call a minute, so it reads fewer pages; an
 * internal app (SLACK_BOT_TOKEN) 200 a page (limits.ts). The calls are paced as any (calls.ts).
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

/** A read of the history, paced and judged (calls.ts). */
export type HistoryCall = <T>(
  method: "conversations.history" | "conversations.replies",
  call: (client: WebClient) => Promise<T>,
) => Promise<T>;

/** How far back of the ledger's note a read-back starts: the bot's and Slack's clocks differ a little. */
const CLOCK_SKEW_MS = 60_000;
/** A crash's window is seconds: a few pages of a busy channel cover it. */
const PAGES = { internal: 5, distributed: 3 };

export async function lookBack<T>(
  read: HistoryCall,
  distributed: boolean,
  where: Where,
  since: number,
  pick: (message: Seen) => T | undefined,
): Promise<T | undefined> {
  const { pageSize } = distributed ? SLACK_LIMITS.distributedHistory : SLACK_LIMITS.internalHistory;
  const query = {
    channel: where.channelId,
    oldest: ((since - CLOCK_SKEW_MS) / 1000).toFixed(6),
    include_all_metadata: true,
    limit: pageSize,
  };
  let cursor: string | undefined;
  try {
    for (let page = 0; page < (distributed ? PAGES.distributed : PAGES.internal); page++) {
      const answer = where.threadTs
        ? await read("conversations.replies", (client) =>
            client.conversations.replies({ ...query, ts: where.threadTs!, ...(cursor && { cursor }) }),
          )
        : await read("conversations.history", (client) =>
            client.conversations.history({ ...query, ...(cursor && { cursor }) }),
          );
      for (const message of (answer.messages ?? []) as Seen[]) {
        const found = pick(message);
        if (found !== undefined) return found;
      }
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
  } catch (error) {
    // Slack refused the read (no scope, not a member): nothing found. Its trouble: the caller's retry looks again.
    if (!(error instanceof BotError)) throw error;
  }
  return undefined;
}
