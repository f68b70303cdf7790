import { DiscordAPIError } from "discord.js";
import { describe, expect, it } from "vitest";
import { MessageGoneError, UndeliverableError } from "../../src/core/errors.js";
import { refusalOf } from "../../src/discord/refusals.js";

/**
 * Which of Discord's answers end a delivery (the channel refuses the bot: retrying will not help)
 * or make the bot post anew (the message was deleted), and which stay errors worth retrying.
 */

const answer = (status: number, code: number, message: string) =>
  new DiscordAPIError({ message, code }, code, status, "PATCH", "/channels/1/messages/2", {});

describe("refusalOf", () => {
  it("turns Unknown Message into MessageGoneError, keeping Discord's error as its cause", () => {
    const deleted = answer(404, 10008, "Unknown Message");
    const gone = refusalOf(deleted);
    expect(gone).toBeInstanceOf(MessageGoneError);
    expect((gone as MessageGoneError).cause).toBe(deleted);
  });

  it.each([
    [404, 10003, "Unknown Channel", /no longer exists/],
    [403, 50001, "Missing Access", /cannot see this channel.*View Channel/],
    [403, 50013, "Missing Permissions", /may not post.*Send Messages/],
    [400, 50083, "Thread is archived", /archived.*Unarchive/],
  ])("turns %i / %i %s into UndeliverableError that says who can fix it", (status, code, message, says) => {
    const refused = refusalOf(answer(status, code, message));
    expect(refused).toBeInstanceOf(UndeliverableError);
    expect((refused as UndeliverableError).userMessage).toMatch(says);
    expect((refused as UndeliverableError).message).toBe(`Discord ${code}: ${message}`);
  });

  it.each([
    ["an invalid body", answer(400, 50035, "Invalid Form Body")],
    ["an expired interaction token", answer(401, 50027, "Invalid Webhook Token")],
    ["a server error", answer(500, 0, "500: Internal Server Error")],
    ["a network failure", new TypeError("fetch failed")],
  ])("leaves %s as it is, for the engine to retry", (_what, error) => {
    expect(refusalOf(error)).toBe(error);
  });
});
