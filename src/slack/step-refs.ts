import type { ConversationRef, MessageRef } from "../core/base/ports.js";

/**
 * How a workflow step's execution travels through the core: a `step` conversation whose `data`
 * names the execution (not secret) and whose `live` part holds the function's own token
 * (`bot_access_token` of the function_executed event). The job keeps that token only in its
 * message's `live` part, which the job store drops when the job is finished, as it does with
 * response_urls and interaction tokens.
 */

export function stepConversation(
  teamId: string,
  userId: string,
  executionId: string,
  functionToken: string,
  ends: NonNullable<ConversationRef["step"]>,
): ConversationRef {
  return {
    platform: "slack",
    // A workflow runs in no channel: the person stands for it, as their Home tab does.
    channelId: userId,
    data: { user: userId, team: teamId, execution: executionId },
    step: ends,
    live: { functionToken },
  };
}

/** The execution a step conversation or the job's message for it stands for. */
export function executionOf(ref: ConversationRef | MessageRef): string | undefined {
  const execution = ref.data?.execution;
  return typeof execution === "string" ? execution : undefined;
}

export function functionTokenOf(ref: ConversationRef | MessageRef): string | undefined {
  const token = ref.live?.functionToken;
  return typeof token === "string" ? token : undefined;
}

/** The job's "message" for a step: nothing posted, the execution and its token kept. */
export function stepMessage(target: ConversationRef, executionId: string): MessageRef {
  return {
    platform: "slack",
    channelId: target.channelId,
    messageId: executionId,
    ...(target.data && { data: target.data }),
    ...(target.live && { live: target.live }),
  };
}
