import type { HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import { ackSeconds } from "../core/base/metrics.js";
import type { Bot } from "../core/bot.js";
import { Intake } from "../core/intake/intake.js";
import { type HttpServer, startHttpServer } from "../http/index.js";
import type { SlackAdapter } from "./adapter.js";
import { createSlackApp, EVENTS_PATH, type SlackAppOptions } from "./app.js";
import { slackEventsRoute } from "./events-route.js";
import { INSTALL_PATH, REDIRECT_PATH } from "./oauth.js";
import { slackFailure } from "./startup.js";

export { SLASH_COMMAND, type SlackAppOptions, type SlackConfig } from "./app.js";
export { BOT_SCOPES, INSTALL_PATH, REDIRECT_PATH } from "./oauth.js";

export interface SlackOptions extends SlackAppOptions {
  bot: SlackAppOptions["bot"] & Pick<Bot, "attach">;
  /** HTTP mode: the bot's server, where POST /slack/events is mounted. Without one, Slack gets a server of its own on `config.port`. */
  http?: HttpServer;
}

export interface RunningSlack {
  adapter: SlackAdapter;
  /** HTTP mode: where Slack sends commands and clicks (the manifest's URLs end in /slack/events). */
  eventsUrl?: string;
  /** OAuth: where a workspace's admin starts an install (GET). */
  installUrl?: string;
  /** Why Slack cannot be used right now (token refused, websocket down), or undefined when it can. */
  problem(): string | undefined;
  /** Stops taking requests, then finishes the ones already acknowledged; call it before the bot's stop(). */
  stop(): Promise<void>;
}

/**
 * How long the token's check (auth.test) may take at start. The WebClient retries a Web API it
 * cannot reach for about half an hour; a start that waits that long is no start, so it fails
 * with SLACK_API_URL named and the process manager's restart tries again.
 */
const START_DEADLINE_MS = 10_000;

async function withinStartDeadline(init: Promise<void>): Promise<void> {
  // Past the deadline the start has failed already: init's own later failure has nothing to add.
  init.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${START_DEADLINE_MS / 1000} s`)),
      START_DEADLINE_MS,
    );
  });
  try {
    await Promise.race([init, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the Slack side: Socket Mode when SLACK_APP_TOKEN is set, else POST /slack/events on the
 * bot's HTTP server, verified by the signing secret (with OAuth, GET /slack/install and
 * GET /slack/oauth_redirect beside it). Attaches the adapter to the bot; the caller
 * starts the bot (which resumes unfinished jobs) once every adapter is attached.
 */
export async function startSlack(options: SlackOptions): Promise<RunningSlack> {
  const { apiUrl, appToken } = options.config;
  const intake = appToken ? undefined : (options.http?.intake ?? new Intake());
  const { app, receiver, adapter, settled } = createSlackApp({ ...options, ...(intake && { intake }) });
  await withinStartDeadline(app.init()).catch((error: unknown) => {
    throw slackFailure(error, "SLACK_BOT_TOKEN", apiUrl);
  });
  options.bot.attach(adapter);
  if (appToken) return startSocketMode(options, receiver as SocketModeReceiver, adapter, settled);

  const http =
    options.http ??
    (await startHttpServer({ port: options.config.port, logger: options.logger, ...(intake && { intake }) }));
  const listener = (receiver as HTTPReceiver).requestListener;
  const events = slackEventsRoute({
    app,
    receiver: receiver as HTTPReceiver,
    signingSecret: options.config.signingSecret ?? "",
    logger: options.logger,
    intake: http.intake,
  });
  // The label's child once: observe() with a labels object hashes it on every request.
  const acks = ackSeconds.labels({ platform: "slack" });
  const unmount = http.mount({
    method: "POST",
    path: EVENTS_PATH,
    handle(req, res) {
      // Slack's clock: from the request's arrival to the end of the answer (its ack).
      const started = performance.now();
      res.once("finish", () => acks.observe((performance.now() - started) / 1000));
      return events(req, res);
    },
  });
  options.logger.info({ port: http.port }, "Slack: listening for POST /slack/events");
  // Bolt's InstallProvider answers the install pages through the same listener.
  const oauth = Boolean(options.config.oauth);
  const unmountInstall = (oauth ? [INSTALL_PATH, REDIRECT_PATH] : []).map((path) =>
    http.mount({ method: "GET", path, handle: listener }),
  );
  if (oauth) options.logger.info({ port: http.port }, "Slack: installs at GET /slack/install");
  return {
    adapter,
    eventsUrl: `${http.url}${EVENTS_PATH}`,
    ...(oauth && { installUrl: `${http.url}${INSTALL_PATH}` }),
    // init() checked the token (auth.test) before anything was served; with OAuth each
    // workspace's token is checked by Slack at install.
    problem: () => undefined,
    async stop() {
      unmount();
      for (const take of unmountInstall) take();
      if (!options.http) await http.close();
      await settled();
    },
  };
}

async function startSocketMode(
  options: SlackOptions,
  receiver: SocketModeReceiver,
  adapter: SlackAdapter,
  settled: () => Promise<void>,
): Promise<RunningSlack> {
  let connected = false;
  receiver.client.on("connected", () => {
    connected = true;
  });
  for (const state of ["reconnecting", "disconnected"]) {
    receiver.client.on(state, () => {
      connected = false;
    });
  }
  await receiver.start().catch((error: unknown) => {
    throw slackFailure(error, "SLACK_APP_TOKEN", options.config.apiUrl);
  });
  connected = true;
  options.logger.info("Slack: connected in Socket Mode");
  return {
    adapter,
    problem: () => (connected ? undefined : "Slack: the Socket Mode connection is down"),
    async stop() {
      await receiver.stop();
      await settled();
    },
  };
}
