/**
 * How the acknowledgement benchmarks send a burst and time its answers, shared by bench/slack-ack,
 * bench/discord-ack and bench/spend.
 */
import { DISCORD_LIMITS } from "../src/discord/limits.js";
import type { FakeDiscord, InjectedInteraction } from "../test/fakes/discord/index.js";
import { sign } from "../test/fakes/slack/index.js";
import { BURST, type Round, roundFigures } from "./ack.js";

/**
 * Sends a burst and times each answer, on a thread of its own: this process also runs the fake
 * Slack and the emulator, which the bot keeps busy right after its acks, and their work must not
 * delay reading the acks. Plain node:http, so the figures are the bot's and not a heavy client's.
 */
export const HTTP_BURST_SENDER = `
const { parentPort } = require("node:worker_threads");
const http = require("node:http");
// A new connection per request, as Slack's deliveries come: no idle keep-alive socket that the
// server closes between rounds just as it is reused.
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const now = () => performance.timeOrigin + performance.now();
function send(url, { id, body, headers }) {
  return new Promise((resolve) => {
    const sent = now();
    const done = (ok) => resolve({ id, sent, acked: now(), ok });
    const req = http.request(url, { method: "POST", agent, headers: { ...headers, "x-bench-id": id, "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode === 200));
    });
    req.on("error", () => done(false));
    req.end(body);
  });
}
parentPort.on("message", ({ url, requests }) => {
  Promise.all(requests.map((r) => send(url, r))).then((timed) => parentPort.postMessage(timed));
});
`;

/** Discord's acks, from the dispatch to the defer, both on the fake's clock. */
export async function timedBurst(
  fake: FakeDiscord,
  injected: Promise<InjectedInteraction>[],
): Promise<Round> {
  const sent = await Promise.all(injected);
  const deferredAt = (i: InjectedInteraction) => fake.callbacks(i.id)[0]?.at;
  await fake
    .waitFor(() => sent.every((i) => deferredAt(i) !== undefined), DISCORD_LIMITS.firstResponseMs + 500)
    .catch(() => undefined);
  const timed = sent.flatMap((i) => {
    const at = deferredAt(i);
    return at === undefined ? [] : [{ id: i.id, sent: fake.interaction(i.id)!.createdAt, acked: at }];
  });
  return roundFigures(timed, BURST - timed.length);
}

/**
 * Slack's rate-limit minute in this run, shortened as much as the emulator's clock (timeScale
 * 0.01): the fake Slack holds each method to its tier per this minute, and the bot paces to it.
 * With Slack's real minute the work behind a burst (200 users.info at tier 4) would take minutes,
 * and a round would start while the last one's is still paced out.
 */
export const SLACK_MINUTE_MS = 600;

/** A request signed as Slack signs it, with the bench id the sender times it by. */
export function signedSlackRequest(signingSecret: string, id: string, body: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    id,
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": sign(signingSecret, timestamp, body),
    },
  };
}

/** 200 `/image generate` commands at once, each from a person of its own, timed to their defers. */
/**
 * Registers in a floor's fake Discord the commands the bot registered in its own, once it has:
 * a fake Discord builds interactions only for registered commands, as Discord's client does.
 */
export async function copyCommands(from: FakeDiscord, to: FakeDiscord): Promise<void> {
  await from.waitFor(() => from.commands().length + from.commands(from.guild.id).length > 0, 30_000);
  const scopes: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    [from.guild.id, to.guild.id],
  ];
  for (const [source, target] of scopes) {
    const commands = from
      .commands(source)
      .map(({ id: _id, application_id: _app, version: _version, guild_id: _guild, ...command }) => command);
    if (commands.length === 0) continue;
    const path = `${to.restUrl}/v10/applications/${to.applicationId}${target ? `/guilds/${target}` : ""}/commands`;
    const response = await fetch(path, {
      method: "PUT",
      headers: { authorization: `Bot ${to.token}`, "content-type": "application/json" },
      body: JSON.stringify(commands),
    });
    if (!response.ok) throw new Error(`the floor's commands: ${response.status} ${await response.text()}`);
  }
}

export function discordCommandBurst(fake: FakeDiscord, round: number, people: string): Promise<Round> {
  const users = Array.from({ length: BURST }, (_, i) => fake.addUser(`${people}${round + 1}x${i}`));
  return timedBurst(
    fake,
    users.map((user, i) =>
      fake.sendCommand({
        name: "image",
        subcommand: "generate",
        options: { prompt: `a red fox number ${round}-${i}`, seed: i },
        user,
      }),
    ),
  );
}
