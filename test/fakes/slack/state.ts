import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import type { AnyBlock } from "@slack/types";
import { watched } from "../watch.js";
import { FUNCTION_TOKEN_TTL_MS, type FunctionExecution } from "./functions.js";

/** Slack's documented windows: a trigger_id lives 3 s, a response_url takes 5 posts within 30 min. */
export const TRIGGER_TTL_MS = 3_000;
export const RESPONSE_URL_USES = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60_000;

export interface SlackUser {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  deleted: false;
  is_admin: boolean;
  is_owner: boolean;
  is_primary_owner: boolean;
  is_restricted: false;
  is_ultra_restricted: false;
  is_bot: boolean;
  is_app_user: false;
  tz: string;
  tz_offset: number;
  /**
   * The language the person reads Slack in; users.info gives it only with `include_locale`, and
   * not at all where Slack has none for the account (a test deletes it).
   */
  locale?: string;
  updated: number;
  profile: { real_name: string; display_name: string; image_72: string; bot_id?: string };
}

export interface SlackFile {
  id: string;
  created: number;
  timestamp: number;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  user_team: string;
  size: number;
  mode: "hosted";
  is_external: false;
  is_public: boolean;
  url_private: string;
  url_private_download: string;
  permalink: string;
  channels: string[];
  shares: { public?: Record<string, { ts: string; thread_ts?: string }[]> };
}

export interface Message {
  type: "message";
  channel: string;
  ts: string;
  text: string;
  blocks: AnyBlock[];
  user: string;
  bot_id?: string;
  app_id?: string;
  team: string;
  thread_ts?: string;
  files?: SlackFile[];
  upload?: true;
  edited?: { user: string; ts: string };
  /** A deleted thread parent whose replies stay: Slack shows "This message was deleted." in its place. */
  subtype?: "tombstone";
  /** What the app attached (chat.postMessage `metadata`); conversations.history shows it on request. */
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface EphemeralMessage {
  channel: string;
  /** The one user who sees it. */
  user: string;
  message_ts: string;
  text: string;
  blocks: AnyBlock[];
  thread_ts?: string;
}

export interface SlackView {
  id: string;
  team_id: string;
  type: string;
  title?: unknown;
  submit?: unknown;
  close?: unknown;
  blocks: AnyBlock[];
  private_metadata: string;
  callback_id: string;
  external_id: string;
  state: { values: Record<string, Record<string, unknown>> };
  hash: string;
  clear_on_close: boolean;
  notify_on_close: boolean;
  root_view_id: string;
  previous_view_id: string | null;
  app_id: string;
  app_installed_team_id: string;
  bot_id: string;
  /** Fake-only bookkeeping: who sees the modal and whether it is still on screen. */
  user: string;
  open: boolean;
}

/** An external upload from files.getUploadURLExternal to files.completeUploadExternal. */
export interface Upload {
  fileId: string;
  ticket: string;
  filename: string;
  declaredLength: number;
  /** Set once bytes arrived at the upload URL. */
  received?: { bytes: number; sha256: string; format: "multipart" | "raw"; partName?: string };
  completed: boolean;
  title?: string;
  channel?: string;
  threadTs?: string;
  initialComment?: string;
}

export type FileContent = Uint8Array | (() => Readable);

/** How a file's download fails: deleted meanwhile (404), or Slack's sign-in page (a token without files:read). */
export type FileRefusal = 404 | "sign-in-page";

export interface ResponseUrlPost {
  url: string;
  status: number;
  body: unknown;
  error?: string;
}

export interface ResponseUrl {
  url: string;
  user: string;
  channel: string;
  issuedAt: number;
  uses: number;
  /** The message a block_actions response_url may replace or delete. */
  original?: { ts: string; ephemeral: boolean };
  posts: ResponseUrlPost[];
}

export interface Trigger {
  user: string;
  issuedAt: number;
  used: boolean;
}

export interface StateOptions {
  baseUrl: string;
  triggerTtlMs: number;
  keepUploads: boolean;
}

/**
 * A Slack workspace (team) with the app's bot user in it. Every token acts for one workspace: a
 * call about another workspace's channel, user, file or view fails as it does on Slack
 * (channel_not_found, user_not_found, file_not_found, ...).
 */
export interface Workspace {
  id: string;
  domain: string;
  name: string;
  botUserId: string;
  botId: string;
  /** The channel a workspace starts with; the bot is invited to it. */
  channelId: string;
  /** Members besides the bot: a requester and an admin. */
  userIds: { requester: string; admin: string };
  /** Its user groups (subteams), as usergroups.list answers them; tests add them with addUserGroup. */
  userGroups: UserGroup[];
  /**
   * The bot scopes the app's installation granted here; undefined grants every one. Methods that
   * check theirs (usergroups.list) answer missing_scope without it, as for an app installed
   * before the manifest asked for it.
   */
  grantedScopes?: string[];
  /**
   * How the app came to this workspace: undefined for the app's own workspace (an internal app,
   * the preinstalled `botToken`); "distributed" when a workspace installed it through OAuth and
   * the app is not approved for the Slack Marketplace, which puts conversations.history and
   * conversations.replies at 15 messages a page and (with tiers on) one call a minute.
   */
  distribution?: "distributed";
  /** What the workspace's admins allow of uploads (Settings & permissions > File uploads). */
  uploads?: UploadPolicy;
}

/**
 * A workspace's upload restrictions, each refused at files.getUploadURLExternal (the file's name
 * and length are known there) with the code its method page documents.
 */
export interface UploadPolicy {
  /** Admins turned file uploads off: file_uploads_disabled. */
  disabled?: boolean;
  /** Only images may be uploaded: file_uploads_except_images_disabled. */
  imagesOnly?: boolean;
  /** Files larger than this many bytes: file_upload_size_restricted. */
  maxBytes?: number;
  /** Only these file types (Slack's `filetype`: "png", "mp4", ...): file_type_not_allowed. */
  allowedTypes?: string[];
  /** A free workspace's file storage is full: storage_limit_reached. */
  storageFull?: boolean;
}

/** A user group (`@designers`) as usergroups.list gives it (`users` only with include_users). */
export interface UserGroup {
  id: string;
  team_id: string;
  is_usergroup: true;
  is_subteam: true;
  name: string;
  description: string;
  handle: string;
  is_external: false;
  date_create: number;
  date_update: number;
  /** Disabled groups have their date; usergroups.list leaves them out unless include_disabled. */
  date_delete: number;
  auto_type: null;
  created_by: string;
  updated_by: string;
  deleted_by: string | null;
  prefs: { channels: string[]; groups: string[] };
  /** Its members' user ids; usergroups.list counts them (user_count). */
  users: string[];
}

/**
 * A user group of `workspace` with these members (ids of its users), as an admin makes one in
 * Slack; `disabled` as after "Disable group". Changing `users` later changes the group.
 */
export function addUserGroup(
  workspace: Workspace,
  group: { id: string; handle: string; name?: string; users: string[]; disabled?: boolean },
): UserGroup {
  const now = Math.floor(Date.now() / 1000);
  const made: UserGroup = {
    id: group.id,
    team_id: workspace.id,
    is_usergroup: true,
    is_subteam: true,
    name: group.name ?? group.handle,
    description: "",
    handle: group.handle,
    is_external: false,
    date_create: now,
    date_update: now,
    date_delete: group.disabled ? now : 0,
    auto_type: null,
    created_by: workspace.userIds.admin,
    updated_by: workspace.userIds.admin,
    deleted_by: group.disabled ? workspace.userIds.admin : null,
    prefs: { channels: [], groups: [] },
    users: group.users,
  };
  workspace.userGroups.push(made);
  return made;
}

/** A token Slack issued, and what it acts for. A revoked one answers token_revoked. */
export interface IssuedToken {
  /** "function": a workflow step execution's own token (functions.ts). */
  kind: "bot" | "app" | "function";
  teamId: string;
  revoked: boolean;
  /** A rotating access token answers token_expired from then on (ms since the epoch). */
  expiresAt?: number;
}

/**
 * Token rotation, once on for the app (OAuth & Permissions; it cannot be turned off again): an
 * install hands out an access token that expires (`expires_in`, 12 hours) and a refresh token,
 * which oauth.v2.access (grant_type=refresh_token) trades once for the next pair.
 */
export interface TokenRotation {
  /** Seconds the access tokens issued from now on live; Slack's 43,200 by default. */
  ttlS: number;
  /** Refresh tokens by value; a used one answers invalid_refresh_token. */
  refreshTokens: Map<string, { teamId: string; used: boolean }>;
}

/** Slack's rotating access tokens live 12 hours. */
export const ROTATED_TOKEN_TTL_S = 12 * 60 * 60;

/** The app's OAuth settings (its Basic Information and OAuth & Permissions pages). */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  /** Where Slack may send an installer back; the first is used when the request names none. */
  redirectUrls: string[];
  /** Approved for the Slack Marketplace: its OAuth installs keep Tier 3 history reads. */
  marketplace: boolean;
  /** Set once token rotation is turned on for the app. */
  rotation?: TokenRotation;
}

/** An authorization code from the consent page, traded once at oauth.v2.access. */
export interface Grant {
  teamId: string;
  userId: string;
  scopes: string[];
  redirectUri?: string;
  issuedAt: number;
  used: boolean;
  /** An org-wide (Enterprise Grid) install. */
  orgWide: boolean;
}

/** Slack's codes die after 10 minutes. */
export const GRANT_TTL_MS = 10 * 60_000;

/** A conversation of the workspace; the bot reads and posts per Slack's rules for members and non-members. */
export interface Channel {
  id: string;
  teamId: string;
  name: string;
  isPrivate: boolean;
  /** Invited, or joined with conversations.join. */
  botIsMember: boolean;
  /** A direct message between the bot and this user (conversations.open). */
  imUser?: string;
}

/** Everything the fake workspace knows; methods read and change it, tests inspect it. */
export class SlackState {
  readonly baseUrl: string;
  /** Where files' url_private points (Slack's file host is not its API host); see serveFilesFrom. */
  fileOrigin: string;
  readonly triggerTtlMs: number;
  readonly keepUploads: boolean;
  readonly teamId = "T0MEDIA001";
  readonly teamDomain = "media-bot-fake";
  readonly appId = "A0MEDIAAPP";
  readonly botId = "B0MEDIABOT";
  readonly botUserId = "U0MEDIABOT";
  readonly botToken = "xoxb-1000000001-2000000002-fakeBotTokenValue";
  readonly appToken = "xapp-1-A0MEDIAAPP-3000000003-fakeAppTokenValue";
  readonly signingSecret = "fake0signing0secret0for0tests000";
  readonly verificationToken = "fakeVerificationToken";
  readonly channelId = "C0MEDIA001";
  readonly userIds = { requester: "U0REQUEST1", other: "U0OTHER001", admin: "U0ADMIN001" } as const;
  readonly channels = new Map<string, Channel>([
    [
      this.channelId,
      { id: this.channelId, teamId: this.teamId, name: "media", isPrivate: false, botIsMember: true },
    ],
  ]);
  readonly workspaces = new Map<string, Workspace>([
    [
      this.teamId,
      {
        id: this.teamId,
        domain: this.teamDomain,
        name: "Media Bot Fake Workspace",
        botUserId: this.botUserId,
        botId: this.botId,
        channelId: this.channelId,
        userIds: { requester: this.userIds.requester, admin: this.userIds.admin },
        userGroups: [],
      },
    ],
  ]);
  /** The first workspace has the app installed already, with `botToken` (the single-token mode). */
  readonly tokens = new Map<string, IssuedToken>([
    [this.botToken, { kind: "bot", teamId: this.teamId, revoked: false }],
    [this.appToken, { kind: "app", teamId: this.teamId, revoked: false }],
  ]);
  readonly oauthApp: OAuthApp = {
    clientId: "1000000001.4000000004",
    clientSecret: "fake0client0secret0for0tests0000",
    redirectUrls: [],
    marketplace: false,
  };
  readonly grants = new Map<string, Grant>();
  /** Workflow step executions, by function_execution_id (functions.ts). */
  readonly executions = new Map<string, FunctionExecution>();
  functionTokenTtlMs = FUNCTION_TOKEN_TTL_MS;
  readonly users = new Map<string, SlackUser>();
  readonly messages: Message[] = [];
  readonly ephemerals: EphemeralMessage[] = [];
  readonly views = new Map<string, SlackView>();
  /** Each user's App Home tab as last published (views.publish), by user id. */
  readonly homes = new Map<string, SlackView>();
  readonly files = new Map<string, SlackFile>();
  readonly fileContents = new Map<string, FileContent>();
  /** Files whose download fails as asked (see addUserFile's `download`), by file id. */
  readonly fileRefusals = new Map<string, FileRefusal>();
  readonly uploads = new Map<string, Upload>();
  /**
   * How long Slack processes a file after files.completeUploadExternal (its malware scan, its
   * thumbnails): meanwhile files.info shows it without a mimetype and an image block naming it is
   * refused (invalid_blocks). Default 0: ready at once.
   */
  fileProcessingMs = 0;
  /** When each uploaded file finishes processing (ms since the epoch), by file id. */
  readonly fileReadyAt = new Map<string, number>();
  readonly triggers = new Map<string, Trigger>();
  readonly responseUrls = new Map<string, ResponseUrl>();
  readonly responseUrlPosts: ResponseUrlPost[] = [];
  readonly socketTickets = new Set<string>();
  private counter = 0;
  private lastMicros = 0;

  constructor(opts: StateOptions) {
    this.baseUrl = opts.baseUrl;
    this.fileOrigin = opts.baseUrl;
    this.triggerTtlMs = opts.triggerTtlMs;
    this.keepUploads = opts.keepUploads;
    for (const [id, name, role] of [
      [this.userIds.requester, "requester", "member"],
      [this.userIds.other, "other", "member"],
      [this.userIds.admin, "admin", "admin"],
      [this.botUserId, "mediabot", "bot"],
    ] as const) {
      this.users.set(id, this.user(id, name, role, this.teamId));
    }
  }

  /** The bot's DM with `user`, opened once and the same afterwards, as Slack's conversations.open does. */
  openIm(user: string, teamId: string): { channel: Channel; already: boolean } {
    const open = [...this.channels.values()].find((c) => c.imUser === user);
    if (open) return { channel: open, already: true };
    const channel = {
      id: this.nextId("D"),
      teamId,
      name: user,
      isPrivate: true,
      botIsMember: true,
      imUser: user,
    };
    this.channels.set(channel.id, channel);
    return { channel, already: false };
  }

  /** Another member of a workspace (several users, so that per-user job limits stay out of the way). */
  addUser(name: string, teamId = this.teamId): SlackUser {
    const user = this.user(this.nextId("U"), name, "member", teamId);
    this.users.set(user.id, user);
    return user;
  }

  /** Another workspace, with a channel, a requester, an admin and the app's bot user; nothing installed. */
  addWorkspace(name: string): Workspace {
    const id = this.nextId("T");
    const [requester, admin, botUser] = [this.nextId("U"), this.nextId("U"), this.nextId("U")];
    const workspace: Workspace = {
      id,
      domain: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
      name,
      botUserId: botUser,
      botId: this.nextId("B"),
      channelId: this.nextId("C"),
      userIds: { requester, admin },
      userGroups: [],
    };
    this.workspaces.set(id, workspace);
    this.channels.set(workspace.channelId, {
      id: workspace.channelId,
      teamId: id,
      name: "general",
      isPrivate: false,
      botIsMember: true,
    });
    this.users.set(requester, this.user(requester, "requester", "member", id));
    this.users.set(admin, this.user(admin, "admin", "admin", id));
    this.users.set(botUser, this.user(botUser, "mediabot", "bot", id, workspace.botId));
    return workspace;
  }

  workspace(teamId: string): Workspace {
    const workspace = this.workspaces.get(teamId);
    if (!workspace) throw new Error(`fake Slack: no workspace ${teamId}`);
    return workspace;
  }

  /** The workspace a channel belongs to. */
  workspaceOf(channelId: string): Workspace {
    const channel = this.channels.get(channelId);
    if (!channel) throw new Error(`fake Slack: no channel ${channelId}`);
    return this.workspace(channel.teamId);
  }

  /** Whether a file exists and Slack finished processing it, so that a block may show it. */
  fileShowable(id: string): boolean {
    return this.files.has(id) && (this.fileReadyAt.get(id) ?? 0) <= Date.now();
  }

  /**
   * Installs the app in a workspace through OAuth (oauth.v2.access): its live bot token, or a new
   * one; with token rotation, a new expiring one and the refresh token that renews it.
   */
  installApp(teamId: string): { token: string; refreshToken?: string; expiresInS?: number } {
    const workspace = this.workspace(teamId);
    if (!this.oauthApp.marketplace && teamId !== this.teamId) workspace.distribution = "distributed";
    const live = this.botTokenOf(teamId);
    if (live && !this.oauthApp.rotation) return { token: live };
    return this.issueBotToken(teamId);
  }

  /** A new bot token for a workspace (rotating, with its refresh token, once rotation is on). */
  issueBotToken(teamId: string): { token: string; refreshToken?: string; expiresInS?: number } {
    const rotation = this.oauthApp.rotation;
    if (!rotation) {
      const token = `xoxb-${this.secret(5)}-${this.secret(5)}-${this.secret(12)}`;
      this.tokens.set(token, { kind: "bot", teamId, revoked: false });
      return { token };
    }
    const token = `xoxe.xoxb-1-${this.secret(12)}`;
    const refreshToken = `xoxe-1-${this.secret(16)}`;
    this.tokens.set(token, {
      kind: "bot",
      teamId,
      revoked: false,
      expiresAt: Date.now() + rotation.ttlS * 1000,
    });
    rotation.refreshTokens.set(refreshToken, { teamId, used: false });
    return { token, refreshToken, expiresInS: rotation.ttlS };
  }

  /** The app's tokens in a workspace stop working (uninstall, or an admin revoking them). */
  revokeTokens(teamId: string): void {
    for (const issued of this.tokens.values())
      if (issued.kind === "bot" && issued.teamId === teamId) issued.revoked = true;
  }

  /** The newest bot token the app holds in a workspace, if it is installed there. */
  botTokenOf(teamId: string): string | undefined {
    let newest: string | undefined;
    for (const [token, issued] of this.tokens)
      if (issued.kind === "bot" && issued.teamId === teamId && !issued.revoked) newest = token;
    return newest;
  }

  /** Slack ids are an uppercase type letter and base-36 digits. */
  nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}0${this.counter.toString(36).toUpperCase().padStart(8, "0")}`;
  }

  /** Message timestamps are "seconds.micros", unique and increasing within a workspace. */
  nextTs(): string {
    const micros = Math.max(Date.now() * 1000, this.lastMicros + 1);
    this.lastMicros = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, "0")}`;
  }

  secret(bytes = 16): string {
    return randomBytes(bytes).toString("hex");
  }

  issueTrigger(user: string): string {
    const id = `${Date.now()}.1000000001.${this.secret()}`;
    this.triggers.set(id, { user, issuedAt: Date.now(), used: false });
    return id;
  }

  issueResponseUrl(
    kind: "commands" | "actions",
    user: string,
    channel: string,
    original?: ResponseUrl["original"],
  ): ResponseUrl {
    const team = this.workspaceOf(channel).id;
    const url = `${this.baseUrl}/${kind}/${team}/${Date.now()}/${this.secret(12)}`;
    const entry: ResponseUrl = { url, user, channel, issuedAt: Date.now(), uses: 0, original, posts: [] };
    this.responseUrls.set(new URL(url).pathname, entry);
    return entry;
  }

  findMessage(channel: string, ts: string): Message | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  /**
   * A message deleted: gone, or a tombstone while replies of its thread stay (Slack keeps a
   * thread's replies, and shows "This message was deleted." in the parent's place).
   */
  deleteMessage(message: Message): void {
    const replies = this.messages.some(
      (m) => m.channel === message.channel && m.thread_ts === message.ts && m.ts !== message.ts,
    );
    if (replies) {
      Object.assign(message, { subtype: "tombstone", text: "This message was deleted.", blocks: [] });
      delete message.files;
      return;
    }
    this.messages.splice(this.messages.indexOf(message), 1);
    // The last reply of a deleted parent's thread gone: the tombstone goes with it.
    const parent =
      message.thread_ts === undefined ? undefined : this.findMessage(message.channel, message.thread_ts);
    if (parent?.subtype === "tombstone") this.deleteMessage(parent);
  }

  /** A file deleted, and the messages that only shared it with it. */
  deleteFile(id: string): void {
    this.files.delete(id);
    for (const message of this.messages.filter((m) => m.files?.some((f) => f.id === id))) {
      message.files = message.files!.filter((f) => f.id !== id);
      if (message.upload && message.files.length === 0 && !message.text) this.deleteMessage(message);
    }
  }

  findEphemeral(ts: string): EphemeralMessage | undefined {
    return this.ephemerals.find((m) => m.message_ts === ts);
  }

  postMessage(
    channel: string,
    fields: Pick<Message, "text" | "blocks"> &
      Partial<Pick<Message, "thread_ts" | "files" | "upload" | "metadata">>,
  ): Message {
    const workspace = this.workspaceOf(channel);
    const message: Message = {
      type: "message",
      channel,
      ts: this.nextTs(),
      user: workspace.botUserId,
      bot_id: workspace.botId,
      app_id: this.appId,
      team: workspace.id,
      ...fields,
    };
    if (message.thread_ts === undefined) delete message.thread_ts;
    if (message.metadata === undefined) delete message.metadata;
    this.messages.push(message);
    return message;
  }

  /** A member's own message (no bot_id): text and the files they shared with it. */
  postUserMessage(
    channel: string,
    user: string,
    fields: Pick<Message, "text"> & Pick<Message, "files">,
  ): Message {
    const message: Message = {
      type: "message",
      channel,
      ts: this.nextTs(),
      user,
      team: this.workspaceOf(channel).id,
      text: fields.text,
      blocks: [],
      ...(fields.files?.length ? { files: fields.files, upload: true as const } : {}),
    };
    for (const file of fields.files ?? []) {
      file.channels = [channel];
      file.shares = { public: { [channel]: [{ ts: message.ts }] } };
    }
    this.messages.push(message);
    return message;
  }

  postEphemeral(fields: Omit<EphemeralMessage, "message_ts">): EphemeralMessage {
    const message = { ...fields, message_ts: this.nextTs() };
    this.ephemerals.push(message);
    return message;
  }

  private user(
    id: string,
    name: string,
    role: "member" | "admin" | "bot",
    teamId: string,
    botId = this.botId,
  ): SlackUser {
    const realName = `${name[0]?.toUpperCase()}${name.slice(1)} Person`;
    return {
      id,
      team_id: teamId,
      name,
      real_name: realName,
      deleted: false,
      is_admin: role === "admin",
      is_owner: role === "admin",
      is_primary_owner: false,
      is_restricted: false,
      is_ultra_restricted: false,
      is_bot: role === "bot",
      is_app_user: false,
      tz: "Europe/Berlin",
      tz_offset: 3600,
      locale: watched.locale() ?? "en-US",
      updated: 1_700_000_000,
      profile: {
        real_name: realName,
        display_name: name,
        image_72: `${this.baseUrl}/avatars/${id}.png`,
        ...(role === "bot" ? { bot_id: botId } : {}),
      },
    };
  }
}
