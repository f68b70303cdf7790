import { isIP } from "node:net";
import { z } from "zod";
import { CodedError } from "../../common/coded-error.js";
import type { RedisNode } from "../../store/index.js";
import { mediaOrigin } from "../api/http.js";
import { addSecret, redactText } from "../base/redact.js";
import { DEFAULT_RATE_LIMITS, type RateLimits } from "../intake/rates.js";
import { EVERY_SERVER, type SharedKeyTenants } from "../tenancy/tenancy.js";

/**
 * The configuration contract of DESIGN.md, read from the environment. Every problem is reported
 * as one line naming the variable, because this is the first thing a newcomer sees after `npm start`.
 */

const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

function shaped(pattern: RegExp, message: string) {
  return optionalText.refine((v) => v === undefined || pattern.test(v), message);
}

const httpUrl = z
  .string()
  .trim()
  .refine((v) => /^https?:\/\/[^\s/]+/.test(v) && URL.canParse(v), "must be an http(s) URL");

const storeUrl = z
  .string()
  .trim()
  .refine(
    (v) => /^(sqlite:\/\/.+|rediss?:\/\/.+)$/.test(v),
    "must be sqlite://<path> or redis://<host>:<port>",
  );

/** `host:port` of each sentinel, separated by commas; the port defaults to Sentinel's 26379. */
const sentinels = z
  .string()
  .trim()
  .transform((v, ctx): RedisNode[] => {
    const nodes: RedisNode[] = [];
    for (const item of v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [, bracketed, plain, port] = /^(?:\[([^\]]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(item) ?? [];
      const host = bracketed ?? plain;
      const number = port === undefined ? 26379 : Number(port);
      if (!host || number < 1 || number > 65535) {
        ctx.addIssue({
          code: "custom",
          message: `must be host:port of each sentinel, separated by commas (not "${item}")`,
        });
        return z.NEVER;
      }
      nodes.push({ host, port: number });
    }
    if (nodes.length === 0) {
      ctx.addIssue({ code: "custom", message: "must name at least one sentinel as host:port" });
      return z.NEVER;
    }
    return nodes;
  });

/** "*", or guild, team and (Discord) user ids separated by commas; unset: none (docs/security.md says why). */
const keyTenants = z
  .string()
  .trim()
  .transform(
    (v): SharedKeyTenants =>
      v
        .split(",")
        .map((id) => id.trim())
        .filter(Boolean),
  )
  .refine(
    (v) => v.every((id) => id === EVERY_SERVER || /^[A-Za-z0-9]+$/.test(id)),
    "must be guild, team or user ids separated by commas, and * for every server and workspace",
  );

/** `auto`, or `i-j/N`: this process runs shards i to j of N (see ShardRange). */
const shardsSetting = z
  .string()
  .trim()
  .transform((v, ctx): "auto" | ShardRange => {
    if (v === "auto") return v;
    const [, first, last, count] = /^(\d+)-(\d+)\/(\d+)$/.exec(v)?.map(Number) ?? [];
    if (first === undefined || last === undefined || count === undefined) {
      ctx.addIssue({ code: "custom", message: "must be auto or a range i-j/N, such as 0-3/8" });
      return z.NEVER;
    }
    if (count < 1 || first > last || last >= count) {
      ctx.addIssue({
        code: "custom",
        message: `must name shards within 0-${Math.max(0, count - 1)}/${count}, first to last`,
      });
      return z.NEVER;
    }
    return { first, last, count };
  });

const perMinute = z.coerce.number().int().min(0, "must be 0 (no limit) or more");

const schema = z.object({
  MEDIA_API_URL: httpUrl.transform(mediaOrigin),
  MEDIA_API_KEY: optionalText,
  MEDIA_API_KEY_TENANTS: keyTenants.default([]),
  USER_COMMANDS_PER_MINUTE: perMinute.default(DEFAULT_RATE_LIMITS.userPerMinute),
  TENANT_COMMANDS_PER_MINUTE: perMinute.default(DEFAULT_RATE_LIMITS.tenantPerMinute),
  MEDIA_THUMBNAILS_LIST_PATH: z
    .string()
    .regex(/^\/api\//, "must be a path starting with /api/")
    .default("/api/thumbnails"),
  STORE_URL: storeUrl.optional(),
  REDIS_SENTINELS: sentinels.optional(),
  REDIS_SENTINEL_NAME: shaped(/^[^\s]+$/, "must be the name the sentinels monitor the primary under"),
  // Fractions too: a soak test covers a day in half an hour, so its finished jobs expire in minutes.
  JOB_RETENTION_DAYS: z.coerce.number().positive("must be more than 0").max(3650).default(30),
  DISCORD_TOKEN: optionalText,
  DISCORD_GUILD_ID: z
    .string()
    .regex(/^\d{17,20}$/, "must be a guild id (a snowflake of 17-20 digits)")
    .optional(),
  DISCORD_PUBLIC_KEY: shaped(/^[0-9a-fA-F]{64}$/, "must be the application's Public Key (64 hex characters)"),
  DISCORD_SHARDS: shardsSetting.optional(),
  DISCORD_REST_URL: httpUrl.transform((v) => v.replace(/\/+$/, "")).default("https://discord.com/api"),
  // The three Slack credentials look alike on the app's pages; a swapped one is named here, not
  // met later as a refused request.
  SLACK_BOT_TOKEN: shaped(/^xoxb-/, "must be the Bot User OAuth Token (xoxb-...)"),
  SLACK_SIGNING_SECRET: shaped(/^[A-Za-z0-9]{32}$/, "must be the app's 32-character Signing Secret"),
  SLACK_APP_TOKEN: shaped(/^xapp-/, "must be an app-level token (xapp-...)"),
  // OAuth installs (many workspaces): the app's Client ID and Secret, and a secret of the
  // operator's own that signs the install's state.
  SLACK_CLIENT_ID: shaped(/^\d+\.\d+$/, "must be the app's Client ID (digits.digits)"),
  SLACK_CLIENT_SECRET: shaped(/^[A-Za-z0-9]{32}$/, "must be the app's 32-character Client Secret"),
  SLACK_STATE_SECRET: shaped(/^.{16,}$/, "must be a random string of at least 16 characters"),
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The name PORT had while only Slack used the server; PORT wins when both are set. */
  SLACK_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // Unset: every interface, as a container needs (its port is published or not by the host).
  HOST: optionalText
    .transform((v) => v?.replace(/^\[(.*)\]$/, "$1"))
    .refine(
      (v) => v === undefined || isIP(v) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(v),
      "must be an address of this machine to listen on, such as 127.0.0.1, 0.0.0.0 or ::",
    ),
  SLACK_API_URL: httpUrl.transform((v) => (v.endsWith("/") ? v : `${v}/`)).default("https://slack.com/api/"),
  SECRETS_KEY: optionalText,
  INSTANCE_ID: optionalText,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

const DEFAULT_STORE_URL = "sqlite://data/bot.sqlite";

/** Where the bot's HTTP server listens unless PORT (or SLACK_PORT) says otherwise. */
export const DEFAULT_PORT = 3000;

/** Shards `first` to `last` (inclusive) of `count`, the ones this process connects. */
export interface ShardRange {
  first: number;
  last: number;
  count: number;
}

export interface Config {
  media: {
    url: string;
    apiKey?: string;
    /** Who may use `apiKey`: the tenants without a key of their own that the operator names. */
    apiKeyTenants: SharedKeyTenants;
    thumbnailsListPath: string;
  };
  rates: RateLimits;
  /** The bot's one HTTP server: /healthz, /readyz, /metrics, and POST /slack/events (0: any free port). */
  port: number;
  /** The variable `port` came from; undefined: the default. Named when the port cannot be listened on. */
  portSetting?: "PORT" | "SLACK_PORT";
  /** The address the server listens on; undefined: every interface. */
  host?: string;
  storeUrl: string;
  /**
   * Redis found through Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME): `storeUrl` then gives
   * only the credentials, database and TLS of the primary the sentinels name.
   */
  redisSentinel?: { nodes: RedisNode[]; name: string };
  /** How long a finished job's record is kept (its buttons work, `jobs` lists it), in milliseconds. */
  jobRetentionMs: number;
  discord?: {
    token: string;
    guildId?: string;
    restUrl: string;
    /** Set: interactions arrive on POST /discord/interactions, signed with this key, and no gateway is opened. */
    publicKey?: string;
    /** Unset: one shard, the gateway's default. */
    shards?: "auto" | ShardRange;
  };
  /** Exactly one of `botToken` (one workspace) and `oauth` (installs through /slack/install). */
  slack?: {
    botToken?: string;
    oauth?: SlackOAuth;
    signingSecret?: string;
    appToken?: string;
    port: number;
    apiUrl: string;
  };
  secretsKey?: string;
  /** Stable name of this instance; unset: host name plus working directory (see jobs/liveness.ts). */
  instanceId?: string;
  logLevel: z.infer<typeof schema>["LOG_LEVEL"];
}

export interface SlackOAuth {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
}

export class ConfigError extends CodedError {
  readonly code = "config.invalid";
  constructor(message: string) {
    super(message);
  }
}

/** Secrets are named, never echoed, in error lines. */
const SECRET_VARIABLES = new Set([
  "MEDIA_API_KEY",
  "DISCORD_TOKEN",
  // Public, but the portal shows it beside the bot token: a value pasted into the wrong box is not echoed.
  "DISCORD_PUBLIC_KEY",
  "SLACK_BOT_TOKEN",
  "SLACK_SIGNING_SECRET",
  "SLACK_APP_TOKEN",
  "SLACK_CLIENT_SECRET",
  "SLACK_STATE_SECRET",
  "SECRETS_KEY",
]);

const OAUTH_VARIABLES = ["SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET"] as const;

/** Any of these, or MEDIA_API_URL, means someone began configuring the bot. */
const PLATFORM_VARIABLES = [
  "DISCORD_TOKEN",
  "DISCORD_PUBLIC_KEY",
  "SLACK_BOT_TOKEN",
  "SLACK_SIGNING_SECRET",
  "SLACK_APP_TOKEN",
  ...OAUTH_VARIABLES,
] as const;

/** A URL's password, even in a value too broken to parse ("redis//:pw@host"). */
function passwordOf(url: string): string | undefined {
  return /^[^@]*?:\/*[^:@/]*:([^@]+)@/.exec(url)?.[1];
}

/** A value shown in an error line keeps no credentials: anything up to an `@` goes. */
function withoutCredentials(value: string): string {
  return redactText(value.replace(/^([a-z][\w+.-]*:\/*)?[^\s]*@/i, "$1[redacted]@"));
}

/** An empty variable (`FOO=` in a .env file) means "not set", as people expect. */
function presentIn(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names
      .map((name) => [name, env[name]?.trim()] as const)
      .filter(([, value]) => value !== undefined && value !== ""),
  ) as Record<string, string>;
}

/** The first problem of a parse, as the one line naming its variable. */
function firstIssue(error: z.ZodError, present: Record<string, string>): ConfigError {
  const issue = error.issues[0]!;
  const name = String(issue.path[0]);
  const reason = issue.code === "invalid_type" ? "is required" : issue.message;
  const shown =
    SECRET_VARIABLES.has(name) || present[name] === undefined
      ? ""
      : ` (got "${withoutCredentials(present[name])}")`;
  return new ConfigError(`${name} ${reason}${shown}.`);
}

const storeSchema = schema.pick({ STORE_URL: true, REDIS_SENTINELS: true, REDIS_SENTINEL_NAME: true });

/** The store's settings alone, for the tools that open the bot's store (`npm run jobs`). */
export function loadStoreConfig(
  env: NodeJS.ProcessEnv = process.env,
): Pick<Config, "storeUrl" | "redisSentinel"> {
  const present = presentIn(env, Object.keys(storeSchema.shape));
  const parsed = storeSchema.safeParse(present);
  if (!parsed.success) throw firstIssue(parsed.error, present);
  if (parsed.data.STORE_URL) addSecret(passwordOf(parsed.data.STORE_URL));
  return storeSetting(parsed.data);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = presentIn(env, Object.keys(schema.shape));
  // A first `npm start` with nothing set: say where to begin, not only the first missing name.
  if (
    present.MEDIA_API_URL === undefined &&
    PLATFORM_VARIABLES.every((name) => present[name] === undefined)
  ) {
    throw new ConfigError(
      "MEDIA_API_URL and a chat platform (DISCORD_TOKEN, or a Slack app's tokens) are not set: copy .env.example to .env and fill it in, or try the bot without any credentials with npm run playground.",
    );
  }
  const parsed = schema.safeParse(present);
  if (!parsed.success) throw firstIssue(parsed.error, present);
  const v = parsed.data;
  for (const name of SECRET_VARIABLES) addSecret(v[name as keyof typeof v] as string | undefined);
  if (v.STORE_URL) addSecret(passwordOf(v.STORE_URL));
  const store = storeSetting(v);

  if (v.DISCORD_PUBLIC_KEY && !v.DISCORD_TOKEN) {
    throw new ConfigError(
      "DISCORD_PUBLIC_KEY needs DISCORD_TOKEN: the bot answers interactions and registers its commands with the bot token.",
    );
  }
  const oauth = slackOAuth(v);
  if (!v.DISCORD_TOKEN && !v.SLACK_BOT_TOKEN && !oauth) {
    throw new ConfigError(
      "No chat platform is configured: set DISCORD_TOKEN for Discord, or SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) for Slack, or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for Slack installed in many workspaces.",
    );
  }
  if (v.SLACK_BOT_TOKEN && !v.SLACK_SIGNING_SECRET && !v.SLACK_APP_TOKEN) {
    throw new ConfigError(
      "SLACK_SIGNING_SECRET is required with SLACK_BOT_TOKEN in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode).",
    );
  }

  if (v.DISCORD_PUBLIC_KEY && v.DISCORD_SHARDS) {
    throw new ConfigError(
      "DISCORD_SHARDS has no use with DISCORD_PUBLIC_KEY: over HTTP interactions the bot opens no gateway connection. Unset one of them.",
    );
  }

  const port = v.PORT ?? v.SLACK_PORT ?? DEFAULT_PORT;
  const portSetting = v.PORT !== undefined ? "PORT" : v.SLACK_PORT !== undefined ? "SLACK_PORT" : undefined;
  return {
    port,
    ...(portSetting && { portSetting }),
    ...(v.HOST && { host: v.HOST }),
    media: {
      url: v.MEDIA_API_URL,
      apiKey: v.MEDIA_API_KEY,
      apiKeyTenants: v.MEDIA_API_KEY_TENANTS,
      thumbnailsListPath: v.MEDIA_THUMBNAILS_LIST_PATH,
    },
    rates: { userPerMinute: v.USER_COMMANDS_PER_MINUTE, tenantPerMinute: v.TENANT_COMMANDS_PER_MINUTE },
    ...store,
    jobRetentionMs: Math.round(v.JOB_RETENTION_DAYS * 24 * 3600_000),
    discord: v.DISCORD_TOKEN
      ? {
          token: v.DISCORD_TOKEN,
          guildId: v.DISCORD_GUILD_ID,
          restUrl: v.DISCORD_REST_URL,
          ...(v.DISCORD_PUBLIC_KEY && { publicKey: v.DISCORD_PUBLIC_KEY.toLowerCase() }),
          ...(v.DISCORD_SHARDS && { shards: v.DISCORD_SHARDS }),
        }
      : undefined,
    slack:
      v.SLACK_BOT_TOKEN || oauth
        ? {
            ...(v.SLACK_BOT_TOKEN ? { botToken: v.SLACK_BOT_TOKEN } : { oauth }),
            signingSecret: v.SLACK_SIGNING_SECRET,
            appToken: v.SLACK_APP_TOKEN,
            port,
            apiUrl: v.SLACK_API_URL,
          }
        : undefined,
    secretsKey: v.SECRETS_KEY,
    ...(v.INSTANCE_ID && { instanceId: v.INSTANCE_ID }),
    logLevel: v.LOG_LEVEL,
  };
}

/**
 * STORE_URL alone (sqlite by default), or Redis through Sentinel: REDIS_SENTINELS and
 * REDIS_SENTINEL_NAME together, with STORE_URL unset or a redis URL for the password and database
 * (its host is the sentinels' to name).
 */
function storeSetting(v: z.infer<typeof storeSchema>): Pick<Config, "storeUrl" | "redisSentinel"> {
  const { STORE_URL: url, REDIS_SENTINELS: nodes, REDIS_SENTINEL_NAME: name } = v;
  if (!nodes && !name) return { storeUrl: url ?? DEFAULT_STORE_URL };
  if (!nodes)
    throw new ConfigError(
      "REDIS_SENTINEL_NAME needs REDIS_SENTINELS: the sentinels (host:port, separated by commas) that name the primary.",
    );
  if (!name)
    throw new ConfigError(
      "REDIS_SENTINEL_NAME is required with REDIS_SENTINELS: the name the sentinels monitor the primary under (sentinel monitor <name> …).",
    );
  if (url?.startsWith("sqlite://"))
    throw new ConfigError(
      "STORE_URL is a sqlite file but REDIS_SENTINELS is set: unset STORE_URL, or give redis://[:password@]host[:port][/db] for the primary's password and database.",
    );
  return { storeUrl: url ?? `redis://${name}`, redisSentinel: { nodes, name } };
}

/**
 * OAuth installs: all three variables or none. They serve many workspaces over HTTP only (the
 * install pages and POST /slack/events share the bot's one server), each workspace's token
 * stored encrypted with SECRETS_KEY, so the single-workspace variables cannot come along.
 */
function slackOAuth(v: z.infer<typeof schema>): SlackOAuth | undefined {
  const { SLACK_CLIENT_ID: clientId, SLACK_CLIENT_SECRET: clientSecret, SLACK_STATE_SECRET: stateSecret } = v;
  if (!clientId && !clientSecret && !stateSecret) return undefined;
  if (!clientId || !clientSecret || !stateSecret) {
    const set = OAUTH_VARIABLES.filter((name) => v[name] !== undefined);
    const missing = OAUTH_VARIABLES.filter((name) => v[name] === undefined);
    throw new ConfigError(
      `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} required with ${set.join(" and ")}: Slack OAuth installs need SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET.`,
    );
  }
  if (v.SLACK_BOT_TOKEN) {
    throw new ConfigError(
      "SLACK_BOT_TOKEN and SLACK_CLIENT_ID are two ways to run Slack: one workspace with a fixed token, or any number installed through /slack/install. Unset one (to move a workspace to OAuth, install the app there through /slack/install).",
    );
  }
  if (v.SLACK_APP_TOKEN) {
    throw new ConfigError(
      "SLACK_APP_TOKEN (Socket Mode) cannot be used with SLACK_CLIENT_ID: OAuth installs are served over HTTP, next to POST /slack/events. Unset SLACK_APP_TOKEN and set SLACK_SIGNING_SECRET.",
    );
  }
  if (!v.SLACK_SIGNING_SECRET) {
    throw new ConfigError(
      "SLACK_SIGNING_SECRET is required with SLACK_CLIENT_ID: Slack signs every request it sends.",
    );
  }
  if (!v.SECRETS_KEY) {
    throw new ConfigError(
      "SECRETS_KEY is required with SLACK_CLIENT_ID: each workspace's token is stored encrypted with it.",
    );
  }
  return { clientId, clientSecret, stateSecret };
}
