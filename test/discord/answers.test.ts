import { DiscordAPIError, HTTPError, RESTJSONErrorCodes } from "discord.js";
import { describe, expect, it } from "vitest";
import { FileRefusedError, MessageGoneError, UndeliverableError } from "../../src/core/base/errors.js";
import { ANSWERS, answerOf, chatErrorOf, type Verdict } from "../../src/discord/answers.js";

/**
 * The one classification of Discord's answers: every JSON code Discord documents (the list
 * discord-api-types mirrors from https://discord.com/developers/docs/topics/opcodes-and-status-codes#json)
 * is sorted, the same on every route the bot calls; answers without a code by their status.
 */

/** Every route the bot calls, as discord.js names it in its errors. */
const ROUTES = [
  ["POST", "/interactions/1/tok/callback"],
  ["POST", "/webhooks/1/tok"],
  ["PATCH", "/webhooks/1/tok/messages/@original"],
  ["PATCH", "/webhooks/1/tok/messages/2"],
  ["DELETE", "/webhooks/1/tok/messages/@original"],
  ["POST", "/channels/3/messages"],
  ["PATCH", "/channels/3/messages/2"],
  ["POST", "/users/@me/channels"],
] as const;

const DOCUMENTED = [
  ...new Set(Object.values(RESTJSONErrorCodes).filter((v): v is number => typeof v === "number")),
];

const answer = (code: number, status: number, [method, url]: readonly [string, string]) =>
  new DiscordAPIError({ message: `code ${code}`, code }, code, status, method, url, {});

describe("every documented JSON code", () => {
  it("is sorted explicitly, once (code 0 goes by its HTTP status)", () => {
    expect(DOCUMENTED.length).toBeGreaterThan(200);
    const missing = DOCUMENTED.filter((code) => code !== 0 && !ANSWERS.has(code));
    expect(missing).toEqual([]);
    // Nothing made up: every code of the table is one Discord documents.
    expect([...ANSWERS.keys()].filter((code) => !DOCUMENTED.includes(code))).toEqual([]);
  });

  it.each(ROUTES)("means the same on %s %s, and a refusal says why", (method, url) => {
    for (const code of DOCUMENTED.filter((c) => c !== 0)) {
      const sorted = answerOf(answer(code, 400, [method, url]));
      expect(sorted).toBe(ANSWERS.get(code));
      if (sorted.verdict === "conversation" || sorted.verdict === "file") {
        expect(sorted.reason, `code ${code}`).toMatch(/^[A-Z].+\.$/);
      }
    }
  });

  it.each<[number, Verdict, RegExp?]>([
    [40005, "file", /larger than it takes from the bot here/],
    [400001, "file", /limited file uploads in this server/],
    [50001, "conversation", /cannot see this channel.*View Channel/],
    [50013, "conversation", /may not post.*Send Messages/],
    [10003, "conversation", /no longer exists/],
    [50007, "conversation", /refused a direct message from the bot to you/],
    [50083, "conversation", /archived.*Unarchive/],
    [40094, "conversation", /no more messages through this command/],
    [200000, "conversation", /blocked/],
    [50035, "conversation", /fault of the bot/],
    [10008, "gone"],
    [50027, "credential"],
    [10015, "credential"],
    [10062, "credential"],
    [40001, "credential"],
    [20028, "transient"],
    [30046, "transient"],
    [130000, "transient"],
  ])("sorts %i as %s", (code, verdict, says) => {
    const sorted = ANSWERS.get(code)!;
    expect(sorted.verdict).toBe(verdict);
    if (says) expect(sorted.reason).toMatch(says);
  });
});

describe("answers without a documented code", () => {
  it.each<[string, unknown, Verdict]>([
    ["a 5xx (code 0)", answer(0, 502, ROUTES[5]), "transient"],
    [
      "a 5xx past discord.js's retries",
      new HTTPError(500, "Internal Server Error", "POST", "/channels/3/messages", {}),
      "transient",
    ],
    [
      "a 413 from a proxy",
      new HTTPError(413, "Payload Too Large", "POST", "/channels/3/messages", {}),
      "file",
    ],
    ["a 401 (code 0)", answer(0, 401, ROUTES[6]), "credential"],
    ["a 403 (code 0)", answer(0, 403, ROUTES[5]), "conversation"],
    ["a 400 (code 0, a malformed body)", answer(0, 400, ROUTES[5]), "conversation"],
    ["a 429 discord.js let through", answer(0, 429, ROUTES[5]), "transient"],
    ["a code Discord added since", answer(999_999, 400, ROUTES[5]), "conversation"],
    ["a network failure", new TypeError("fetch failed"), "transient"],
  ])("sorts %s", (_what, error, verdict) => {
    expect(answerOf(error).verdict).toBe(verdict);
  });
});

describe("chatErrorOf", () => {
  it("gives the core its errors, Discord's answer kept as the cause and the log line", () => {
    const refused = answer(50001, 403, ROUTES[6]);
    const conversation = chatErrorOf(refused);
    expect(conversation).toBeInstanceOf(UndeliverableError);
    expect((conversation as UndeliverableError).cause).toBe(refused);
    expect((conversation as UndeliverableError).message).toBe("Discord 403 50001: code 50001");

    expect(chatErrorOf(answer(40005, 413, ROUTES[6]))).toBeInstanceOf(FileRefusedError);
    expect(chatErrorOf(answer(10008, 404, ROUTES[6]))).toBeInstanceOf(MessageGoneError);
  });

  it("leaves passing trouble and dead credentials as they are, for a retry", () => {
    for (const error of [
      answer(20028, 400, ROUTES[5]),
      answer(40001, 401, ROUTES[5]),
      new TypeError("fetch failed"),
    ]) {
      expect(chatErrorOf(error)).toBe(error);
    }
  });
});
