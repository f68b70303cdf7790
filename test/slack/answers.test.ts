import { describe, expect, it } from "vitest";
import { answerOf, classify, METHODS_CALLED } from "../../src/slack/answers.js";
import { SLACK_LIMITS } from "../../src/slack/limits.js";
import documented from "../fakes/slack/documented.json" with { type: "json" };

/**
 * Every answer Slack documents for every method the bot calls has one meaning in the adapter's
 * table (src/slack/answers.ts): a permanent refusal (of the conversation, of the file, of the
 * request), something gone, a step ended, a dead or expired credential, or worth a bounded retry.
 * The documented codes are Slack's method pages (test/fakes/slack/documented.json names them).
 */

const methods = documented.methods as Record<string, { tier: number | "special"; errors: string[] }>;

describe("the classification of Slack's answers", () => {
  it("covers exactly the methods the bot calls", () => {
    expect([...METHODS_CALLED].sort()).toEqual(Object.keys(methods).sort());
  });

  it.each(Object.keys(methods))("gives every documented error of %s a meaning", (method) => {
    const codes = [...methods[method]!.errors, ...documented.common];
    const unclassified = codes.filter((code) => answerOf(method, code) === undefined);
    expect(unclassified).toEqual([]);
  });

  it("knows no code Slack does not document, and treats one it meets as worth a bounded retry", () => {
    expect(answerOf("chat.update", "made_up_by_a_test")).toBeUndefined();
    expect(classify("chat.update", "made_up_by_a_test").answer).toBe("transient");
  });

  it.each([
    ["files.getUploadURLExternal", "file_uploads_disabled", "file"],
    ["files.getUploadURLExternal", "file_upload_size_restricted", "file"],
    ["files.getUploadURLExternal", "file_type_not_allowed", "file"],
    ["files.getUploadURLExternal", "file_uploads_except_images_disabled", "file"],
    ["files.completeUploadExternal", "file_type_not_allowed", "file"],
    ["files.completeUploadExternal", "posting_to_channel_denied", "file"],
    ["files.completeUploadExternal", "not_in_channel", "refused"],
    ["files.completeUploadExternal", "file_not_found", "transient"],
    ["chat.update", "message_not_found", "gone"],
    ["chat.update", "is_inactive", "refused"],
    ["chat.postMessage", "channel_not_found", "refused"],
    ["chat.postMessage", "token_expired", "expired"],
    ["chat.postMessage", "token_revoked", "dead"],
    ["chat.postMessage", "internal_error", "transient"],
    ["chat.postMessage", "ratelimited", "transient"],
    ["chat.update", "invalid_blocks", "rejected"],
    ["files.info", "file_not_found", "gone"],
    ["functions.completeSuccess", "execution_not_in_running_state", "ended"],
    ["oauth.v2.access", "invalid_refresh_token", "dead"],
  ])("%s answering %s is %s", (method, code, answer) => {
    expect(answerOf(method, code)?.answer).toBe(answer);
  });

  it("says why, in a sentence for the person, for every refusal of a file", () => {
    for (const method of Object.keys(methods)) {
      for (const code of [...methods[method]!.errors, ...documented.common]) {
        const entry = answerOf(method, code);
        if (entry?.answer === "file" || entry?.answer === "refused") expect(entry.why).toMatch(/^[A-Z].*\.$/);
      }
    }
  });

  it("paces each method the adapter calls at the tier its page documents", () => {
    for (const [method, tier] of Object.entries(SLACK_LIMITS.methodTiers)) {
      expect([method, tier]).toEqual([method, methods[method]?.tier]);
    }
  });
});
