import { type ChatInputCommandInteraction, DiscordAPIError, type Interaction } from "discord.js";
import { Routes } from "discord-api-types/v10";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDiscordClient } from "../../src/discord/client.js";
import { startInteractionsEndpoint } from "../../src/discord/http/index.js";
import type { Inbound } from "../../src/discord/inbound.js";
import { type HttpServer, startHttpServer } from "../../src/http/index.js";
import { type FakeDiscord, type InjectedInteraction, startFakeDiscord } from "../fakes/discord/index.js";
import { capturingLogger } from "../store/backends.js";
import { silent } from "./harness.js";

/**
 * Which first responses go in the body of the 200 that answers Discord's POST, and which keep the
 * callback endpoint: the endpoint alone, with a real discord.js client against the fake Discord and
 * handlers written for each case (the bot's own handlers never reply with files, nor ask
 * with_response). The bound is short here (300 ms) so that a slow handler shows quickly.
 */

const BOUND_MS = 300;

let fake: FakeDiscord;
let http: HttpServer;
let inbound: Inbound;
let handler: (interaction: ChatInputCommandInteraction) => Promise<void>;
const handled: Promise<unknown>[] = [];
/** What the handlers threw: nothing, unless a test expects it. */
const failures: unknown[] = [];

beforeAll(async () => {
  fake = await startFakeDiscord();
  http = await startHttpServer({ port: 0, host: "127.0.0.1", logger: silent });
  const config = { token: fake.token, restUrl: fake.restUrl, publicKey: fake.publicKey };
  const client = createDiscordClient(config);
  inbound = await startInteractionsEndpoint({
    client,
    config,
    http,
    answer: (interaction: Interaction) => {
      const done = (interaction.isChatInputCommand() ? handler(interaction) : Promise.resolve()).catch(
        (error: unknown) => {
          failures.push(error);
        },
      );
      handled.push(done);
      return done;
    },
    logger: silent,
    clock: fake.clock,
    inBodyWithinMs: BOUND_MS,
  });
  await client.rest.put(Routes.applicationGuildCommands(fake.applicationId, fake.guild.id), {
    body: [{ name: "ping", description: "Answers pong" }],
  });
  await fake.setInteractionsEndpoint(inbound.url);
});

afterEach(async () => {
  await Promise.all(handled.splice(0));
  expect(failures.splice(0)).toEqual([]);
  fake.assertNoValidationErrors();
});

afterAll(async () => {
  inbound?.close();
  await http?.close();
  await fake?.close();
});

/** Sends /ping to the bot and resolves once the fake has judged the answer to its POST. */
async function ping(): Promise<InjectedInteraction> {
  const sent = await fake.sendCommand({ name: "ping" });
  await fake.waitFor(() => fake.interaction(sent.id)?.http);
  return sent;
}

/** The handlers' work, the first response and what follows it, all done. */
const handlersDone = () => Promise.all(handled);

const firstResponses = (sent: InjectedInteraction) => fake.callbacks(sent.id).map((c) => [c.type, c.via]);
const callbackRequests = (sent: InjectedInteraction) =>
  fake.calls.filter((c) => c.path.startsWith(`/interactions/${sent.id}/`));

describe("first responses over HTTP interactions", () => {
  it("puts an immediate message in the 200's body; editing it and following up work after", async () => {
    handler = async (i) => {
      await i.reply({ content: "pong" });
      await i.editReply({ content: "pong, edited" });
      await i.followUp({ content: "and more" });
    };
    const sent = await ping();
    expect(fake.interaction(sent.id)?.http?.status).toBe(200);
    expect(firstResponses(sent)).toEqual([[4, "body"]]);
    expect(callbackRequests(sent)).toEqual([]);
    await handlersDone();
    expect(fake.original(sent.id)?.content).toBe("pong, edited");
    expect(fake.messages().at(-1)?.content).toBe("and more");
  });

  it("puts a defer in the 200's body; the deferred reply is edited into the answer after", async () => {
    handler = async (i) => {
      await i.deferReply();
      await i.editReply({ content: "done" });
    };
    const sent = await ping();
    expect(fake.interaction(sent.id)?.http?.status).toBe(200);
    expect(firstResponses(sent)).toEqual([[5, "body"]]);
    await handlersDone();
    expect(fake.original(sent.id)?.content).toBe("done");
    expect(callbackRequests(sent)).toEqual([]);
  });

  it("sends a first message with files by callback (multipart), and answers the request 202", async () => {
    handler = async (i) => {
      await i.reply({ content: "a file", files: [{ attachment: Buffer.from("hello"), name: "hello.txt" }] });
    };
    const sent = await ping();
    expect(fake.interaction(sent.id)?.http?.status).toBe(202);
    expect(firstResponses(sent)).toEqual([[4, "callback"]]);
    expect(callbackRequests(sent)).toHaveLength(1);
    expect(fake.original(sent.id)?.attachments.map((a) => a.filename)).toEqual(["hello.txt"]);
  });

  it("sends a first response that asks with_response by callback, and gets Discord's answer", async () => {
    let message: string | undefined;
    handler = async (i) => {
      const response = await i.reply({ content: "pong", withResponse: true });
      message = response.resource?.message?.id;
    };
    const sent = await ping();
    expect(fake.interaction(sent.id)?.http?.status).toBe(202);
    expect(firstResponses(sent)).toEqual([[4, "callback"]]);
    expect(message).toBe(fake.original(sent.id)?.id);
  });

  it("answers 202 when the handler is slower than the bound, and its defer goes by callback", async () => {
    handler = async (i) => {
      // Past the bound: the request is answered (202) before the handler gives its first response.
      await fake.waitFor(() => fake.interaction(i.id)?.http, 5_000);
      await i.deferReply();
      await i.editReply({ content: "late but fine" });
    };
    const sent = await ping();
    const http = fake.interaction(sent.id)!.http!;
    expect(http.status).toBe(202);
    expect(http.at - fake.interaction(sent.id)!.createdAt).toBeLessThan(BOUND_MS + 150);
    await fake.waitFor(() => fake.callbacks(sent.id)[0]);
    expect(firstResponses(sent)).toEqual([[5, "callback"]]);
    await handlersDone();
    expect(fake.original(sent.id)?.content).toBe("late but fine");
  });

  it("answers 500 when the handler gives no first response: the interaction fails", async () => {
    handler = async () => undefined;
    const sent = await ping();
    expect(fake.interaction(sent.id)?.http?.status).toBe(500);
    expect(() => fake.assertNoValidationErrors()).toThrow(/answered 500/);
    fake.validationErrors.length = 0;
  });
});

describe("a request whose client is gone", () => {
  it("leaves nothing waiting: the late first response goes by callback, and is refused as Discord would", async () => {
    // The fake gives up on the request after 3 s; the handler answers only once the bot has seen
    // the connection close, which it logs (a response written while the close is on its way looks
    // sent: TCP cannot tell, which is why the bound is under Discord's 3 s).
    let refused: unknown;
    let gone: InjectedInteraction | undefined;
    const { logger, lines } = capturingLogger("warn");
    handler = async (i) => {
      await fake.waitFor(
        () =>
          lines.some(
            (l) =>
              l.msg === "Discord stopped waiting for an interaction's answer" && l.interactionId === i.id,
          ),
        5_000,
      );
      try {
        await i.deferReply();
      } catch (error) {
        refused = error;
      }
    };
    const slow = await startLongBound(logger);
    try {
      gone = await fake.sendCommand({ name: "ping" });
      await fake.waitFor(() => refused, 6_000);
    } finally {
      slow();
    }
    expect(fake.interaction(gone.id)?.http?.status).toBe(0);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect((refused as DiscordAPIError).code).toBe(10062);
    expect(callbackRequests(gone)).toHaveLength(1);
    expect(() => fake.assertNoValidationErrors()).toThrow(/no answer/);
    fake.validationErrors.length = 0;
  }, 15_000);
});

/**
 * Swaps the endpoint for one that waits longer than Discord does (so that only the client's
 * leaving ends the wait); the function returned puts the usual one back.
 */
async function startLongBound(logger: typeof silent): Promise<() => void> {
  inbound.close();
  const config = { token: fake.token, restUrl: fake.restUrl, publicKey: fake.publicKey };
  const client = createDiscordClient(config);
  const long = await startInteractionsEndpoint({
    client,
    config,
    http,
    answer: (interaction: Interaction) => {
      const done = (interaction.isChatInputCommand() ? handler(interaction) : Promise.resolve()).catch(
        (error: unknown) => {
          failures.push(error);
        },
      );
      handled.push(done);
      return done;
    },
    logger,
    clock: fake.clock,
    inBodyWithinMs: 60_000,
  });
  return () => long.close();
}
