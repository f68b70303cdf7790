import { describe, expect, it } from "vitest";
import { sign } from "../fakes/slack/index.js";
import { type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * The bot checks Slack's signature itself, once, before Bolt (whose own check is off): what is
 * refused is what Bolt refused. Unsigned, forged, replayed (older than 5 minutes) and malformed
 * requests are answered 401 and run nothing; a body over 4 MB 413; Slack's unsigned certificate
 * check (`ssl_check=1`) is answered 200 and nothing else in its body is taken.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

const now = () => Math.floor(Date.now() / 1000);

/** A signed `/media help`'s answer arrives: every request before it was judged (one at a time). */
async function answersSinceSigned(before: number): Promise<string[]> {
  await world.answer("help");
  return world.ephemeralTexts().slice(before);
}

async function post(body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(world.eventsUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  });
  await response.text();
  return response.status;
}

const form = (text: string) =>
  new URLSearchParams({
    command: "/media",
    text,
    user_id: world.fake.users.requester.id,
    team_id: world.fake.teamId,
    channel_id: world.fake.channelId,
    trigger_id: "1.2.3",
    response_url: `${world.fake.apiUrl.replace(/\/api\/?$/, "")}/commands/T/1/x`,
  }).toString();

describe("Slack's signature, checked before Bolt", () => {
  it("refuses unsigned, forged and stale requests with 401 and runs none of them", async () => {
    const before = world.ephemeralTexts().length;
    const answers = await Promise.all([
      world.fake.slashCommand(world.eventsUrl, { text: "help" }, { signingSecret: null }),
      world.fake.slashCommand(world.eventsUrl, { text: "help" }, { signingSecret: "not-the-secret" }),
      world.fake.slashCommand(world.eventsUrl, { text: "help" }, { timestamp: now() - 6 * 60 }),
    ]);

    expect(answers.map((a) => [a.status, a.body])).toEqual([
      [401, ""],
      [401, ""],
      [401, ""],
    ]);
    expect(await answersSinceSigned(before)).toHaveLength(1);
  });

  it("refuses a malformed signature or timestamp, and a signature of another body, with 401", async () => {
    const before = world.ephemeralTexts().length;
    const body = form("help");
    const timestamp = now();
    const good = sign(world.fake.signingSecret, timestamp, body);
    const statuses = await Promise.all([
      // Signed for another timestamp than the one sent.
      post(body, { "x-slack-request-timestamp": String(timestamp + 1), "x-slack-signature": good }),
      post(body, { "x-slack-request-timestamp": "soon", "x-slack-signature": good }),
      post(body, {
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": good.replace("v0=", "v1="),
      }),
      post(body, { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": good.slice(0, -2) }),
      post(`${body}&x=1`, { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": good }),
    ]);

    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    expect(await answersSinceSigned(before)).toHaveLength(1);
  });

  it("answers Slack's unsigned ssl_check with 200 and takes nothing else from its body", async () => {
    const before = world.ephemeralTexts().length;
    const status = await post(`ssl_check=1&${form("help")}`, {});

    expect(status).toBe(200);
    expect(await answersSinceSigned(before)).toHaveLength(1);
  });

  it("refuses a body over 4 MB with 413", async () => {
    const body = `${form("help")}&pad=${"x".repeat(4 * 1024 * 1024)}`;
    const timestamp = now();
    const status = await post(body, {
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": sign(world.fake.signingSecret, timestamp, body),
    });

    expect(status).toBe(413);
  });
});
