import { randomUUID } from "node:crypto";
import {
  App,
  type BlockAction,
  ErrorCode,
  HTTPReceiver,
  type MessageShortcut,
  SocketModeReceiver,
  type ViewSubmitAction,
} from "@slack/bolt";
import type { ModalView } from "@slack/types";
import type { WebClient, WebClientOptions } from "@slack/web-api";
import type Keyv from "keyv";
import { actionByName } from "../core/actions/catalogue.js";
import { IMAGE_INPUTS, noImageNotice } from "../core/actions/image-inputs.js";
import { type Card, card } from "../core/base/cards.js";
import type { Logger } from "../core/base/log.js";
import type { Attachment, Choice, ConversationRef } from "../core/base/ports.js";
import type { Bot } from "../core/bot.js";
import { commandByName } from "../core/commands/catalogue.js";
import type { Config } from "../core/config/config.js";
import { FairQueue, laneOf } from "../core/intake/fair-queue.js";
import type { Intake } from "../core/intake/intake.js";
import { errorCard } from "../core/render/errors.js";
import { type Claims, type InstallationStore, isStoreOutage } from "../store/index.js";
import { Actors } from "./actors.js";
import { SlackAdapter } from "./adapter.js";
import type { PacingPolicy } from "./calls.js";
import { readCommandLine } from "./command-line.js";
import { userFilesByOption } from "./files.js";
import { fieldErrors } from "./form-errors.js";
import { SlackInstallations } from "./installations.js";
import { Ledger } from "./ledger.js";
import { SLACK_LIMITS } from "./limits.js";
import { boltLogger } from "./log.js";
import { imageOf } from "./message-images.js";
import { SlackNames } from "./names.js";
import { oauthReceiverOptions } from "./oauth.js";
import { Recent } from "./recent.js";
import { ACTION_ID, decodeActionId } from "./render/action-id.js";
import { readSearchBlockId, SEARCH_BLOCK_ID } from "./render/card.js";
import { FORM_CALLBACK_ID, formView, needsForm, readContext, readForm } from "./render/form.js";
import { cut } from "./render/mrkdwn.js";
import { registerSteps } from "./workflow-steps.js";
import { InstalledWorkspaces, singleWorkspace } from "./workspaces.js";

/**
 * Bolt wired to the core. Every listener acknowledges first (Slack waits 3 s), opens a form with
 * the trigger_id before any other awaited call but the de-duplication claim (the trigger dies after
 * 3 s and works once), then
 * hands a core event to the bot, which does all the rest and answers through the adapter.
 */

export const SLASH_COMMAND = "/media";

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
  bot: Pick<Bot, "handleCommand" | "handleAction" | "handleAutocomplete" | "actionForm" | "openHome">;
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
  const http = { signingSecret: config.signingSecret ?? "", endpoints: EVENTS_PATH, logger: boltLog };
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

/** The core's choices as an external select's options, within Slack's limits. */
function suggestions(choices: readonly Choice[]) {
  return choices
    .filter((c) => c.value.length <= SLACK_LIMITS.optionValue)
    .slice(0, SLACK_LIMITS.selectOptions)
    .map((c) => ({
      text: { type: "plain_text" as const, text: cut(c.label, SLACK_LIMITS.optionText) },
      value: c.value,
    }));
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
  const recent = new Recent(options.claims, randomUUID());
  const work = new FairQueue(CONCURRENT_WORK, options.intake);
  const later = (teamId: string, userId: string, task: () => Promise<void>) =>
    work.add(laneOf("slack", teamId, userId), task);

  /** `team` tells the adapter whose token answers there, also after a restart. */
  const conversation = (
    teamId: string,
    channelId: string,
    userId: string,
    more: { threadId?: string; responseUrl?: string } = {},
  ): ConversationRef => ({
    platform: "slack",
    channelId,
    ...(more.threadId && { threadId: more.threadId }),
    data: { user: userId, team: teamId },
    ...(more.responseUrl && { live: { responseUrl: more.responseUrl } }),
  });

  /** Problems of the Slack side itself (a form that did not open, a file Slack would not give). */
  async function tell(where: ConversationRef, message: Card, error: unknown, what: string): Promise<void> {
    logger.warn({ err: error, channel: where.channelId }, what);
    await adapter.post(where, message, { ephemeral: true }).catch((cause: unknown) => {
      logger.error({ err: cause, channel: where.channelId }, "could not tell the user");
    });
  }

  /**
   * The files given in a form, by option, read with the workspace's client (the listener's);
   * undefined once the user was told Slack would not say where one is.
   */
  async function userFiles(
    client: WebClient,
    ids: Record<string, string[]>,
    where: ConversationRef,
  ): Promise<Record<string, Attachment[]> | undefined> {
    try {
      return await userFilesByOption(client, ids);
    } catch (error) {
      await tell(where, errorCard(error), error, "files.info failed");
      return undefined;
    }
  }

  async function openForm(
    client: WebClient,
    triggerId: string,
    view: ModalView,
    where: ConversationRef,
  ): Promise<void> {
    try {
      await client.views.open({ trigger_id: triggerId, view });
    } catch (error) {
      const lines = ["Slack did not open the form. Try again."];
      await tell(where, card("The form did not open", "error", { lines }), error, "views.open failed");
    }
  }

  app.command(SLASH_COMMAND, async ({ command, ack, client, context }) => {
    await ack();
    if (!(await recent.first(`trigger:${command.trigger_id}`))) return;
    const request = readCommandLine(command.text);
    const teamId = context.teamId ?? command.team_id;
    const where = conversation(teamId, command.channel_id, command.user_id, {
      responseUrl: command.response_url,
    });
    if (request.command && needsForm(request.command, request.options)) {
      await openForm(
        client,
        command.trigger_id,
        formView(request.command, request.options, { command: request.name, channelId: command.channel_id }),
        where,
      );
      return;
    }
    await later(teamId, command.user_id, async () =>
      bot.handleCommand({
        command: request.name,
        options: request.options,
        attachments: {},
        actor: await actors.of(teamId, command.user_id),
        conversation: where,
      }),
    );
  });

  app.view<ViewSubmitAction>(FORM_CALLBACK_ID, async ({ ack, body, view, context, client }) => {
    const form = readContext(view.private_metadata);
    const followUp = form?.followUp;
    if (form && followUp) {
      // The core checks a follow-up's fields (against its job's form) and answers privately.
      await ack();
      if (!(await recent.first(`trigger:${body.trigger_id}`))) return;
      const teamId = context.teamId ?? body.team?.id ?? body.user.team_id ?? "";
      const where = conversation(teamId, form.channelId, body.user.id, {
        ...(form.responseUrl && { responseUrl: form.responseUrl }),
      });
      await later(teamId, body.user.id, async () => {
        const actor = await actors.of(teamId, body.user.id);
        const asked = await bot.actionForm({ ...followUp, actor, conversation: where });
        const values = asked ? readForm(asked.form, view.state.values) : { options: {}, files: {} };
        const attachments = await userFiles(client, values.files, where);
        if (!attachments) return;
        await bot.handleAction({
          ...followUp,
          fields: values.options,
          attachments,
          actor,
          conversation: where,
          entry: "form",
          ...(form.home && { surface: "home" as const }),
        });
      });
      return;
    }
    const command = form && commandByName(form.command);
    if (!form || !command) {
      await ack();
      return;
    }
    const values = readForm(command, view.state.values);
    const errors = fieldErrors(command, values.options);
    if (Object.keys(errors).length > 0) {
      await ack({ response_action: "errors", errors });
      return;
    }
    await ack();
    if (!(await recent.first(`trigger:${body.trigger_id}`))) return;
    const teamId = context.teamId ?? body.team?.id ?? body.user.team_id ?? "";
    const where = conversation(teamId, form.channelId, body.user.id);
    // A message shortcut's image joins the files given in the form.
    const image = form.image;
    const files = image ? { ...values.files, [image.option]: [image.fileId] } : values.files;
    await later(teamId, body.user.id, async () => {
      const attachments = await userFiles(client, files, where);
      if (!attachments) return;
      await bot.handleCommand({
        command: command.name,
        options: values.options,
        attachments,
        actor: await actors.of(teamId, body.user.id),
        conversation: where,
        entry: image ? "message_shortcut" : "form",
        ...(image?.jobId && { results: { [image.option]: image.jobId } }),
      });
    });
  });

  app.options<"block_suggestion">({ callback_id: FORM_CALLBACK_ID }, async ({ ack, body, context }) => {
    const form = body.view && readContext(body.view.private_metadata);
    const teamId = context.teamId ?? body.team?.id ?? "";
    const choices = form
      ? await bot.handleAutocomplete({
          command: form.command,
          option: body.action_id,
          query: body.value,
          actor: actors.quick(teamId, body.user.id),
          conversation: conversation(teamId, form.channelId, body.user.id),
        })
      : [];
    await ack({ options: suggestions(choices) });
  });

  // A searchable select outside forms (an avatar in the Home tab): its block names what to search.
  app.options<"block_suggestion">({ block_id: SEARCH_BLOCK_ID }, async ({ ack, body, context }) => {
    const search = readSearchBlockId(body.block_id);
    const teamId = context.teamId ?? body.team?.id ?? "";
    const channelId = body.channel?.id ?? body.user.id;
    const choices = search
      ? await bot.handleAutocomplete({
          ...search,
          query: body.value,
          actor: actors.quick(teamId, body.user.id),
          conversation: conversation(teamId, channelId, body.user.id),
        })
      : [];
    await ack({ options: suggestions(choices) });
  });

  app.action<BlockAction>(ACTION_ID, async ({ ack, body, action, client, context }) => {
    await ack();
    if (!(await recent.first(`trigger:${body.trigger_id}`))) return;
    const key = decodeActionId(action.action_id);
    // A click on the person's App Home tab: no channel, no message; the Home shows the outcome.
    const home = body.view?.type === "home";
    const channelId = home ? body.user.id : (body.channel?.id ?? body.container.channel_id);
    const messageId = body.message?.ts ?? body.container.message_ts;
    if (!key || typeof channelId !== "string" || (!home && typeof messageId !== "string")) return;
    // A select's value is the option chosen; a button's is in its action_id.
    const value =
      "selected_option" in action && action.selected_option ? action.selected_option.value : key.value;
    const teamId = context.teamId ?? body.team?.id ?? body.user.team_id ?? "";
    const onPanel = actionByName(key.action)?.on === "settings";
    // A follow-up opens its form first, while the click's trigger_id is alive: a store read away,
    // and at most 1.5 s more for a form that shows an entry of the account's lists (a voice).
    if (actionByName(key.action)?.form) {
      const actor = actors.quick(teamId, body.user.id);
      const followUp = { action: key.action, jobId: key.jobId, ...(value !== undefined && { value }) };
      const form = await bot.actionForm({ ...followUp, actor, conversation: { channelId } });
      if (form) {
        const shownIn = home
          ? { home: true as const }
          : onPanel && body.response_url
            ? { responseUrl: body.response_url }
            : {};
        await openForm(
          client,
          body.trigger_id,
          formView(
            form.form,
            form.initial,
            { command: form.form.name, channelId, followUp, ...shownIn },
            form.title,
            form.choices,
          ),
          conversation(teamId, channelId, body.user.id, { responseUrl: body.response_url }),
        );
        return;
      }
    }
    const where = home
      ? { surface: "home" as const, conversation: conversation(teamId, channelId, body.user.id) }
      : {
          message: {
            platform: "slack" as const,
            channelId,
            messageId: String(messageId),
            data: { team: teamId },
          },
          conversation: conversation(teamId, channelId, body.user.id, { responseUrl: body.response_url }),
        };
    await later(teamId, body.user.id, async () =>
      bot.handleAction({
        action: key.action,
        jobId: key.jobId,
        ...(value !== undefined && { value }),
        actor: await actors.of(teamId, body.user.id),
        ...where,
      }),
    );
  });

  // "Edit image" and the other message shortcuts: the follow-up's form with the message's image.
  for (const input of IMAGE_INPUTS) {
    app.shortcut<MessageShortcut>(
      { type: "message_action", callback_id: input.name },
      async ({ ack, shortcut, client, context }) => {
        await ack();
        if (!(await recent.first(`trigger:${shortcut.trigger_id}`))) return;
        const channelId = shortcut.channel.id;
        const teamId = context.teamId ?? shortcut.team?.id ?? shortcut.user.team_id ?? "";
        const where = conversation(teamId, channelId, shortcut.user.id, {
          responseUrl: shortcut.response_url,
        });
        const image = imageOf(shortcut.message, context.botId);
        if (!image) {
          await adapter
            .post(where, noImageNotice(input), { ephemeral: true })
            .catch((error: unknown) => logger.warn({ err: error, channel: channelId }, "notice not posted"));
          return;
        }
        const form = { command: input.command, channelId, image: { option: input.file, ...image } };
        await openForm(client, shortcut.trigger_id, formView(input.form, {}, form, input.title), where);
      },
    );
  }

  // Workflow Builder's steps: each runs its command as the person who started the workflow.
  registerSteps(app, { bot, adapter, workspaces, actors, recent, later, logger });

  // The Home tab shows the person's settings panel, kept current while their jobs run.
  app.event("app_home_opened", async ({ event, body, context }) => {
    if (event.tab !== "home" || !(await recent.first(`event:${body.event_id}`))) return;
    const teamId = context.teamId ?? body.team_id;
    await later(teamId, event.user, async () => bot.openHome(await actors.of(teamId, event.user)));
  });

  // Mentioning the bot shows the help, in the thread of the mention.
  app.event("app_mention", async ({ event, body, context }) => {
    const user = event.user;
    if (!user || !(await recent.first(`event:${body.event_id}`))) return;
    const teamId = context.teamId ?? body.team_id;
    await later(teamId, user, () =>
      bot.handleCommand({
        command: "help",
        options: {},
        attachments: {},
        actor: actors.quick(teamId, user),
        conversation: conversation(teamId, event.channel, user, { threadId: event.thread_ts ?? event.ts }),
      }),
    );
  });

  /**
   * Uninstalled, or the bot token revoked: the installation goes, and with it the token, so the
   * workspace's jobs stop calling Slack (their deliveries end as undeliverable, said in `jobs`).
   * With SLACK_BOT_TOKEN the token is the operator's to replace.
   */
  async function removed(teamId: string, why: string): Promise<void> {
    workspaces.forget(teamId);
    if (installations) await installations.remove(teamId);
    else logger.error({ teamId, why }, "Slack: the app was removed from the workspace of SLACK_BOT_TOKEN");
  }
  app.event("app_uninstalled", async ({ body, context }) => {
    await removed(context.teamId ?? body.team_id, "app_uninstalled");
  });
  app.event("tokens_revoked", async ({ event, body, context }) => {
    // A user's token revoked leaves the bot's working.
    if ((event.tokens.bot ?? []).length > 0) await removed(context.teamId ?? body.team_id, "tokens_revoked");
  });

  app.error(async (error) => {
    if (error.code === ErrorCode.AuthorizationError) {
      // The store away, and the installation never read by this process: the outage is logged.
      if (isStoreOutage((error as { original?: unknown }).original)) return;
      // A request from a workspace the app is not installed in (any more): nothing to answer.
      logger.warn({ err: error }, "Slack: a request from a workspace without an installation");
      return;
    }
    logger.error({ err: error }, "Slack listener failed");
  });

  return { app, receiver, adapter, settled: () => work.onIdle() };
}
