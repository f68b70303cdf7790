import { once } from "node:events";
import { type Client, Events, Status } from "discord.js";
import type Keyv from "keyv";
import type { Bot } from "../core/bot.js";
import type { Logger } from "../core/log.js";
import { ackSeconds, timed } from "../core/metrics.js";
import { DiscordAdapter } from "./adapter.js";
import { createDiscordClient, type DiscordConfig } from "./client.js";
import { createInteractionHandler } from "./interactions.js";
import { PendingForms, type PendingFormsStore } from "./pending-forms.js";
import { registerIfChanged } from "./registration.js";
import { loginFailure } from "./startup.js";

export type { DiscordConfig } from "./client.js";

export interface DiscordOptions {
  config: DiscordConfig;
  bot: Pick<Bot, "attach" | "handleCommand" | "handleAction" | "handleAutocomplete" | "actionForm">;
  logger: Logger;
  /** A namespace of the bot's store (`stores.keyv("discord")`): what was registered, across restarts. */
  store: Keyv<unknown>;
  /** The bot's store, where forms wait for their submission, which may reach another replica. */
  stores: PendingFormsStore;
  /** Time for interaction token ages (tests move it forward); timers still wait in real time. */
  clock?: { now(): number };
}

export interface RunningDiscord {
  adapter: DiscordAdapter;
  client: Client<true>;
  /** Why Discord cannot be used right now (the gateway connection is down), or undefined when it can. */
  problem(): string | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the Discord side: logs in, attaches the adapter to the bot, and registers the slash
 * commands when their definitions changed. The caller starts the bot (which resumes unfinished
 * jobs) once every adapter is attached.
 */
export async function startDiscord(options: DiscordOptions): Promise<RunningDiscord> {
  const { config, bot, logger } = options;
  const client = createDiscordClient(config);
  const adapter = new DiscordAdapter({
    rest: client.rest,
    applicationId: () => client.application!.id,
    logger,
    ...(options.clock && { clock: options.clock }),
  });
  const handler = createInteractionHandler({
    bot,
    adapter,
    forms: new PendingForms(options.stores, options.clock),
    logger,
  });
  bot.attach(adapter);
  client.on(Events.InteractionCreate, (interaction) => {
    // handle() resolves once Discord has its first response (a defer, a modal, the choices).
    void timed(
      (s) => ackSeconds.observe({ platform: "discord" }, s),
      () => handler.handle(interaction),
    );
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, "Discord client error"));
  client.on(Events.Warn, (message) => logger.warn(message));

  const ready = once(client, Events.ClientReady);
  try {
    await client.login(config.token);
    await ready;
  } catch (error) {
    await client.destroy();
    throw loginFailure(error, config.restUrl);
  }
  const running = client as Client<true>;
  try {
    await registerIfChanged({
      rest: client.rest,
      applicationId: running.application.id,
      ...(config.guildId && { guildId: config.guildId }),
      store: options.store,
      logger,
    });
  } catch (error) {
    // The commands registered before still work; the next start tries again.
    logger.error({ err: error }, "Discord: could not register the slash commands");
  }
  logger.info({ user: running.user.tag, guilds: running.guilds.cache.size }, "Discord: connected");

  return {
    adapter,
    client: running,
    // The client stays "ready" while a shard reconnects; the shards' own status tells.
    problem: () =>
      client.isReady() && client.ws.shards.every((shard) => shard.status === Status.Ready)
        ? undefined
        : "Discord: the gateway connection is down",
    async stop() {
      // Commands already acknowledged get their answer before the connection closes.
      await handler.idle();
      await client.destroy();
    },
  };
}
