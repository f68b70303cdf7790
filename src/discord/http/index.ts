import { type Client, ClientApplication, ClientUser, type Interaction } from "discord.js";
import { type APIApplication, Routes } from "discord-api-types/v10";
import type { Logger } from "../../core/base/log.js";
import { StartupError } from "../../core/config/startup.js";
import type { HttpServer } from "../../http/index.js";
import type { DiscordConfig } from "../client.js";
import type { Inbound } from "../inbound.js";
import { loginFailure } from "../startup.js";
import { INTERACTIONS_PATH, interactionsRoute } from "./endpoint.js";
import { installInBodyResponses } from "./in-body.js";
import { interactionsPublicKey } from "./signature.js";

export { INTERACTIONS_PATH } from "./endpoint.js";

export interface InteractionsEndpointOptions {
  client: Client;
  config: DiscordConfig & { publicKey: string };
  http: HttpServer;
  answer(interaction: Interaction): Promise<void>;
  logger: Logger;
  clock: { now(): number };
  /** How long a request waits for the first response to put in its body (endpoint.ts). */
  inBodyWithinMs?: number;
}

/**
 * Discord over HTTP interactions: no gateway connection, so replicas share nothing but the store
 * and any load balancer can spread the requests. discord.js still does REST (replies, uploads,
 * command registration) with the bot token, and builds the interactions (see endpoint.ts); its
 * first responses go back in the HTTP answers instead of by callback (in-body.ts).
 */
export async function startInteractionsEndpoint(options: InteractionsEndpointOptions): Promise<Inbound> {
  const { client, config, logger } = options;
  // What login() would do before it opens the gateway.
  client.token = config.token;
  client.rest.setToken(config.token);
  let application: APIApplication;
  try {
    application = (await client.rest.get(Routes.currentApplication())) as APIApplication;
  } catch (error) {
    throw loginFailure(error, config.restUrl);
  }
  if (application.verify_key.toLowerCase() !== config.publicKey) {
    throw new StartupError(
      `DISCORD_PUBLIC_KEY is not the Public Key of the application DISCORD_TOKEN belongs to (${application.name}): copy it from the Developer Portal, General Information.`,
    );
  }
  // READY sets these over the gateway; interactions read them (entitlements, the bot's own
  // messages), as does the adapter (the application id). discord.js's typings make these
  // constructors private: they are called as its READY handler calls them, by reflection.
  client.application = Reflect.construct(ClientApplication, [client, application]);
  if (application.bot) {
    const user: ClientUser = Reflect.construct(ClientUser, [client, application.bot]);
    client.user = user;
    client.users.cache.set(user.id, user);
  }

  const inBody = installInBodyResponses(client.rest);
  const unmount = options.http.mount(
    interactionsRoute({
      client,
      publicKey: interactionsPublicKey(config.publicKey),
      answer: options.answer,
      logger,
      clock: options.clock,
      inBody,
      ...(options.inBodyWithinMs !== undefined && { inBodyWithinMs: options.inBodyWithinMs }),
    }),
  );
  logger.info(
    { application: application.name, user: client.user?.tag, port: options.http.port },
    `Discord: receiving interactions on POST ${INTERACTIONS_PATH} (no gateway connection)`,
  );
  return {
    url: `${options.http.url}${INTERACTIONS_PATH}`,
    // Nothing stays connected: each request stands alone.
    problem: () => undefined,
    close: () => {
      unmount();
      inBody.uninstall();
    },
  };
}
