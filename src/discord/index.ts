import { type Client, Events, type Interaction } from "discord.js";
import type Keyv from "keyv";
import type { Logger } from "../core/base/log.js";
import type { Bot } from "../core/bot.js";
import type { HttpServer } from "../http/index.js";
import { DiscordAdapter } from "./adapter.js";
import { createDiscordClient, type DiscordConfig } from "./client.js";
import { connectGateway } from "./gateway.js";
import { startInteractionsEndpoint } from "./http/index.js";
import type { Inbound } from "./inbound.js";
import { createInteractionHandler } from "./listeners/index.js";
import { DiscordNames } from "./names.js";
import { PendingForms, type PendingFormsStore } from "./pending-forms.js";
import { registerIfChanged } from "./registration.js";

export type { DiscordConfig } from "./client.js";

export interface DiscordOptions {
  config: DiscordConfig;
  bot: Pick<
    Bot,
    "attach" | "handleCommand" | "handleAction" | "handleAutocomplete" | "actionForm" | "formLocale"
  >;
  logger: Logger;
  /** A namespace of the bot's store (`stores.keyv("discord")`): what was registered, across restarts. */
  store: Keyv<unknown>;
  /** The bot's store, where forms wait for their submission, which may reach another replica. */
  stores: PendingFormsStore;
  /** The bot's HTTP server; POST /discord/interactions is mounted on it when DISCORD_PUBLIC_KEY is set. */
  http?: HttpServer;
  /** Time for interaction token ages (tests move it forward); timers still wait in real time. */
  clock?: { now(): number };
}

export interface RunningDiscord {
  adapter: DiscordAdapter;
  client: Client;
  /** HTTP interactions: where Discord's Interactions Endpoint URL must lead (on loopback). */
  interactionsUrl?: string;
  /** Why Discord cannot be used right now (the gateway connection is down), or undefined when it can. */
  problem(): string | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the Discord side: logs in (the gateway, or REST alone when interactions come over HTTP),
 * attaches the adapter to the bot, and registers the slash commands when their definitions
 * changed. The caller starts the bot (which resumes unfinished jobs) once every adapter is attached.
 */
export async function startDiscord(options: DiscordOptions): Promise<RunningDiscord> {
  const { config, bot, logger } = options;
  const client = createDiscordClient(config);
  const names = new DiscordNames(client.rest);
  const adapter = new DiscordAdapter({
    rest: client.rest,
    applicationId: () => client.application!.id,
    boostTier: (guildId) => client.guilds.cache.get(guildId)?.premiumTier,
    logger,
    directory: {
      names: (guildId, refs) => names.names(guildId, refs),
      rolesOf: (guildId, userId) => names.rolesOf(guildId, userId),
    },
    ...(options.clock && { clock: options.clock }),
  });
  const handler = createInteractionHandler({
    bot,
    adapter,
    forms: new PendingForms(options.stores, options.clock),
    logger,
    ...(options.http && { intake: options.http.intake }),
  });
  bot.attach(adapter);
  client.on(Events.Error, (error) => logger.error({ err: error }, "Discord client error"));
  client.on(Events.Warn, (message) => logger.warn(message));

  const answer = (interaction: Interaction) => handler.handle(interaction);
  const { publicKey } = config;
  let inbound: Inbound;
  if (publicKey) {
    if (!options.http) throw new Error("Discord over HTTP interactions needs the bot's HTTP server");
    inbound = await startInteractionsEndpoint({
      client,
      config: { ...config, publicKey },
      http: options.http,
      answer,
      logger,
      clock: options.clock ?? Date,
    }).catch(async (error: unknown) => {
      await client.destroy();
      throw error;
    });
  } else {
    inbound = await connectGateway({
      client,
      config,
      answer,
      logger,
      ...(options.http && { intake: options.http.intake }),
    });
  }
  try {
    await registerIfChanged({
      rest: client.rest,
      applicationId: client.application!.id,
      ...(config.guildId && { guildId: config.guildId }),
      store: options.store,
      logger,
    });
  } catch (error) {
    // The commands registered before still work; the next start tries again.
    logger.error({ err: error }, "Discord: could not register the slash commands");
  }

  return {
    adapter,
    client,
    ...(inbound.url && { interactionsUrl: inbound.url }),
    problem: inbound.problem,
    async stop() {
      inbound.close();
      // Commands already acknowledged get their answer before the connection closes.
      await handler.idle();
      await client.destroy();
    },
  };
}
