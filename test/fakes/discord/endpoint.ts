import { generateKeyPairSync, sign } from "node:crypto";
import type { APIInteraction } from "discord-api-types/v10";
import type { Clock } from "./clock.js";
import { DiscordHttpError } from "./errors.js";
import type { ValidationError } from "./rest.js";
import { FIRST_RESPONSE_MS, respond } from "./routes/interactions.js";
import type { World } from "./state.js";
import type { Issue } from "./validate.js";

/**
 * Discord's side of HTTP interactions (an application's Interactions Endpoint URL): every
 * interaction is POSTed there, signed with the application's Ed25519 key, instead of being sent as
 * INTERACTION_CREATE on the gateway (the two are exclusive). Saving the URL succeeds only if the
 * endpoint answers a signed PING with PONG and refuses a request with a bad signature with 401, as
 * in the Developer Portal. The endpoint's answer is the first response (200 whose JSON body is an
 * interaction response, applied as a callback would be and recorded `via: "body"`), or 202 or 204
 * with no body: the bot answers by the callback endpoint, before or after, within the 3 s from the
 * interaction's creation. Anything else, no answer within 3 s, or a 202 with no callback by the
 * deadline is an interaction the user sees fail.
 */

export interface SignatureHeaders {
  "x-signature-ed25519": string;
  "x-signature-timestamp": string;
}

export interface EndpointDeps {
  world: World;
  clock: Clock;
  gatewayUrl: string;
  onValidationError(error: ValidationError): void;
}

/** The interaction response type that answers a PING. */
const PONG = 1;

export function createInteractionsEndpoint(deps: EndpointDeps) {
  const { world, clock } = deps;
  const keys = generateKeyPairSync("ed25519");
  // The raw 32-byte key, as the Developer Portal shows it: the tail of its SubjectPublicKeyInfo.
  const publicKey = keys.publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex");
  let url: string | undefined;
  const inFlight = new Set<Promise<void>>();

  function signatureHeaders(
    body: string,
    timestamp = String(Math.floor(clock.now() / 1000)),
  ): SignatureHeaders {
    const signature = sign(null, Buffer.from(timestamp + body), keys.privateKey).toString("hex");
    return { "x-signature-ed25519": signature, "x-signature-timestamp": timestamp };
  }

  async function post(target: string, body: string, headers: Record<string, string>) {
    const response = await fetch(target, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Discord-Interactions/1.0 (+https://discord.com)",
        ...headers,
      },
      body,
      signal: AbortSignal.timeout(FIRST_RESPONSE_MS),
    });
    return {
      status: response.status,
      type: response.headers.get("content-type") ?? "",
      text: await response.text(),
    };
  }

  function report(path: string, issues: Issue[], body: unknown) {
    deps.onValidationError({
      kind: "rule",
      method: "POST",
      path,
      route: "(interactions endpoint)",
      issues,
      body,
    });
  }

  /**
   * A 202 before any callback: the bot promised one. The interaction fails for the user if none
   * has come by the first response's deadline (3 s from its creation, on the fake's clock).
   */
  function awaitCallback(interactionId: string, where: string) {
    const record = world.interactions.get(interactionId)!;
    const left = Math.max(0, record.createdAt + FIRST_RESPONSE_MS - clock.now());
    const deadline = new Promise<void>((resolve) => {
      setTimeout(() => {
        if (record.stage === "new") {
          report(
            where,
            [
              {
                path: "",
                message: "answered 202 but no callback came in 3 s: the interaction fails for the user",
              },
            ],
            undefined,
          );
        }
        resolve();
      }, left + 50).unref();
    });
    const watched = deadline.finally(() => inFlight.delete(watched));
    inFlight.add(watched);
  }

  /** What Discord makes of the endpoint's answer to one interaction. */
  function judge(interactionId: string, answer: { status: number; type: string; text: string }) {
    const record = world.interactions.get(interactionId)!;
    const where = `interactions endpoint, interaction ${interactionId}`;
    if (answer.status === 202 || answer.status === 204) {
      if (answer.text)
        report(where, [{ path: "", message: `a ${answer.status} answer must have no body` }], answer.text);
      if (record.stage === "new") awaitCallback(record.id, where);
      return;
    }
    if (answer.status !== 200 || !answer.type.startsWith("application/json")) {
      report(
        where,
        [{ path: "", message: `answered ${answer.status}: the interaction fails for the user` }],
        answer.text,
      );
      return;
    }
    // An inline first response: Discord applies it as it would a callback request.
    try {
      respond(
        {
          world,
          clock,
          gatewayUrl: deps.gatewayUrl,
          params: { interaction_id: record.id, interaction_token: record.token },
          query: new URLSearchParams(),
          body: JSON.parse(answer.text),
          files: [],
        },
        "body",
      );
    } catch (error) {
      if (!(error instanceof DiscordHttpError)) throw error;
      report(where, error.rejection?.issues ?? [{ path: "", message: error.message }], answer.text);
    }
  }

  return {
    publicKey,
    signatureHeaders,
    get url() {
      return url;
    },

    /** What saving the URL in the Developer Portal does: the URL is kept only if both checks pass. */
    async set(target: string | undefined): Promise<void> {
      if (target === undefined) {
        url = undefined;
        return;
      }
      const ping = JSON.stringify({
        id: world.ids.snowflake(),
        application_id: world.applicationId,
        type: 1,
        token: world.ids.interactionToken("ping"),
        version: 1,
        user: world.botUser,
      });
      const pong = await post(target, ping, { ...signatureHeaders(ping) });
      if (
        pong.status !== 200 ||
        !pong.type.startsWith("application/json") ||
        JSON.parse(pong.text).type !== PONG
      ) {
        throw new Error(
          `fake Discord: ${target} did not answer PING with PONG (${pong.status} ${pong.text})`,
        );
      }
      const forged = await post(target, ping, { ...signatureHeaders(`${ping} `) });
      if (forged.status !== 401) {
        throw new Error(`fake Discord: ${target} answered a bad signature with ${forged.status}, not 401`);
      }
      url = target;
    },

    /** Sends one interaction to the endpoint; resolves at once, the answer is judged when it comes. */
    deliver(payload: APIInteraction): void {
      const target = url!;
      const body = JSON.stringify(payload);
      const record = world.interactions.get(payload.id)!;
      const sent = post(target, body, { ...signatureHeaders(body) })
        .then(
          (answer) => {
            record.http = { status: answer.status, at: clock.now() };
            judge(payload.id, answer);
          },
          (error: unknown) => {
            record.http = { status: 0, at: clock.now() };
            report(
              `interactions endpoint, interaction ${payload.id}`,
              [{ path: "", message: `no answer: ${String(error)}` }],
              undefined,
            );
          },
        )
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    },

    /** Resolves once every interaction sent has its answer (or its timeout). */
    async settled(): Promise<void> {
      await Promise.all([...inFlight]);
    },
  };
}

export type InteractionsEndpoint = ReturnType<typeof createInteractionsEndpoint>;
