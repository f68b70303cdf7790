import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type APIApplicationCommand,
  type APIAttachment,
  type APIGroupDMChannel,
  type APIMessage,
  type APIRole,
  type APITextChannel,
  type APIUser,
  ChannelType,
  OverwriteType,
} from "discord-api-types/v10";
import { CDN_PREFIX, type CdnFault, serveAttachment } from "./cdn.js";
import { type Clock, createClock } from "./clock.js";
import { createInteractionsEndpoint, type SignatureHeaders } from "./endpoint.js";
import { Gateway, type GatewayFrame, type ShardKey, shardOf } from "./gateway.js";
import { createIds } from "./ids.js";
import { createInjector, type FakeFile, type Injector } from "./inject.js";
import { createMessage, type MessageBody } from "./messages.js";
import { guildCreatePayload, readyPayload } from "./payloads.js";
import { createRateLimits } from "./ratelimit.js";
import { API_PREFIX, createRestHandler, type Fault, type RestCall, type ValidationError } from "./rest.js";
import { appRoutes } from "./routes/app.js";
import { channelRoutes } from "./routes/channels.js";
import { commandRoutes } from "./routes/commands.js";
import { directoryRoutes } from "./routes/directory.js";
import { interactionRoutes } from "./routes/interactions.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { type CallbackRecord, type InteractionRecord, type Nitro, UPLOAD_LIMITS, World } from "./state.js";

export type { SignatureHeaders } from "./endpoint.js";
export type { GatewayFrame, ShardKey } from "./gateway.js";
export { shardOf } from "./gateway.js";
export type {
  AutocompleteInput,
  CommandInput,
  FakeFile,
  InjectedInteraction,
  OptionValue,
} from "./inject.js";
export type { Fault, RestCall, ValidationError } from "./rest.js";
export { FIRST_RESPONSE_MS } from "./routes/interactions.js";
export { TOKEN_LIFETIME_MS } from "./routes/webhooks.js";
export type { CallbackRecord, InteractionRecord, Nitro } from "./state.js";
export { UPLOAD_LIMITS } from "./state.js";
export type { Issue } from "./validate.js";

export const DEFAULT_ATTACHMENT_SIZE_LIMIT = UPLOAD_LIMITS.default;
/** Discord's cap on a whole request, whatever the per-file limit. */
export const REQUEST_SIZE_LIMIT = 25 * 1024 * 1024;

export interface FakeDiscordOptions {
  /** Time source of the fake's clock; `clock.advance` moves on from it. Default Date.now. */
  now?: () => number;
  /**
   * Per-file upload limit of everyone without more (Nitro, a boosted server): the bot's own, and
   * the interactions' attachment_size_limit of people without Nitro. Default 10 MiB.
   */
  attachmentSizeLimit?: number;
  /** Answer every Nth REST call (interaction callbacks excepted) with 429 + Retry-After; 0 = never. */
  rateLimitEvery?: number;
  /** Retry-After of those 429s. Default 50 ms, so discord.js's retry costs a test little time. */
  retryAfterMs?: number;
  /** HELLO's heartbeat_interval. Default 41250 ms, Discord's. */
  heartbeatIntervalMs?: number;
  /** GET /gateway/bot's `shards`, the count `DISCORD_SHARDS=auto` takes. Default 1. */
  recommendedShards?: number;
  /**
   * GET /gateway/bot's `session_start_limit.max_concurrency`: shards that may IDENTIFY at once
   * (discord.js waits 5 s between the others). Default 1, as for most bots.
   */
  maxConcurrency?: number;
}

export interface FakeDiscord {
  /** For discord.js `rest: { api: restUrl }` and DISCORD_REST_URL: http://127.0.0.1:PORT/api */
  restUrl: string;
  /** What GET /gateway/bot and READY's resume_gateway_url point at. */
  gatewayUrl: string;
  /** The bot token the fake accepts (REST: `Bot <token>`; gateway IDENTIFY). */
  token: string;
  applicationId: string;
  botUser: APIUser;
  guild: { id: string; name: string };
  channel: APITextChannel;
  roles: { everyone: APIRole; admin: APIRole };
  /** Members of the seeded guild; `admin` holds the role with MANAGE_GUILD. */
  users: { requester: APIUser; other: APIUser; admin: APIUser };
  clock: Clock;
  attachmentSizeLimit: number;
  /** The application's Public Key (hex), for DISCORD_PUBLIC_KEY; GET /applications/@me gives it as verify_key. */
  publicKey: string;

  /**
   * The Interactions Endpoint URL, as saved in the Developer Portal: Discord first checks that the
   * URL answers a signed PING with PONG and a bad signature with 401 (this rejects otherwise).
   * While set, every interaction is POSTed there, signed, and no longer sent on the gateway;
   * the bot's answers are judged like Discord does (see endpoint.ts). undefined: back to the gateway.
   */
  setInteractionsEndpoint(url: string | undefined): Promise<void>;
  /** Resolves once every interaction POSTed to the endpoint is judged (a 202 before its callback: at its deadline). */
  settled(): Promise<void>;
  /** The signature headers Discord puts on a request with this body (timestamp: now, in seconds). */
  signatureHeaders(body: string, timestamp?: string): SignatureHeaders;

  sendCommand: Injector["sendCommand"];
  sendAutocomplete: Injector["sendAutocomplete"];
  useMessageCommand: Injector["useMessageCommand"];
  clickButton: Injector["clickButton"];
  selectMenu: Injector["selectMenu"];
  submitModal: Injector["submitModal"];

  /** Every REST request, in arrival order. */
  calls: RestCall[];
  gatewayFrames: GatewayFrame[];
  /** Bodies Discord would refuse, routes the fake lacks, and faults of the fake itself. */
  validationErrors: ValidationError[];
  assertNoValidationErrors(): void;

  interaction(interactionId: string): InteractionRecord | undefined;
  callbacks(interactionId: string): CallbackRecord[];
  /** The message `@original` stands for, once the interaction has one. */
  original(interactionId: string): APIMessage | undefined;
  followups(interactionId: string): APIMessage[];
  /** Current messages of a channel (the seeded one by default), oldest first, ephemeral ones included. */
  messages(channelId?: string): APIMessage[];
  message(messageId: string): APIMessage | undefined;
  /** The bot's DM channel with a user, opened if need be (the one POST /users/@me/channels gives). */
  dmChannel(userId: string): string;
  /** Bytes of an attachment the fake stores, by attachment, id or URL. */
  file(attachment: APIAttachment | string): Buffer | undefined;
  /** Registered commands: global ones, or a guild's. */
  commands(guildId?: string): APIApplicationCommand[];
  /** Resolves with the first truthy value of `check`, polled every few milliseconds. */
  waitFor<T>(check: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;

  gateway: {
    readonly connected: boolean;
    /** `[id, count]` of each shard with a session, by id. */
    readonly shards: ShardKey[];
    skipHeartbeatAcks(count: number): void;
    /** op 7 to one shard (0 by default). */
    requestReconnect(shardId?: number): Promise<void>;
  };
  /** A member of the seeded guild; `locale`: the language of their Discord client (en-US). */
  addUser(username: string, options?: { admin?: boolean; locale?: string }): APIUser;
  /** A person switches their Discord client to `locale`: their next interactions carry it. */
  setLocale(userId: string, locale: string): void;
  /**
   * A member posts in a channel (the seeded one by default): files become attachments; a link
   * becomes the embed Discord's link preview makes, its image served through Discord's media
   * proxy (`proxy_url`, here the fake's own file host). The bot gets no event (no message intents).
   */
  postAsUser(input: {
    user?: APIUser;
    channelId?: string;
    content?: string;
    files?: FakeFile[];
    links?: { url: string; image: FakeFile }[];
  }): APIMessage;
  /**
   * A second tenant: a guild with its own channel and the seeded users, announced with GUILD_CREATE
   * if the bot is connected. `bot: false`: a server that never added the bot; it gets no event,
   * its channel routes answer 403 Missing Access, and only people's own installs reach it.
   */
  addGuild(
    name: string,
    options?: { bot?: boolean },
  ): Promise<{ guild: { id: string; name: string }; channel: APITextChannel }>;
  /** A group DM of these people (not the bot: its channel routes answer 403 Missing Access). */
  addGroupDm(users: (APIUser | string)[]): APIGroupDMChannel;
  /**
   * The person adds the app to their own account (a user install): the commands whose
   * integration_types include it then reach them in DMs, group DMs and servers without the bot,
   * and their interactions carry `authorizing_integration_owners["1"]`.
   */
  installForUser(user: APIUser | string): void;
  /**
   * The person's Nitro from now on: interactions they start carry the larger
   * `attachment_size_limit` (Nitro Basic 50 MiB, Nitro 500 MiB) and take that much through their
   * token. The bot's own uploads never do.
   */
  setNitro(user: APIUser | string, nitro: Nitro): void;
  /**
   * The server reaches boost level `tier` (0-3), announced with GUILD_UPDATE: level 2 lets anyone
   * there, the bot too, upload 50 MiB per file, level 3 100 MiB.
   */
  boostGuild(guildId: string, tier: 0 | 1 | 2 | 3): Promise<void>;
  /** A text channel in the seeded guild, announced with CHANNEL_CREATE. */
  addChannel(name: string): Promise<APITextChannel>;
  /**
   * What a member with Manage Messages (or the requester, for a reply to them) does: the message
   * is gone for every route, which then answer 404 Unknown Message. The bot's Guilds intent gets
   * no MESSAGE_DELETE, as on Discord.
   */
  deleteMessage(messageId: string): void;
  /** An admin deletes a channel and its messages (routes answer 404 Unknown Channel); CHANNEL_DELETE follows. */
  deleteChannel(channelId: string): Promise<void>;
  /**
   * An admin's permission overwrite on a channel, as PUT /channels/{id}/permissions/{overwrite_id}
   * sets it (replacing one with the same id); CHANNEL_UPDATE follows. Denying the bot View
   * Channel makes its channel routes answer 403 Missing Access, denying Send Messages makes its
   * posts answer 403 Missing Permissions.
   */
  overwritePermissions(
    channelId: string,
    overwrite: { id: string; type: "role" | "member"; allow?: bigint; deny?: bigint },
  ): Promise<void>;
  /**
   * An outage or refusal on demand: the next `times` (default 1) requests whose method and
   * decoded path match get `status` with Discord's error envelope (`{message, code}`), before
   * the route runs, so nothing changes. discord.js retries a 5xx three times: `times: 4`
   * makes one call fail.
   */
  fail(fault: Fault): void;
  /** The attachment host refusing on demand: the next `times` (default 1) downloads answer `status`. */
  failAttachments(fault: CdnFault): void;
  close(): Promise<void>;
}

const POLL_MS = 5;

/**
 * Each file's limit, by the credential that uploads: through an interaction's token (its callback,
 * its webhook) the interaction's `attachment_size_limit`; with the bot token, what the place lets
 * anyone upload (the bot has no Nitro).
 */
function uploadLimitOf(world: World, route: string, params: Record<string, string>): number {
  if (route.startsWith("/interactions/") || route.startsWith("/webhooks/")) {
    const interaction = params.interaction_id
      ? world.interactions.get(params.interaction_id)
      : world.interactionByToken(params.webhook_token ?? "");
    const limit = (interaction?.payload as { attachment_size_limit?: number } | undefined)
      ?.attachment_size_limit;
    return limit ?? world.attachmentSizeLimit;
  }
  if (params.channel_id && world.channels.has(params.channel_id))
    return world.placeUploadLimit(params.channel_id);
  return world.attachmentSizeLimit;
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const clock = createClock(options.now);
  const ids = createIds(clock.now);
  const attachmentSizeLimit = options.attachmentSizeLimit ?? DEFAULT_ATTACHMENT_SIZE_LIMIT;
  const calls: RestCall[] = [];
  const gatewayFrames: GatewayFrame[] = [];
  const validationErrors: ValidationError[] = [];
  const faults: Fault[] = [];
  const cdnFaults: CdnFault[] = [];

  // Listening first gives the port the seeded URLs need; nobody can call before this function returns.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gatewayUrl = origin.replace(/^http/, "ws");

  const world = new World(ids, clock, origin, attachmentSizeLimit);
  const owner = world.addUser("owner");
  const seededGuild = world.addGuild("Fake Guild", owner.id);
  const users = {
    requester: world.addUser("requester"),
    other: world.addUser("other"),
    admin: world.addUser("admin"),
  };
  world.addMember(seededGuild.id, users.requester.id);
  world.addMember(seededGuild.id, users.other.id);
  world.addMember(seededGuild.id, users.admin.id, [world.adminRole(seededGuild.id).id]);
  const channel = world.channels.get(seededGuild.channelIds[0]!) as APITextChannel;
  const token = `${Buffer.from(world.botUser.id).toString("base64url")}.FakeDc.${"x".repeat(38)}`;

  const guildsOf = ([id, count]: ShardKey) =>
    [...world.guilds.values()]
      .filter((guild) => guild.members.has(world.botUser.id) && shardOf(guild.id, count) === id)
      .map((guild) => guild.id);
  const gateway = new Gateway({
    token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    ready: (sessionId, shard) => readyPayload(world, sessionId, gatewayUrl, shard, guildsOf(shard)),
    guilds: (shard) => guildsOf(shard).map((id) => guildCreatePayload(world, id)),
    onFrame: (frame) => gatewayFrames.push(frame),
  });
  server.on("upgrade", (req, socket, head) => gateway.handleUpgrade(req, socket, head));

  const rest = createRestHandler({
    world,
    clock,
    token,
    gatewayUrl,
    routes: [
      ...appRoutes({ shards: options.recommendedShards ?? 1, maxConcurrency: options.maxConcurrency ?? 1 }),
      ...commandRoutes,
      ...interactionRoutes,
      ...webhookRoutes,
      ...channelRoutes,
      ...directoryRoutes,
    ],
    rateLimits: createRateLimits({
      every: options.rateLimitEvery ?? 0,
      retryAfterMs: options.retryAfterMs ?? 50,
    }),
    faults,
    limits: (route, params) => {
      const perFile = uploadLimitOf(world, route, params);
      // Discord documents 25 MiB per request, from before per-file limits could pass it.
      return { perFile, request: Math.max(REQUEST_SIZE_LIMIT, perFile) };
    },
    onCall: (call) => calls.push(call),
    onValidationError: (error) => validationErrors.push(error),
  });
  server.on("request", (req, res) => {
    const path = req.url ?? "/";
    if (path.startsWith(`${API_PREFIX}/`)) void rest(req, res);
    else if (path.startsWith(CDN_PREFIX)) serveAttachment(world, cdnFaults, req, res);
    else
      res
        .writeHead(404, { "Content-Type": "application/json" })
        .end(JSON.stringify({ message: "404: Not Found", code: 0 }));
  });

  const endpoint = createInteractionsEndpoint({
    world,
    clock,
    gatewayUrl,
    onValidationError: (error) => validationErrors.push(error),
  });
  world.verifyKey = endpoint.publicKey;

  const injector = createInjector({
    world,
    clock,
    defaultUserId: users.requester.id,
    defaultChannelId: channel.id,
    // Receiving interactions over HTTP or the gateway are exclusive, as on Discord.
    dispatch: async (payload) =>
      endpoint.url
        ? endpoint.deliver(payload)
        : gateway.dispatch("INTERACTION_CREATE", payload, payload.guild_id),
  });

  const interactionOrThrow = (id: string) => {
    const interaction = world.interactions.get(id);
    if (!interaction) throw new Error(`fake Discord: no interaction ${id}`);
    return interaction;
  };

  return {
    restUrl: `${origin}/api`,
    gatewayUrl,
    token,
    applicationId: world.applicationId,
    botUser: world.botUser,
    guild: { id: seededGuild.id, name: seededGuild.name },
    channel,
    roles: { everyone: seededGuild.roles[0]!, admin: world.adminRole(seededGuild.id) },
    users,
    clock,
    attachmentSizeLimit,
    publicKey: endpoint.publicKey,
    setInteractionsEndpoint: (url) => endpoint.set(url),
    settled: () => endpoint.settled(),
    signatureHeaders: (body, timestamp) => endpoint.signatureHeaders(body, timestamp),

    sendCommand: injector.sendCommand,
    sendAutocomplete: injector.sendAutocomplete,
    useMessageCommand: injector.useMessageCommand,
    clickButton: injector.clickButton,
    selectMenu: injector.selectMenu,
    submitModal: injector.submitModal,

    calls,
    gatewayFrames,
    validationErrors,
    assertNoValidationErrors() {
      if (!validationErrors.length) return;
      const lines = validationErrors.map(
        (e) =>
          `${e.kind} ${e.method} ${e.path}${e.schema ? ` [${e.schema}]` : ""}: ` +
          e.issues.map((i) => `${i.path || "(body)"}: ${i.message}`).join("; "),
      );
      throw new Error(`fake Discord refused ${validationErrors.length} request(s):\n${lines.join("\n")}`);
    },

    interaction: (id) => world.interactions.get(id),
    callbacks: (id) => interactionOrThrow(id).callbacks,
    original(id) {
      const messageId = interactionOrThrow(id).originalMessageId;
      return messageId ? world.messages.get(messageId) : undefined;
    },
    followups: (id) => interactionOrThrow(id).followupIds.flatMap((m) => world.messages.get(m) ?? []),
    messages: (channelId = channel.id) =>
      [...world.messages.values()].filter((m) => m.channel_id === channelId),
    message: (id) => world.messages.get(id),
    dmChannel: (userId) => world.dmChannel(userId).id,
    file(attachment) {
      const key = typeof attachment === "string" ? attachment : attachment.id;
      const id = /\/attachments\/\d+\/(\d+)\//.exec(key)?.[1] ?? key;
      return world.files.get(id)?.data;
    },
    commands: (guildId) => [
      ...(guildId ? (world.guildCommands.get(guildId)?.values() ?? []) : world.globalCommands.values()),
    ],
    waitFor<T>(check: () => T | undefined | null | false, timeoutMs = 2000): Promise<T> {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => {
          let value: T | undefined | null | false;
          try {
            value = check();
          } catch (error) {
            return reject(error);
          }
          if (value) return resolve(value);
          if (Date.now() - started >= timeoutMs) {
            const recent = calls.slice(-5).map((c) => `${c.method} ${c.path} -> ${c.status}`);
            return reject(
              new Error(
                `waitFor timed out after ${timeoutMs} ms; last REST calls: ${recent.join(", ") || "none"}`,
              ),
            );
          }
          setTimeout(poll, POLL_MS);
        };
        poll();
      });
    },

    gateway: {
      get connected() {
        return gateway.connected;
      },
      get shards() {
        return gateway.shards;
      },
      skipHeartbeatAcks: (count) => gateway.skipHeartbeatAcks(count),
      requestReconnect: (shardId) => gateway.requestReconnect(shardId),
    },
    addUser(username, { admin = false, locale } = {}) {
      const user = world.addUser(username);
      if (locale) world.locales.set(user.id, locale);
      world.addMember(seededGuild.id, user.id, admin ? [world.adminRole(seededGuild.id).id] : []);
      return user;
    },
    setLocale(userId, locale) {
      world.locales.set(userId, locale);
    },
    async addGuild(name, { bot = true } = {}) {
      const guild = world.addGuild(name, owner.id, { bot });
      world.addMember(guild.id, users.requester.id);
      world.addMember(guild.id, users.other.id);
      world.addMember(guild.id, users.admin.id, [world.adminRole(guild.id).id]);
      if (bot && gateway.hasSession)
        await gateway.dispatch("GUILD_CREATE", guildCreatePayload(world, guild.id), guild.id);
      return {
        guild: { id: guild.id, name },
        channel: world.channels.get(guild.channelIds[0]!) as APITextChannel,
      };
    },
    addGroupDm: (members) => world.addGroupDm(members.map((u) => (typeof u === "string" ? u : u.id))),
    installForUser(user) {
      world.userInstalls.add(world.user(typeof user === "string" ? user : user.id).id);
    },
    setNitro(user, nitro) {
      const id = world.user(typeof user === "string" ? user : user.id).id;
      if (nitro === "none") world.nitro.delete(id);
      else world.nitro.set(id, nitro);
    },
    async boostGuild(guildId, tier) {
      world.guild(guildId).premiumTier = tier;
      if (gateway.hasSession) {
        const { channels: _c, members: _m, ...guild } = guildCreatePayload(world, guildId);
        await gateway.dispatch("GUILD_UPDATE", guild, guildId);
      }
    },
    async addChannel(name) {
      const created = world.addChannel(seededGuild.id, name);
      if (gateway.hasSession) await gateway.dispatch("CHANNEL_CREATE", created, seededGuild.id);
      return created;
    },
    postAsUser({ user = users.requester, channelId = channel.id, content = "", files = [], links = [] }) {
      const buffer = (file: FakeFile) => Buffer.from(file.data);
      const embeds = links.map(({ url, image }) => {
        const proxied = world.storeFile(channelId, {
          filename: image.name,
          contentType: image.contentType ?? "application/octet-stream",
          data: buffer(image),
        });
        return { type: "image", url, image: { url, proxy_url: proxied.url, width: 64, height: 64 } };
      });
      return createMessage(world, {
        channelId,
        author: world.user(user.id),
        body: {
          content: [content, ...links.map((l) => l.url)].join(" ").trim(),
          embeds: embeds as MessageBody["embeds"],
        },
        files: files.map((file, index) => ({
          field: `files[${index}]`,
          index,
          filename: file.name,
          contentType: file.contentType ?? "application/octet-stream",
          size: buffer(file).length,
          data: buffer(file),
        })),
        type: 0,
      });
    },
    deleteMessage(messageId) {
      if (!world.messages.delete(messageId)) throw new Error(`fake Discord: no message ${messageId}`);
    },
    async deleteChannel(channelId) {
      const deleted = world.deleteChannel(channelId);
      if (gateway.hasSession)
        await gateway.dispatch(
          "CHANNEL_DELETE",
          deleted,
          "guild_id" in deleted ? deleted.guild_id : undefined,
        );
    },
    async overwritePermissions(channelId, { id, type, allow = 0n, deny = 0n }) {
      const target = world.channels.get(channelId);
      if (target?.type !== ChannelType.GuildText)
        throw new Error(`fake Discord: no guild channel ${channelId}`);
      const overwrite = {
        id,
        type: type === "role" ? OverwriteType.Role : OverwriteType.Member,
        allow: String(allow),
        deny: String(deny),
      };
      target.permission_overwrites = [
        ...(target.permission_overwrites ?? []).filter((o) => o.id !== id),
        overwrite,
      ];
      if (gateway.hasSession) await gateway.dispatch("CHANNEL_UPDATE", target, target.guild_id);
    },
    failAttachments(fault) {
      cdnFaults.push({ ...fault });
    },
    fail(fault) {
      faults.push({ ...fault });
    },
    async close() {
      await endpoint.settled();
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
