import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Bot } from "../core/bot.js";
import type { SlackAdapter } from "./adapter.js";
import { createSlackApp, type SlackAppOptions } from "./app.js";
import { slackFailure } from "./startup.js";

export { SLASH_COMMAND, type SlackAppOptions, type SlackConfig } from "./app.js";

export interface SlackOptions extends SlackAppOptions {
  bot: SlackAppOptions["bot"] & Pick<Bot, "attach">;
}

export interface RunningSlack {
  adapter: SlackAdapter;
  /** HTTP mode: where Slack sends commands and clicks (the manifest's URLs end in /slack/events). */
  eventsUrl?: string;
  /** Stops taking requests, then finishes the ones already acknowledged; call it before the bot's stop(). */
  stop(): Promise<void>;
}

/**
 * Starts the Slack side: Socket Mode when SLACK_APP_TOKEN is set, else HTTP on SLACK_PORT with
 * POST /slack/events verified by the signing secret. Attaches the adapter to the bot; the caller
 * starts the bot (which resumes unfinished jobs) once every adapter is attached.
 */
export async function startSlack(options: SlackOptions): Promise<RunningSlack> {
  const { app, adapter, settled } = createSlackApp(options);
  const { apiUrl, appToken } = options.config;
  await app.init().catch((error: unknown) => {
    throw slackFailure(error, "SLACK_BOT_TOKEN", apiUrl);
  });
  options.bot.attach(adapter);
  const started = await app.start().catch((error: unknown) => {
    throw slackFailure(error, appToken ? "SLACK_APP_TOKEN" : "SLACK_BOT_TOKEN", apiUrl);
  });
  const stop = async () => {
    await app.stop();
    await settled();
  };
  if (options.config.appToken) {
    options.logger.info("Slack: connected in Socket Mode");
    return { adapter, stop };
  }
  const { port } = (started as Server).address() as AddressInfo;
  options.logger.info({ port }, "Slack: listening for POST /slack/events");
  return { adapter, eventsUrl: `http://127.0.0.1:${port}/slack/events`, stop };
}
