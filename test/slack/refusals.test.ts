import type { WebClient } from "@slack/web-api";
import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { card } from "../../src/core/base/cards.js";
import { MessageGoneError, UndeliverableError } from "../../src/core/base/errors.js";
import type { MessageRef } from "../../src/core/base/ports.js";
import { SlackAdapter } from "../../src/slack/adapter.js";
import { Ledger } from "../../src/slack/ledger.js";
import { singleWorkspace } from "../../src/slack/workspaces.js";

/**
 * Which of Slack's answers to a post or an edit end a delivery (the channel refuses the bot:
 * retrying will not help) or make the bot post anew (the message was deleted), and which stay
 * errors worth retrying. The e2e tests cover the same against the fake Slack for a few of them.
 */

/** What @slack/web-api throws for `{ok: false, error}`. */
function platformError(code: string): Error {
  return Object.assign(new Error(`An API error occurred: ${code}`), {
    code: "slack_webapi_platform_error",
    data: { ok: false, error: code },
  });
}

/** Calls of each method the adapter made. */
let made: Record<string, number> = {};

function adapterFailingWith(error: Error): SlackAdapter {
  made = {};
  const fail = (method: string) => () => {
    made[method] = (made[method] ?? 0) + 1;
    return Promise.reject(error);
  };
  const client = {
    chat: { update: fail("chat.update"), postMessage: fail("chat.postMessage") },
  } as unknown as WebClient;
  return new SlackAdapter(singleWorkspace(client), new Ledger(new Keyv()), {
    pacing: { backoffBaseMs: 1, backoffMaxMs: 1 },
  });
}

const where = { platform: "slack" as const, channelId: "C0MEDIA001" };
const message: MessageRef = { ...where, messageId: "1700000000.000100" };
const result = card("Image: fox", "success");

async function refusals(error: Error) {
  const adapter = adapterFailingWith(error);
  return Promise.all([
    adapter.edit(message, result).catch((e: unknown) => e),
    adapter.post(where, result).catch((e: unknown) => e),
  ]);
}

describe("Slack's refusals", () => {
  it("turns message_not_found into MessageGoneError", async () => {
    const [edited] = await refusals(platformError("message_not_found"));
    expect(edited).toBeInstanceOf(MessageGoneError);
  });

  it.each([
    ["not_in_channel", /not a member of this channel.*\/invite/],
    ["channel_not_found", /not a member of this channel.*\/invite/],
    ["invalid_channel", /not a member of this channel.*\/invite/],
    ["is_archived", /archived.*Unarchive/],
    ["account_inactive", /removed from this workspace.*install it again/],
    ["token_revoked", /removed from this workspace.*install it again/],
  ])("turns %s into UndeliverableError that says who can fix it, asking once", async (code, says) => {
    for (const refused of await refusals(platformError(code))) {
      expect(refused).toBeInstanceOf(UndeliverableError);
      expect((refused as UndeliverableError).userMessage).toMatch(says);
    }
    expect(made).toEqual({ "chat.update": 1, "chat.postMessage": 1 });
  });

  it.each([
    ["ratelimited", platformError("ratelimited"), 4],
    ["internal_error", platformError("internal_error"), 1],
    [
      "a network failure",
      Object.assign(new Error("socket hang up"), { code: "slack_webapi_request_error" }),
      1,
    ],
  ])(
    "retries %s a few times where repeating cannot post twice, then leaves it to the engine",
    async (_what, error, posts) => {
      for (const left of await refusals(error)) expect(left).toBe(error);
      // An edit repeats harmlessly; a post that may have landed is not repeated blindly.
      expect(made).toEqual({ "chat.update": 4, "chat.postMessage": posts });
    },
  );
});
