import type { KeyObject } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Client, Events, type Interaction } from "discord.js";
import { type APIInteraction, InteractionResponseType, InteractionType } from "discord-api-types/v10";
import { CodedError } from "../../common/coded-error.js";
import { boundedBytes } from "../../core/base/bounded.js";
import type { Logger } from "../../core/base/log.js";
import { ackSeconds } from "../../core/base/metrics.js";
import type { Route } from "../../http/index.js";
import type { FirstResponse, InBodyResponses } from "./in-body.js";
import { signatureProblem } from "./signature.js";

/** Where Discord posts interactions: the Interactions Endpoint URL ends in this path. */
export const INTERACTIONS_PATH = "/discord/interactions";

/** Far above any interaction (a click carries its message, embeds and all), far below a burden. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface InteractionsRouteOptions {
  client: Client;
  publicKey: KeyObject;
  /** The gateway's own handler: resolves once Discord has the interaction's first response. */
  answer(interaction: Interaction): Promise<void>;
  logger: Logger;
  /** For the signature's age. */
  clock: { now(): number };
  /** Where the handler's first callback is taken to become the HTTP answer's body. */
  inBody: InBodyResponses;
  /**
   * How long the request waits for the handler's first response before answering 202 and
   * leaving it to the callback endpoint; under Discord's 3 s. Default 2.5 s.
   */
  inBodyWithinMs?: number;
}

const IN_BODY_WITHIN_MS = 2_500;

/** A request body over MAX_BODY_BYTES: answered 413, never read to its end. */
class BodyTooLarge extends CodedError {
  readonly code = "discord.body_too_large";
}

/**
 * The Interaction object discord.js builds for a gateway INTERACTION_CREATE: its gateway handler
 * passes the packet's `d` to this same action, which emits the object synchronously. Going through
 * it gives the handlers the same classes, caches and reply methods over HTTP as over the gateway.
 */
function interactionOf(client: Client, data: APIInteraction): Interaction | undefined {
  let built: Interaction | undefined;
  const take = (interaction: Interaction) => {
    built = interaction;
  };
  // `actions` is private in discord.js's typings: read by name, typed as this module uses it.
  const actions: { InteractionCreate: { handle(d: unknown): void } } = Reflect.get(client, "actions");
  client.on(Events.InteractionCreate, take);
  try {
    actions.InteractionCreate.handle(data);
  } finally {
    client.off(Events.InteractionCreate, take);
  }
  return built;
}

/** Whether Discord got the first response (a defer, a modal, the choices) through the callback endpoint. */
function acknowledged(interaction: Interaction): boolean {
  if (interaction.isAutocomplete()) return interaction.responded;
  return "deferred" in interaction && (interaction.deferred || interaction.replied);
}

/** The first response as the 200's body: true once sent, false if the request ended before. */
function send(res: ServerResponse, response: FirstResponse): Promise<boolean> {
  if (res.writableEnded || res.destroyed) return Promise.resolve(false);
  const json = JSON.stringify(response);
  return new Promise<boolean>((resolve) => {
    const finished = () => {
      res.off("close", closed);
      resolve(true);
    };
    const closed = () => {
      res.off("finish", finished);
      resolve(false);
    };
    res.once("finish", finished);
    res.once("close", closed);
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(json),
    });
    res.end(json);
  });
}

function refuse(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain" }).end(`${text}\n`);
}

/**
 * POST /discord/interactions. Only requests Discord signed get in (401 otherwise, which Discord's
 * own periodic checks with bad signatures expect). A PING is answered PONG in the body; any other
 * interaction goes to the handler, as over the gateway, and its first response (a defer, a modal,
 * the choices, a message without files) is the body of the 200 that answers the request (see
 * in-body.ts). A first response that must go by callback (files, with_response), or that takes
 * longer than the bound, gets the 202 with no body that Discord asks for in that case.
 */
export function interactionsRoute(options: InteractionsRouteOptions): Route {
  const { client, publicKey, answer, logger, clock, inBody } = options;
  const withinMs = options.inBodyWithinMs ?? IN_BODY_WITHIN_MS;

  /**
   * The interaction's answer to Discord: its first response in the body if the handler gives one
   * in time, else a 202 (or a 500 if the handler gave none at all). Owns the intercept and the
   * timer: whichever ends first (a response, the bound, the handler, the client leaving) ends both.
   */
  async function exchange(interaction: Interaction, res: ServerResponse): Promise<void> {
    let open = true;
    const end = () => {
      open = false;
      stopWaiting();
      clearTimeout(timer);
      res.off("close", gone);
    };
    const take = (response: FirstResponse) => {
      end();
      return send(res, response);
    };
    const gone = () => {
      if (!open) return;
      end();
      // Discord gave up on the request before it had an answer: the person is shown that the
      // interaction failed, and a late first response is refused (10062).
      logger.warn({ interactionId: interaction.id }, "Discord stopped waiting for an interaction's answer");
    };
    const stopWaiting = inBody.expect(interaction.id, take);
    const timer = setTimeout(() => {
      if (!open) return;
      end();
      // The handler is slow: it answers by callback, and Discord learns so now.
      res.writeHead(202).end();
    }, withinMs);
    res.once("close", gone);
    try {
      await answer(interaction);
    } finally {
      if (open) {
        end();
        if (acknowledged(interaction)) res.writeHead(202).end();
        // Discord shows the user that the interaction failed; the handler logged why.
        else refuse(res, 500, "interaction not answered");
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    let body: Buffer;
    try {
      body = await boundedBytes(req, MAX_BODY_BYTES, () => new BodyTooLarge());
    } catch (error) {
      if (error instanceof BodyTooLarge) return refuse(res, 413, "payload too large");
      throw error;
    }
    const problem = await signatureProblem(
      publicKey,
      {
        signature: req.headers["x-signature-ed25519"] as string | undefined,
        timestamp: req.headers["x-signature-timestamp"] as string | undefined,
        body,
      },
      clock.now(),
    );
    if (problem) {
      logger.debug({ problem }, "Discord: refused an unsigned interaction request");
      return refuse(res, 401, "invalid request signature");
    }

    let data: APIInteraction;
    try {
      data = JSON.parse(body.toString("utf8"));
    } catch {
      return refuse(res, 400, "body is not JSON");
    }
    if (data.type === InteractionType.Ping) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: InteractionResponseType.Pong }));
      return;
    }

    const interaction = interactionOf(client, data);
    if (!interaction) return refuse(res, 400, "not an interaction this bot handles");
    res.once("finish", () =>
      ackSeconds.observe({ platform: "discord" }, (performance.now() - started) / 1000),
    );
    await exchange(interaction, res);
  }

  return { method: "POST", path: INTERACTIONS_PATH, handle };
}
