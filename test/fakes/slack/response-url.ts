import type { IncomingMessage, ServerResponse } from "node:http";
import { type Args, fail, isFailure, type Result } from "./methods/args.js";
import { readContent } from "./methods/chat.js";
import { RESPONSE_URL_TTL_MS, RESPONSE_URL_USES, type ResponseUrl, type SlackState } from "./state.js";

async function readJson(req: IncomingMessage): Promise<Args | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const json: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof json === "object" && json !== null ? (json as Args) : undefined;
  } catch {
    return undefined;
  }
}

function remove<T>(list: T[], match: (item: T) => boolean): void {
  const index = list.findIndex(match);
  if (index >= 0) list.splice(index, 1);
}

/** What a post does, as Slack applies it: delete or replace the source message, or post in channel or ephemerally. */
function apply(state: SlackState, entry: ResponseUrl, body: Args): Result {
  const { original } = entry;
  if (body.delete_original === true && original) {
    if (original.ephemeral) remove(state.ephemerals, (m) => m.message_ts === original.ts);
    else {
      const message = state.findMessage(entry.channel, original.ts);
      if (message) state.deleteMessage(message);
    }
    return { ok: true };
  }
  const content = readContent(body);
  if (isFailure(content)) return content;
  if (body.replace_original === true && original) {
    const target = original.ephemeral
      ? state.findEphemeral(original.ts)
      : state.findMessage(entry.channel, original.ts);
    if (!target) return fail("message_not_found");
    target.text = content.text ?? target.text;
    target.blocks = content.blocks ?? [];
    return { ok: true };
  }
  if (!content.text && !content.blocks?.length) return fail("no_text");
  const fields = { text: content.text ?? "", blocks: content.blocks ?? [] };
  const threadTs = typeof body.thread_ts === "string" ? body.thread_ts : undefined;
  if (body.response_type === "in_channel")
    state.postMessage(entry.channel, { ...fields, thread_ts: threadTs });
  else state.postEphemeral({ channel: entry.channel, user: entry.user, ...fields });
  return { ok: true };
}

/** A response_url: JSON posts, at most 5 within 30 minutes of the interaction. */
export async function handleResponseUrl(
  state: SlackState,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const entry = state.responseUrls.get(pathname);
  const body = await readJson(req);
  let result: Result;
  let status = 200;
  if (!entry || Date.now() - entry.issuedAt > RESPONSE_URL_TTL_MS)
    [status, result] = [404, fail("expired_url")];
  else if (entry.uses >= RESPONSE_URL_USES) [status, result] = [404, fail("used_url")];
  else if (!body) [status, result] = [400, fail("invalid_payload")];
  else {
    entry.uses += 1;
    result = apply(state, entry, body);
    if (!result.ok) status = 400;
  }
  const post = {
    url: `${state.baseUrl}${pathname}`,
    status,
    body,
    ...(result.ok ? {} : { error: result.error }),
  };
  entry?.posts.push(post);
  state.responseUrlPosts.push(post);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(result));
}
