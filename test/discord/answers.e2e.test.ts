import { once } from "node:events";
import { Readable } from "node:stream";
import { type ChatInputCommandInteraction, type Client, Events } from "discord.js";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { card } from "../../src/core/base/cards.js";
import { FileRefusedError, MessageGoneError, UndeliverableError } from "../../src/core/base/errors.js";
import type { ConversationRef, Message } from "../../src/core/base/ports.js";
import { DiscordAdapter } from "../../src/discord/adapter.js";
import { ANSWERS } from "../../src/discord/answers.js";
import { loginClient } from "../fakes/discord/client.js";
import { type FakeDiscord, startFakeDiscord } from "../fakes/discord/index.js";

/**
 * Every answer the table calls a refusal for good, given by the fake Discord on every route the
 * adapter calls, through the real discord.js client: each reaches the core as its error (the
 * place, the file, a deleted message), after exactly one request. Nothing sends it again: not
 * discord.js (it retries only 5xx and rate limits), not the adapter.
 */

let fake: FakeDiscord;
let client: Client<true>;
let adapter: DiscordAdapter;

beforeAll(async () => {
  fake = await startFakeDiscord();
  // discord.js paces itself at Discord's 50 requests a second; this test sends some 1,500 refused
  // ones, which the fake does not count against the bot.
  client = await loginClient(fake, { rest: { globalRequestsPerSecond: 5_000 } });
  await client.application.commands.set([{ name: "usage", description: "Credits" }], fake.guild.id);
  adapter = new DiscordAdapter({
    rest: client.rest,
    applicationId: () => client.application.id,
    clock: fake.clock,
    logger: pino({ level: "silent" }),
  });
});

afterAll(async () => {
  await client.destroy();
  await fake.close();
});

/** A command the bot deferred, as the adapter's conversation. */
async function deferred(): Promise<ConversationRef> {
  const arrived = once(client, Events.InteractionCreate) as Promise<[ChatInputCommandInteraction]>;
  await fake.sendCommand({ name: "usage" });
  const [interaction] = await arrived;
  await interaction.deferReply();
  return adapter.conversation(interaction, "public");
}

const withFile = (): Message =>
  card("Result", "success", {
    media: [
      {
        kind: "image",
        name: "fox",
        file: {
          name: "fox.png",
          contentType: "image/png",
          size: 8,
          open: async () => Readable.from([Buffer.alloc(8)]),
        },
      },
    ],
  });

interface Route {
  route: string;
  method: string;
  path: RegExp;
  /** A deferred reply of its own for each answer: one refused as gone is no placeholder any more. */
  fresh?: true;
  send(fresh: ConversationRef): Promise<unknown>;
}

/** Each route the adapter calls, with a call that goes there and the path Discord sees. */
async function routes(): Promise<Route[]> {
  const used = await deferred();
  const posted = await adapter.post(used, card("First", "info"));
  const channel: ConversationRef = {
    platform: "discord",
    channelId: fake.channel.id,
    data: { guild: fake.guild.id },
  };
  const own = await adapter.post(channel, card("Own", "info"), { idempotencyKey: "answers:own" });
  const privately: ConversationRef = {
    ...channel,
    privateFrom: fake.channel.id,
    data: { ...channel.data, user: fake.users.requester.id },
  };
  const app = fake.applicationId;
  return [
    {
      route: "PATCH /webhooks/{app}/{token}/messages/@original",
      path: new RegExp(`^/webhooks/${app}/[^/]+/messages/@original$`),
      method: "PATCH",
      fresh: true,
      send: (fresh) => adapter.post(fresh, withFile()),
    },
    {
      route: "DELETE /webhooks/{app}/{token}/messages/@original",
      path: new RegExp(`^/webhooks/${app}/[^/]+/messages/@original$`),
      method: "DELETE",
      fresh: true,
      send: (fresh) => adapter.post(fresh, withFile(), { ephemeral: true }),
    },
    {
      route: "POST /webhooks/{app}/{token}",
      path: new RegExp(`^/webhooks/${app}/[^/]+$`),
      method: "POST",
      send: () => adapter.post(used, withFile()),
    },
    {
      route: "PATCH /webhooks/{app}/{token}/messages/{id}",
      path: new RegExp(`^/webhooks/${app}/[^/]+/messages/${posted.messageId}$`),
      method: "PATCH",
      send: () => adapter.edit(posted, withFile()),
    },
    {
      route: "POST /channels/{id}/messages",
      path: new RegExp(`^/channels/${fake.channel.id}/messages$`),
      method: "POST",
      send: () => adapter.post(channel, withFile(), { idempotencyKey: "answers:post" }),
    },
    {
      route: "PATCH /channels/{id}/messages/{id}",
      path: new RegExp(`^/channels/${fake.channel.id}/messages/${own.messageId}$`),
      method: "PATCH",
      send: () => adapter.edit(own, withFile()),
    },
    {
      route: "POST /users/@me/channels",
      path: /^\/users\/@me\/channels$/,
      method: "POST",
      send: () => adapter.post(privately, card("Yours", "success"), { idempotencyKey: "answers:dm" }),
    },
  ];
}

/** A status Discord could pair with the code; the code decides, discord.js retries none of these. */
const statusOf = (code: number) =>
  code === 40005
    ? 413
    : code >= 10001 && code < 20000
      ? 404
      : [50001, 50013, 50007, 20009].includes(code)
        ? 403
        : 400;

const EXPECTED = {
  conversation: UndeliverableError,
  file: FileRefusedError,
  gone: MessageGoneError,
} as const;
const permanent = [...ANSWERS].filter(([, a]) => a.verdict in EXPECTED);

describe("every refusal for good, on every route the adapter calls", () => {
  it("reaches the core as its error after one request, never sent again", async () => {
    expect(permanent.length).toBeGreaterThan(200);
    const repeated: string[] = [];
    const wrong: string[] = [];
    for (const { route, path, method, fresh, send } of await routes()) {
      for (const [code, { verdict }] of permanent) {
        const conversation = fresh ? await deferred() : ({} as ConversationRef);
        fake.fail({ method, path, status: statusOf(code), code, message: `code ${code}` });
        const from = fake.calls.length;
        const error = await send(conversation).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (!(error instanceof EXPECTED[verdict as keyof typeof EXPECTED]))
          wrong.push(`${route} ${code}: ${String(error)}`);
        const tries = fake.calls.slice(from).filter((c) => c.method === method && path.test(c.path));
        if (tries.length !== 1) repeated.push(`${route} ${code}: ${tries.length} requests`);
      }
    }
    expect(wrong).toEqual([]);
    expect(repeated).toEqual([]);
  });
});
