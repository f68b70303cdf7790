import type { REST } from "discord.js";

/**
 * First responses in the HTTP answer. Over HTTP interactions Discord takes the interaction
 * response as the JSON body of the 200 that answers its POST: no second request, no callback
 * round trip before the answer. discord.js knows only the callback endpoint, so its first
 * callback for an interaction whose request is still open is taken here, on its way out of
 * `client.rest.post`, and handed to that request; discord.js's call then resolves as the callback
 * would have (with_response=false: Discord's 204, which @discordjs/rest gives as an empty buffer),
 * and everything after (edits of @original, follow-ups) goes by REST as before.
 *
 * Left on the REST path: a callback with files (multipart cannot go in a JSON body), one asking
 * with_response (its answer describes the message Discord made), and any callback for an
 * interaction whose request is no longer waiting (answered, timed out, or its client gone).
 */

/** An interaction response: what a callback's JSON body and the 200's body both are. */
export interface FirstResponse {
  type: number;
  data?: unknown;
}

/**
 * Puts a first response in the HTTP answer. Resolves true once the answer is sent, false if the
 * request ended first (the callback then goes by REST, as if nothing had been waiting).
 */
export type TakeResponse = (response: FirstResponse) => Promise<boolean>;

export interface InBodyResponses {
  /** Waits for the interaction's first callback; the function returned stops waiting. */
  expect(interactionId: string, take: TakeResponse): () => void;
  /** Gives client.rest its own post back. */
  uninstall(): void;
}

const CALLBACK = /^\/interactions\/(\d+)\/[^/]+\/callback$/;

type PostOptions = NonNullable<Parameters<REST["post"]>[1]>;

/** The response a callback carries, if it can be the HTTP answer's body. */
function inBody(options: PostOptions): FirstResponse | undefined {
  if (options.files && options.files.length > 0) return undefined;
  if (options.passThroughBody || options.appendToFormData) return undefined;
  const query = options.query;
  if (query && new URLSearchParams(query).get("with_response") === "true") return undefined;
  const body = options.body as { type?: unknown } | undefined;
  if (typeof body !== "object" || body === null || typeof body.type !== "number") return undefined;
  return body as FirstResponse;
}

/** Installs the interception on discord.js's REST instance: one per client. */
export function installInBodyResponses(rest: REST): InBodyResponses {
  const waiting = new Map<string, TakeResponse>();
  const own = rest.post;
  const post: REST["post"] = (route, options = {}) => {
    const id = CALLBACK.exec(route)?.[1];
    const take = id === undefined ? undefined : waiting.get(id);
    const response = take && inBody(options);
    if (!take || !response || id === undefined) return own.call(rest, route, options);
    waiting.delete(id);
    return take(response).then((sent) => (sent ? new ArrayBuffer(0) : own.call(rest, route, options)));
  };
  rest.post = post;
  return {
    expect(interactionId, take) {
      waiting.set(interactionId, take);
      return () => {
        if (waiting.get(interactionId) === take) waiting.delete(interactionId);
      };
    },
    uninstall() {
      if (rest.post === post) rest.post = own;
      waiting.clear();
    },
  };
}
