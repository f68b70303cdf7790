import type { Message, Workspace } from "../state.js";
import { type Args, fail, isFailure, type Method, memberChannel, str } from "./args.js";
import { shown } from "./chat.js";

/**
 * conversations.history and conversations.replies as Slack pages them: newest first, `oldest` /
 * `latest` exclusive bounds in "seconds.micros", `limit` (default 100, at most 999) and an opaque
 * cursor. A bot reads only conversations it is a member of (not_in_channel otherwise), and sees
 * the apps' message metadata only with include_all_metadata. History holds the top-level messages;
 * a thread's replies come from conversations.replies, its parent first.
 *
 * In a workspace that installed the app through OAuth while it is not approved for the Slack
 * Marketplace, `limit` defaults to 15 and takes no more (Slack's changelog of 2025-05-29); the
 * tier of one call a minute is in rate-tiers.ts.
 */

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 999;
const DISTRIBUTED_LIMIT = 15;

function page(messages: Message[], args: Args, workspace: Workspace) {
  const oldest = Number(str(args, "oldest") ?? "0");
  const latest = str(args, "latest") === undefined ? Number.POSITIVE_INFINITY : Number(str(args, "latest"));
  const inclusive = str(args, "inclusive") === "true" || str(args, "inclusive") === "1";
  const within = messages.filter((m) => {
    const ts = Number(m.ts);
    return inclusive ? ts >= oldest && ts <= latest : ts > oldest && ts < latest;
  });
  const [fallback, max] =
    workspace.distribution === "distributed"
      ? [DISTRIBUTED_LIMIT, DISTRIBUTED_LIMIT]
      : [DEFAULT_LIMIT, MAX_LIMIT];
  const limit = Math.min(max, Math.max(1, Number(str(args, "limit") ?? fallback) || fallback));
  const cursor = str(args, "cursor");
  const start = cursor
    ? Number(
        Buffer.from(cursor, "base64")
          .toString()
          .replace(/^next_ts:/, ""),
      )
    : 0;
  const slice = within.slice(start, start + limit);
  const more = start + limit < within.length;
  const withMetadata =
    str(args, "include_all_metadata") === "true" || str(args, "include_all_metadata") === "1";
  return {
    ok: true as const,
    messages: slice.map((m) => shown(m, withMetadata)),
    has_more: more,
    response_metadata: {
      next_cursor: more ? Buffer.from(`next_ts:${start + limit}`).toString("base64") : "",
    },
  };
}

const newestFirst = (a: Message, b: Message) => Number(b.ts) - Number(a.ts);

export const historyMethods: Record<string, Method> = {
  "conversations.history": {
    token: "bot",
    run(ctx) {
      const { state, args } = ctx;
      const channel = memberChannel(ctx);
      if (isFailure(channel)) return channel;
      const top = state.messages.filter(
        (m) => m.channel === channel && (m.thread_ts === undefined || m.thread_ts === m.ts),
      );
      return page(top.sort(newestFirst), args, ctx.team);
    },
  },
  "conversations.replies": {
    token: "bot",
    run(ctx) {
      const { state, args } = ctx;
      const channel = memberChannel(ctx);
      if (isFailure(channel)) return channel;
      const ts = str(args, "ts") ?? "";
      const parent = state.findMessage(channel, ts);
      if (!parent) return fail("thread_not_found");
      const replies = state.messages
        .filter((m) => m.channel === channel && m.thread_ts === ts && m.ts !== ts)
        .sort((a, b) => Number(a.ts) - Number(b.ts));
      // Slack pages a thread oldest first, the parent at the head.
      return page([parent, ...replies], args, ctx.team);
    },
  },
};
