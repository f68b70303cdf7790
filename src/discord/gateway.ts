import { once } from "node:events";
import { type Client, Events, type Interaction, Status } from "discord.js";
import type { Logger } from "../core/base/log.js";
import { ackSeconds, timed } from "../core/base/metrics.js";
import type { Intake } from "../core/intake/intake.js";
import type { DiscordConfig } from "./client.js";
import type { Inbound } from "./inbound.js";
import { loginFailure } from "./startup.js";

export interface GatewayOptions {
  client: Client;
  config: DiscordConfig;
  answer(interaction: Interaction): Promise<void>;
  logger: Logger;
  /**
   * The bot's intake of requests: an interaction from the gateway is one too, so that the work
   * behind the first responses waits while a burst of them arrives, as it does for HTTP requests.
   */
  intake?: Intake;
}

/** Logs in to the gateway (the shards DISCORD_SHARDS names) and answers the interactions it sends. */
export async function connectGateway(options: GatewayOptions): Promise<Inbound> {
  const { client, config, answer, logger, intake } = options;
  client.on(Events.InteractionCreate, (interaction) => {
    intake?.arrived();
    // answer() resolves once Discord has the first response (a defer, a modal, the choices).
    void timed(
      (s) => ackSeconds.observe({ platform: "discord" }, s),
      () => answer(interaction),
    );
  });
  const ready = once(client, Events.ClientReady);
  try {
    await client.login(config.token);
    await ready;
  } catch (error) {
    // Nobody waits for READY any more: an 'error' the client emits later must not reject unheard.
    ready.catch(() => undefined);
    await client.destroy();
    throw loginFailure(error, config.restUrl);
  }
  logger.info(
    {
      user: client.user?.tag,
      guilds: client.guilds.cache.size,
      shards: [...client.ws.shards.keys()],
      shardCount: client.options.shardCount,
    },
    "Discord: connected",
  );
  return {
    // The client stays "ready" while a shard reconnects; the shards' own status tells.
    problem: () =>
      client.isReady() && client.ws.shards.every((shard) => shard.status === Status.Ready)
        ? undefined
        : "Discord: the gateway connection is down",
    // Interactions keep arriving until client.destroy(), once the handler is idle: as before stop.
    close() {},
  };
}
