/**
 * A local Slack for tests: the Web API the bot uses, upload URLs, user files, response_urls, Socket Mode,
 * OAuth installs in several workspaces, and signed requests and events to the app. One HTTP server
 * on 127.0.0.1 serves
 *   POST /api/{method}                    Web API (form or JSON; Bearer token of one workspace)
 *   GET  /oauth/v2/authorize              the consent page of an install (see oauth.ts)
 *   POST /upload/v1/{ticket}              upload_url from files.getUploadURLExternal
 *   GET  /files-pri/{team}-{file}/...     url_private(_download), bot token required
 *   POST /commands/... | /actions/...     response_url of a slash command / block action
 *   GET  /link/?ticket=...                Socket Mode websocket from apps.connections.open
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { watched } from "../watch.js";
import { addUserFile, handleDownload, handleUpload, isFilePath } from "./files.js";
import type { FunctionExecution } from "./functions.js";
import {
  applyViewAnswer,
  type BlockActionInput,
  type Built,
  blockAction,
  type HomeActionInput,
  homeAction,
  type MessageShortcutInput,
  messageShortcut,
  type SlashCommandInput,
  slashCommand,
  type ViewSubmissionInput,
  viewSubmission,
} from "./interactions.js";
import { viewPayload } from "./methods/views.js";
import {
  AUTHORIZE_PATH,
  handleAuthorize,
  type InstallOptions,
  type InstallResult,
  installThroughBrowser,
} from "./oauth.js";
import type { RateTierOptions } from "./rate-tiers.js";
import { handleResponseUrl } from "./response-url.js";
import { type AppAnswer, type Delivery, postSigned, postSignedJson } from "./signing.js";
import { type Envelope, type EnvelopeType, SocketModeServer } from "./socket-mode.js";
import {
  type EphemeralMessage,
  type FileContent,
  type FileRefusal,
  type Message,
  type ResponseUrlPost,
  ROTATED_TOKEN_TTL_S,
  type SlackFile,
  SlackState,
  type SlackUser,
  type SlackView,
  TRIGGER_TTL_MS,
  type Upload,
  type UploadPolicy,
  type Workspace,
} from "./state.js";
import { type ApiCall, type Fault, WebApi } from "./web-api.js";

export { LIMITS } from "./blocks.js";
export { LOGIN_PAGE } from "./files.js";
export type { FunctionExecution } from "./functions.js";
export type {
  BlockActionInput,
  Built,
  HomeActionInput,
  InputValue,
  MessageShortcutInput,
  SlashCommandInput,
  ViewSubmissionInput,
} from "./interactions.js";
export type { InstallOptions, InstallResult } from "./oauth.js";
export { POST_BURST, type RateTierOptions, TIER_PER_MINUTE, tierOf } from "./rate-tiers.js";
export { type AppAnswer, type Delivery, sign } from "./signing.js";
export type { Envelope, EnvelopeType } from "./socket-mode.js";
export type {
  EphemeralMessage,
  FileContent,
  FileRefusal,
  Message,
  ResponseUrlPost,
  SlackFile,
  SlackUser,
  SlackView,
  Upload,
  UploadPolicy,
  Workspace,
} from "./state.js";
export type { ApiCall, Fault } from "./web-api.js";

/** A workflow reaches one of the app's steps (custom functions). */
export interface FunctionInput {
  /** The function's callback_id in the app's manifest. */
  callbackId: string;
  /** Values by input name, as the workflow maps them (a user_context is `{ id, secret }`). */
  inputs: Record<string, unknown>;
  teamId?: string;
}

export interface FakeSlackOptions {
  /** Every Nth Web API call answers 429 `ratelimited` with Retry-After: 1 (0 = never). */
  rateLimitEvery?: number;
  /**
   * Slack's rate limit tiers per method and workspace (rate-tiers.ts), with a "minute" of
   * `minuteMs` (default 60 s) so that tests can compress time; off unless given.
   */
  tiers?: RateTierOptions;
  /** How long Slack processes an uploaded file before a block may show it (default 0: at once). */
  fileProcessingMs?: number;
  /** Token rotation on for the app from the start, its access tokens living `ttlS` (default 12 h). */
  tokenRotation?: { ttlS?: number };
  /** How long a trigger_id stays usable; Slack's 3 s by default. */
  triggerTtlMs?: number;
  /** Keep the bytes the app uploads, so url_private serves them (the playground shows them); default off. */
  keepUploads?: boolean;
  /** How long a workflow step's own token lives; 15 minutes by default (functions.ts). */
  functionTokenTtlMs?: number;
}

/** The app's answer to a delivered request, with what Slack attached to it. */
export type Delivered<P> = AppAnswer & Built<P>;

export interface FakeSlack {
  /** For Bolt's `clientOptions.slackApiUrl` / SLACK_API_URL. */
  apiUrl: string;
  botToken: string;
  appToken: string;
  signingSecret: string;
  teamId: string;
  appId: string;
  botId: string;
  botUserId: string;
  channelId: string;
  users: { requester: SlackUser; other: SlackUser; admin: SlackUser };
  /** Every Web API call in arrival order. */
  calls: ApiCall[];
  /** The app's Client ID and Secret (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET). */
  clientId: string;
  clientSecret: string;
  /** The app's Redirect URLs (OAuth & Permissions): set the bot's /slack/oauth_redirect before an install. */
  redirectUrls: string[];
  /**
   * Another workspace (team) with a channel, a requester and an admin; the app is not installed in
   * it. Commands from its channel come from its people; its token sees only it.
   */
  addWorkspace(name: string): Workspace;
  /** A workspace by id; the first one, `teamId`, has the app installed with `botToken`. */
  workspace(teamId: string): Workspace;
  /** The app's live bot token in a workspace (issued by oauth.v2.access), if it is installed there. */
  botTokenOf(teamId: string): string | undefined;
  /**
   * A browser installs the app in a workspace: the app's install URL, Slack's consent page, the
   * redirect back to the app. Resolves with the app's final page.
   */
  install(installUrl: string, teamId: string, options?: InstallOptions): Promise<InstallResult>;
  /** Signed Events API callback of `event` from a workspace. */
  event(
    eventsUrl: string,
    teamId: string,
    event: { type: string } & Record<string, unknown>,
  ): Promise<AppAnswer>;
  /**
   * An admin uninstalls the app: its tokens stop working at once (token_revoked), then Slack sends
   * `tokens_revoked` and `app_uninstalled`. Resolves with the app's two answers.
   */
  uninstall(eventsUrl: string, teamId: string): Promise<AppAnswer[]>;
  /** An admin revokes the bot token only: it stops working, and Slack sends `tokens_revoked`. */
  revokeBotToken(eventsUrl: string, teamId: string): Promise<AppAnswer>;
  /**
   * A member's data changes (their language, made an admin): Slack sends `user_change` with the
   * whole user, `locale` included.
   */
  changeUser(
    eventsUrl: string,
    userId: string,
    change: Partial<Pick<SlackUser, "locale" | "is_admin">>,
  ): Promise<AppAnswer>;
  /**
   * A workflow runs one of the app's steps: Slack starts an execution and sends `function_executed`
   * with the execution's own token (`bot_access_token`). Resolves with the execution (which the
   * app completes with functions.completeSuccess / completeError) and the app's answer.
   */
  functionExecuted(
    eventsUrl: string,
    input: FunctionInput,
  ): Promise<{ execution: FunctionExecution; answer: AppAnswer }>;
  /** A workflow step's execution as it stands now. */
  execution(id: string): FunctionExecution | undefined;
  /** Every workflow step execution, oldest first. */
  readonly executions: FunctionExecution[];
  /** A channel's messages as they stand now (updates applied), thread replies included (they carry thread_ts). */
  messages(channel?: string): Message[];
  ephemerals(channel?: string): EphemeralMessage[];
  /** A file Slack holds (undefined once deleted). */
  file(id: string): SlackFile | undefined;
  readonly views: SlackView[];
  /** External uploads that were completed. */
  readonly uploads: Upload[];
  responseUrlPosts: ResponseUrlPost[];
  /** Another member of the workspace. */
  addUser(name: string): SlackUser;
  /**
   * A file a user attached; `meta.size` is required with a stream factory. `meta.download` makes
   * its download fail: 404 (deleted meanwhile) or the sign-in page (the bot may not read files).
   */
  addUserFile(
    content: FileContent,
    meta: { name: string; mimetype: string; size?: number; user?: string; download?: FileRefusal },
  ): SlackFile;
  /** Payloads as Slack would send them, for Socket Mode or custom delivery. */
  payloads: {
    slashCommand(input?: SlashCommandInput): Built<Record<string, string>>;
    blockAction(input: BlockActionInput): Built<Record<string, unknown>>;
    viewSubmission(input: ViewSubmissionInput): Built<Record<string, unknown>>;
    messageShortcut(input: MessageShortcutInput): Built<Record<string, unknown>>;
    /** A step's execution, started, and its `function_executed` event for Socket Mode (`events_api`). */
    functionExecuted(input: FunctionInput): {
      execution: FunctionExecution;
      payload: Record<string, unknown>;
    };
  };
  /** A member posts in a channel (the seeded one by default), with files they attached (see addUserFile). */
  postAsUser(input: { user?: string; channel?: string; text?: string; files?: SlackFile[] }): Message;
  /** A member uses a message shortcut on a channel message. */
  messageShortcut(
    eventsUrl: string,
    input: MessageShortcutInput,
    delivery?: Delivery,
  ): Promise<Delivered<Record<string, unknown>>>;
  /** Signed requests to a Bolt HTTP endpoint such as http://127.0.0.1:PORT/slack/events. */
  slashCommand(
    eventsUrl: string,
    input?: SlashCommandInput,
    delivery?: Delivery,
  ): Promise<Delivered<Record<string, string>>>;
  blockAction(
    eventsUrl: string,
    input: BlockActionInput,
    delivery?: Delivery,
  ): Promise<Delivered<Record<string, unknown>>>;
  /**
   * A user opens the app's Home tab: Slack sends `app_home_opened` (with the view last published,
   * when there is one). Resolves with the app's answer.
   */
  openHome(eventsUrl: string, user?: string): Promise<AppAnswer>;
  /** A user's App Home tab as the app last published it (views.publish). */
  home(user: string): SlackView | undefined;
  /** A click (or a select's choice) in a user's App Home tab. */
  homeAction(
    eventsUrl: string,
    input: HomeActionInput,
    delivery?: Delivery,
  ): Promise<Delivered<Record<string, unknown>>>;
  /** The modal follows the app's answer: errors keep it open, update/push change it, anything else closes it. */
  viewSubmission(
    eventsUrl: string,
    input: ViewSubmissionInput,
    delivery?: Delivery,
  ): Promise<Delivered<Record<string, unknown>>>;
  socketMode: {
    connected(): Promise<void>;
    readonly connections: number;
    /** Every envelope sent, in order. */
    readonly envelopes: Envelope[];
    /** Resolves with the ack's payload; view submissions then change the modal as over HTTP. */
    send(type: EnvelopeType, payload: object): Promise<unknown>;
    disconnect(reason?: string): void;
  };
  /**
   * Another channel of the workspace, public and with the bot invited unless told otherwise;
   * returns its id. A private channel without the bot is invisible to it (channel_not_found).
   */
  addChannel(name: string, options?: { private?: boolean; botIsMember?: boolean; team?: string }): string;
  /**
   * Files added from now on have their url_private at `origin` (a proxy in front of this fake, the
   * one the bot knows as SLACK_API_URL), as Slack's point at a file host of its own.
   */
  serveFilesFrom(origin: string): void;
  /** Someone deletes a message (the bot's too: admins may): chat.update then answers message_not_found. */
  deleteMessage(ts: string, channel?: string): void;
  /**
   * A channel deleted, with its messages. The Web API then answers channel_not_found for it (and
   * files.completeUploadExternal invalid_channel), as it does for a private channel the bot was
   * removed from.
   */
  deleteChannel(channel: string): void;
  /** Slack failing on demand (internal_error, fatal_error, ...): the next calls of a method refuse, changing nothing. */
  fail(fault: Fault): void;
  /**
   * A rate-limit storm: every call of `method` (in one workspace, or all) answers 429 `ratelimited`
   * for `forMs`, with Retry-After `retryAfterS` (default: until the storm ends), changing nothing.
   */
  rateLimit(method: string, options: { forMs: number; retryAfterS?: number; teamId?: string }): void;
  /** A workspace's admins restrict uploads (the first workspace by default); `{}` lifts them. */
  restrictUploads(policy: UploadPolicy, teamId?: string): void;
  /** Turns token rotation on for the app (or changes its lifetime): tokens issued from now on expire. */
  rotateTokens(ttlS?: number): void;
  /** The workspace's current bot access token expires now: calls with it answer token_expired. */
  expireToken(teamId: string): void;
  /** The app is approved for the Slack Marketplace: its OAuth installs from now on read history at Tier 3. */
  approveForMarketplace(): void;
  /** Polls until `predicate` returns something truthy and resolves with it. */
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state = new SlackState({
    baseUrl,
    triggerTtlMs: opts.triggerTtlMs ?? TRIGGER_TTL_MS,
    keepUploads: opts.keepUploads ?? false,
  });
  if (opts.functionTokenTtlMs !== undefined) state.functionTokenTtlMs = opts.functionTokenTtlMs;
  const api = new WebApi(state, opts.rateLimitEvery ?? 0);
  if (opts.tiers) api.tiers.enforce(opts.tiers);
  state.fileProcessingMs = opts.fileProcessingMs ?? 0;
  const rotateTokens = (ttlS = ROTATED_TOKEN_TTL_S) => {
    state.oauthApp.rotation = { ttlS, refreshTokens: state.oauthApp.rotation?.refreshTokens ?? new Map() };
  };
  if (opts.tokenRotation) rotateTokens(opts.tokenRotation.ttlS);
  const socket = new SocketModeServer(state);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? "/", baseUrl);
    const [, first = "", second = ""] = pathname.split("/");
    if (first === "api" && second) return api.handle(req, res, second);
    if (req.method === "GET" && pathname === AUTHORIZE_PATH) return handleAuthorize(state, req, res);
    if (first === "upload") return handleUpload(state, req, res, pathname.split("/").at(-1) ?? "");
    if (req.method === "GET" && isFilePath(pathname)) return handleDownload(state, req, res, pathname);
    if (req.method === "POST" && (first === "commands" || first === "actions")) {
      return handleResponseUrl(state, req, res, pathname);
    }
    req.resume();
    res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
  }

  server.on("request", (req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy(error as Error);
      else res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    });
  });
  server.on("upgrade", (req, sock, head) => socket.handleUpgrade(req, sock, head));

  const user = (id: string) => state.users.get(id)!;
  const asForm = (payload: object) => ({ payload: JSON.stringify(payload) });
  // What a person typed or picked (not the bot's own messages and forms it refers to).
  const payloads: FakeSlack["payloads"] = {
    slashCommand: (input = {}) => {
      watched.given(input.text);
      return slashCommand(state, input);
    },
    blockAction: (input) => {
      watched.given(input.value);
      return blockAction(state, input);
    },
    viewSubmission: (input) => {
      watched.given(input.values);
      return viewSubmission(state, input);
    },
    messageShortcut: (input) => messageShortcut(state, input),
    functionExecuted: (input) => {
      watched.given(input);
      const { execution, team, inner } = startExecution(input);
      return { execution, payload: eventBody(team.id, inner) };
    },
  };
  const isViewSubmission = (payload: object): payload is { view: { id: string } } =>
    "type" in payload && payload.type === "view_submission";

  /** An Events API envelope of `inner` from a workspace, as Slack posts it (or sends it over Socket Mode). */
  function eventBody(teamId: string, inner: { type: string } & Record<string, unknown>) {
    const team = state.workspace(teamId);
    const now = Math.floor(Date.now() / 1000);
    return {
      token: state.verificationToken,
      team_id: team.id,
      api_app_id: state.appId,
      event: { ...inner, event_ts: state.nextTs() },
      type: "event_callback",
      event_id: state.nextId("Ev"),
      event_time: now,
      authorizations: [
        {
          enterprise_id: null,
          team_id: team.id,
          user_id: team.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
    };
  }
  function event(eventsUrl: string, teamId: string, inner: { type: string } & Record<string, unknown>) {
    return postSignedJson(eventsUrl, eventBody(teamId, inner), state.signingSecret);
  }
  /** Slack starts an execution of one of the app's steps: its record, and the `function_executed` event. */
  function startExecution({ callbackId, inputs, teamId = state.teamId }: FunctionInput) {
    const team = state.workspace(teamId);
    const token = `xwfp-${state.secret(5)}-${state.secret(12)}`;
    const execution: FunctionExecution = {
      id: state.nextId("Fx"),
      callbackId,
      teamId: team.id,
      inputs,
      token,
      startedAt: Date.now(),
      state: "running",
      attempts: [],
    };
    state.executions.set(execution.id, execution);
    state.tokens.set(token, { kind: "function", teamId: team.id, revoked: false });
    const now = Math.floor(Date.now() / 1000);
    const inner = {
      type: "function_executed",
      function: {
        id: `Fn${callbackId.toUpperCase().slice(0, 8)}`,
        callback_id: callbackId,
        title: callbackId,
        type: "app",
        input_parameters: [],
        output_parameters: [],
        app_id: state.appId,
        date_created: now,
        date_updated: now,
        date_deleted: 0,
      },
      inputs,
      function_execution_id: execution.id,
      workflow_execution_id: state.nextId("Wx"),
      bot_access_token: token,
    };
    return { execution, team, inner };
  }
  const tokensRevoked = (eventsUrl: string, team: Workspace) =>
    event(eventsUrl, team.id, { type: "tokens_revoked", tokens: { bot: [team.botUserId] } });

  return {
    apiUrl: `${baseUrl}/api/`,
    botToken: state.botToken,
    appToken: state.appToken,
    signingSecret: state.signingSecret,
    teamId: state.teamId,
    appId: state.appId,
    botId: state.botId,
    botUserId: state.botUserId,
    channelId: state.channelId,
    users: {
      requester: user(state.userIds.requester),
      other: user(state.userIds.other),
      admin: user(state.userIds.admin),
    },
    calls: api.calls,
    clientId: state.oauthApp.clientId,
    clientSecret: state.oauthApp.clientSecret,
    redirectUrls: state.oauthApp.redirectUrls,
    addWorkspace: (name) => state.addWorkspace(name),
    workspace: (teamId) => state.workspace(teamId),
    botTokenOf: (teamId) => state.botTokenOf(teamId),
    install: (installUrl, teamId, options) => installThroughBrowser(installUrl, teamId, options),
    event,
    async uninstall(eventsUrl, teamId) {
      const team = state.workspace(teamId);
      state.revokeTokens(teamId);
      return [
        await tokensRevoked(eventsUrl, team),
        await event(eventsUrl, teamId, { type: "app_uninstalled" }),
      ];
    },
    revokeBotToken(eventsUrl, teamId) {
      state.revokeTokens(teamId);
      return tokensRevoked(eventsUrl, state.workspace(teamId));
    },
    async functionExecuted(eventsUrl, input) {
      const { execution, team, inner } = startExecution(input);
      return { execution, answer: await event(eventsUrl, team.id, inner) };
    },
    execution: (id) => state.executions.get(id),
    get executions() {
      return [...state.executions.values()];
    },
    messages: (channel = state.channelId) => state.messages.filter((m) => m.channel === channel),
    ephemerals: (channel = state.channelId) => state.ephemerals.filter((m) => m.channel === channel),
    file: (id) => state.files.get(id),
    get views() {
      return [...state.views.values()];
    },
    get uploads() {
      return [...state.uploads.values()].filter((u) => u.completed);
    },
    responseUrlPosts: state.responseUrlPosts,
    addUser: (name) => state.addUser(name),
    addUserFile: (content, meta) => addUserFile(state, content, meta),
    payloads,
    async slashCommand(eventsUrl, input = {}, delivery) {
      const built = payloads.slashCommand(input);
      return { ...built, ...(await postSigned(eventsUrl, built.payload, state.signingSecret, delivery)) };
    },
    async blockAction(eventsUrl, input, delivery) {
      const built = payloads.blockAction(input);
      return {
        ...built,
        ...(await postSigned(eventsUrl, asForm(built.payload), state.signingSecret, delivery)),
      };
    },
    changeUser(eventsUrl, userId, change) {
      const user = state.users.get(userId);
      if (!user) throw new Error(`fake Slack: unknown user ${userId}`);
      Object.assign(user, change, { updated: Math.floor(Date.now() / 1000) });
      return event(eventsUrl, user.team_id, { type: "user_change", user: { ...user } });
    },
    openHome(eventsUrl, userId = state.userIds.requester) {
      const user = state.users.get(userId);
      if (!user) throw new Error(`fake Slack: unknown user ${userId}`);
      const home = state.homes.get(userId);
      return event(eventsUrl, user.team_id, {
        type: "app_home_opened",
        user: userId,
        // The user's DM with the app, whose tabs are Home and Messages.
        channel: `D${userId.slice(1)}`,
        tab: "home",
        ...(home && { view: viewPayload(home) }),
      });
    },
    home: (userId) => state.homes.get(userId),
    async homeAction(eventsUrl, input, delivery) {
      const built = homeAction(state, input);
      return {
        ...built,
        ...(await postSigned(eventsUrl, asForm(built.payload), state.signingSecret, delivery)),
      };
    },
    postAsUser: ({ user = state.userIds.requester, channel = state.channelId, text = "", files }) => {
      watched.given([text, files]);
      return state.postUserMessage(channel, user, { text, files });
    },
    async messageShortcut(eventsUrl, input, delivery) {
      const built = payloads.messageShortcut(input);
      return {
        ...built,
        ...(await postSigned(eventsUrl, asForm(built.payload), state.signingSecret, delivery)),
      };
    },
    async viewSubmission(eventsUrl, input, delivery) {
      const built = payloads.viewSubmission(input);
      const answer = await postSigned(eventsUrl, asForm(built.payload), state.signingSecret, delivery);
      if (answer.status === 200) applyViewAnswer(state, input.viewId, answer.body);
      return { ...built, ...answer };
    },
    socketMode: {
      connected: () => socket.connected(),
      get connections() {
        return socket.connections;
      },
      envelopes: socket.envelopes,
      async send(type, payload) {
        const ack = await socket.send(type, payload);
        if (isViewSubmission(payload)) applyViewAnswer(state, payload.view.id, ack);
        return ack;
      },
      disconnect: (reason) => socket.disconnect(reason),
    },
    serveFilesFrom(origin) {
      state.fileOrigin = origin;
    },
    addChannel(name, { private: isPrivate = false, botIsMember = true, team = state.teamId } = {}) {
      const id = state.nextId("C");
      state.channels.set(id, { id, teamId: state.workspace(team).id, name, isPrivate, botIsMember });
      return id;
    },
    deleteMessage(ts, channel = state.channelId) {
      const at = state.messages.findIndex((m) => m.channel === channel && m.ts === ts);
      if (at < 0) throw new Error(`fake Slack: no message ${ts} in ${channel}`);
      state.messages.splice(at, 1);
    },
    deleteChannel(channel) {
      if (!state.channels.delete(channel)) throw new Error(`fake Slack: no channel ${channel}`);
      for (let i = state.messages.length - 1; i >= 0; i--) {
        if (state.messages[i]!.channel === channel) state.messages.splice(i, 1);
      }
    },
    fail(fault) {
      api.faults.push({ ...fault });
    },
    rateLimit(method, { forMs, ...options }) {
      api.tiers.storm(method, forMs, options);
    },
    restrictUploads(policy, teamId = state.teamId) {
      state.workspace(teamId).uploads = { ...policy };
    },
    rotateTokens,
    expireToken(teamId) {
      const token = state.botTokenOf(teamId);
      const issued = token && state.tokens.get(token);
      if (!issued) throw new Error(`fake Slack: no bot token in ${teamId}`);
      issued.expiresAt = Date.now();
    },
    approveForMarketplace() {
      state.oauthApp.marketplace = true;
    },
    async waitFor(predicate, timeoutMs = 2_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = predicate();
        if (value) return value;
        if (Date.now() > deadline) throw new Error(`fake Slack: waitFor gave up after ${timeoutMs} ms`);
        await sleep(10);
      }
    },
    async close() {
      await socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
