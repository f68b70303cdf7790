import { randomUUID } from "node:crypto";
import { App, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import type { WebClientOptions } from "@slack/web-api";
import type Keyv from "keyv";
import type { Logger } from "../core/base/log.js";
import type { Config } from "../core/config/config.js";
import { FairQueue, laneOf } from "../core/intake/fair-queue.js";
import type { Intake } from "../core/intake/intake.js";
import type { Claims, InstallationStore } from "../store/index.js";
import { Actors } from "./actors.js";
import { SlackAdapter } from "./adapter.js";
import type { PacingPolicy } from "./calls.js";
import { SlackInstallations } from "./installations.js";
import { Ledger } from "./ledger.js";
import { type Listening, registerListeners } from "./listeners/index.js";
import { boltLogger } from "./log.js";
import { SlackNames } from "./names.js";
import { oauthReceiverOptions } from "./oauth.js";
import { Recent } from "./recent.js";
import { InstalledWorkspaces, singleWorkspace } from "./workspaces.js";

/**
 * Bolt wired to the core: the receiver, the adapter, and the listeners (listeners/), each of which
 * reads its gesture once (gesture.ts) and hands a core event to the bot.
 */

export { SLASH_COMMAND } from "./listeners/index.js";

/**
 * How many commands and clicks the core works on at once, one per person at most (FairQueue).
 * Acks never wait for this queue; the work behind them does, so a burst (a whole team at once)
 * cannot flood the store and the event loop with hundreds of concurrent flows and delay the acks
 * of the requests still arriving.
 */
const CONCURRENT_WORK = 16;

export type SlackConfig = NonNullable<Config["slack"]>;

export interface SlackAppOptions {
  config: SlackConfig;
  bot: Listening["bot"];
  logger: Logger;
  /** A namespace of the bot's store (`stores.keyv("slack")`): what was posted, across restarts. */
  store: Keyv<unknown>;
  /** How long finished jobs are kept, and with them the record of what was posted (default 30 days). */
  keepMs?: number;
  /** The store's claims, shared by every replica: which of them takes a gesture Slack sent twice. */
  claims: Claims;
  /** Merged into the WebClient's options (tests turn retries off). */
  clientOptions?: WebClientOptions;
  /** The bot's store of installations (`stores.installations`): required with `config.oauth`. */
  installations?: InstallationStore;
  /** HTTP mode: the server's requests; the work behind the acks waits while a burst of them arrives. */
  intake?: Intake;
  /** The pacing of Web API calls (calls.ts); tests compress its minute with the fake Slack's. */
  pacing?: Partial<PacingPolicy>;
}

/** The events path of the manifest's four URLs. */
export const EVENTS_PATH = "/slack/events";

/**
 * The receiver is made here and handed to App so that Bolt never listens itself: in HTTP mode
 * its request listener is mounted on the bot's one server (src/http), for the install pages too
 * with OAuth (oauth.ts); in Socket Mode its client tells whether the websocket is up.
 */
function createApp({ config, logger, clientOptions, installations, claims }: SlackAppOptions) {
  const boltLog = boltLogger(logger);
  // The WebClient neither waits out a 429 nor retries: its own pause held every call of the
  // workspace, and its retries ran for half an hour. The adapter paces and retries (calls.ts).
  const options: WebClientOptions = {
    slackApiUrl: config.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    ...clientOptions,
    logger: boltLog,
  };
  const common = {
    token: config.botToken,
    logger: boltLog,
    clientOptions: options,
    // startSlack checks the token (auth.test) itself, so a wrong one stops the start cleanly
    // instead of rejecting later inside Bolt, unowned.
    deferInitialization: true,
    // Nothing reads context.conversation: Bolt's store of it made an Error per request it did not know.
    convoStore: false as const,
  };
  // SLACK_APP_TOKEN wins: Socket Mode needs no public URL.
  if (config.appToken) {
    const receiver = new SocketModeReceiver({
      appToken: config.appToken,
      logger: boltLog,
      installerOptions: { clientOptions: options },
    });
    const app = new App({ ...common, receiver });
    return { app, receiver, workspaces: singleWorkspace(app.client) };
  }
  // The signature is checked before Bolt, once (events-route.ts, mounted in index.ts).
  const http = {
    signingSecret: config.signingSecret ?? "",
    signatureVerification: false,
    endpoints: EVENTS_PATH,
    logger: boltLog,
  };
  if (config.oauth) {
    if (!installations) throw new Error("Slack OAuth needs the bot's installation store");
    const store = new SlackInstallations(installations, logger, {
      clientId: config.oauth.clientId,
      clientSecret: config.oauth.clientSecret,
      clientOptions: options,
      claims,
      owner: randomUUID(),
    });
    const receiver = new HTTPReceiver({
      ...http,
      ...oauthReceiverOptions(config.oauth, store, config.apiUrl, options, logger),
    });
    const app = new App({ ...common, receiver });
    return { app, receiver, installations: store, workspaces: new InstalledWorkspaces(store, options) };
  }
  const receiver = new HTTPReceiver(http);
  const app = new App({ ...common, receiver });
  return { app, receiver, workspaces: singleWorkspace(app.client) };
}

export interface SlackApp {
  app: App;
  receiver: HTTPReceiver | SocketModeReceiver;
  adapter: SlackAdapter;
  /** Resolves once every acknowledged command and click has been handed to the core and answered. */
  settled(): Promise<void>;
}

export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { bot, logger } = options;
  const { app, receiver, workspaces, installations } = createApp(options);
  const actors = new Actors(workspaces, logger);
  const names = new SlackNames(workspaces, actors);
  const adapter = new SlackAdapter(workspaces, new Ledger(options.store, options.keepMs), {
    names: (teamId, refs) => names.names(teamId, refs),
    rolesOf: (teamId, userId) => actors.rolesOf(teamId, userId),
    ...(options.pacing && { pacing: options.pacing }),
    logger,
  });
  const recent = new Recent(options.claims, randomUUID(), { intake: options.intake });
  const work = new FairQueue(CONCURRENT_WORK, options.intake);
  registerListeners(app, {
    bot,
    adapter,
    actors,
    workspaces,
    ...(installations && { installations }),
    logger,
    first: async (gesture) => {
      if (gesture.deliveryId === undefined || (await recent.first(gesture.deliveryId))) return true;
      // Slack sent it again, its ack late or lost: the first copy is the one that runs.
      logger.info({ deliveryId: gesture.deliveryId }, "Slack delivered a gesture again: the copy is dropped");
      return false;
    },
    later: (who, task) => work.add(laneOf("slack", who.teamId, who.userId), task),
  });

  return { app, receiver, adapter, settled: () => work.onIdle() };
}
