import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, loadStoreConfig } from "../../src/core/config/config.js";

const base = { MEDIA_API_URL: "http://127.0.0.1:4010", DISCORD_TOKEN: "discord-secret-token" };

function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected loadConfig to fail");
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig(base);
    expect(config.storeUrl).toBe("sqlite://data/bot.sqlite");
    expect(config.discord).toEqual({ token: "discord-secret-token", restUrl: "https://discord.com/api" });
    expect(config.slack).toBeUndefined();
    expect(config.media.thumbnailsListPath).toBe("/api/thumbnails");
    expect(config.logLevel).toBe("info");
  });

  it("lets MEDIA_API_KEY serve no tenant until the operator names them, or all with *", () => {
    expect(loadConfig(base).media.apiKeyTenants).toEqual([]);
    expect(
      loadConfig({ ...base, MEDIA_API_KEY_TENANTS: " 1234567890123456789, T0ABC " }).media.apiKeyTenants,
    ).toEqual(["1234567890123456789", "T0ABC"]);
    expect(loadConfig({ ...base, MEDIA_API_KEY_TENANTS: "*" }).media.apiKeyTenants).toEqual(["*"]);
    expect(
      loadConfig({ ...base, MEDIA_API_KEY_TENANTS: "*, 1234567890123456789" }).media.apiKeyTenants,
    ).toEqual(["*", "1234567890123456789"]);
    expect(failure({ ...base, MEDIA_API_KEY_TENANTS: "guild one" })).toBe(
      'MEDIA_API_KEY_TENANTS must be guild, team or user ids separated by commas, and * for every server and workspace (got "guild one").',
    );
  });

  it("limits commands per person and per tenant, 0 meaning no limit", () => {
    expect(loadConfig(base).rates).toEqual({ userPerMinute: 20, tenantPerMinute: 300 });
    expect(
      loadConfig({ ...base, USER_COMMANDS_PER_MINUTE: "0", TENANT_COMMANDS_PER_MINUTE: "50" }).rates,
    ).toEqual({ userPerMinute: 0, tenantPerMinute: 50 });
    expect(failure({ ...base, USER_COMMANDS_PER_MINUTE: "-1" })).toBe(
      'USER_COMMANDS_PER_MINUTE must be 0 (no limit) or more (got "-1").',
    );
  });

  it("keeps finished jobs 30 days unless JOB_RETENTION_DAYS says otherwise, fractions too", () => {
    expect(loadConfig(base).jobRetentionMs).toBe(30 * 24 * 3600_000);
    expect(loadConfig({ ...base, JOB_RETENTION_DAYS: "0.5" }).jobRetentionMs).toBe(12 * 3600_000);
    expect(() => loadConfig({ ...base, JOB_RETENTION_DAYS: "0" })).toThrow(/JOB_RETENTION_DAYS/);
  });

  it("accepts a service URL that already ends in /api", () => {
    expect(loadConfig({ ...base, MEDIA_API_URL: "https://media.example.com/api/" }).media.url).toBe(
      "https://media.example.com",
    );
  });

  it("points a first start with nothing configured to .env.example and the playground", () => {
    for (const env of [{}, { LOG_LEVEL: "debug", MEDIA_API_KEY: "k", DISCORD_TOKEN: " " }]) {
      const message = failure(env);
      expect(message).toMatch(/^MEDIA_API_URL and a chat platform .* are not set: /);
      expect(message).toContain("copy .env.example to .env");
      expect(message).toContain("npm run playground");
      expect(message).not.toContain("\n");
    }
    // Begun configuring: the usual line naming what is missing.
    expect(failure({ SLACK_APP_TOKEN: "xapp-1" })).toBe("MEDIA_API_URL is required.");
  });

  it("names a missing variable in one line", () => {
    const message = failure({ DISCORD_TOKEN: "x" });
    expect(message).toBe("MEDIA_API_URL is required.");
  });

  it("names an invalid variable and shows the bad value", () => {
    expect(failure({ ...base, STORE_URL: "mysql://db" })).toBe(
      'STORE_URL must be sqlite://<path> or redis://<host>:<port> (got "mysql://db").',
    );
    expect(failure({ ...base, SLACK_PORT: "eighty" })).toMatch(/^SLACK_PORT .*\(got "eighty"\)\.$/);
  });

  it("never echoes a secret in an error line", () => {
    const message = failure({ ...base, DISCORD_GUILD_ID: "abc", SLACK_BOT_TOKEN: "xoxb-secret" });
    expect(message).toContain("DISCORD_GUILD_ID");
    expect(message).not.toContain("xoxb-secret");
  });

  it("requires at least one chat platform, naming the variables", () => {
    const message = failure({ MEDIA_API_URL: "http://127.0.0.1:4010" });
    expect(message).toContain("DISCORD_TOKEN");
    expect(message).toContain("SLACK_BOT_TOKEN");
  });

  it("requires a signing secret for Slack over HTTP but not in Socket Mode", () => {
    const slackOnly = { MEDIA_API_URL: "http://127.0.0.1:4010", SLACK_BOT_TOKEN: "xoxb-1" };
    expect(failure(slackOnly)).toContain("SLACK_SIGNING_SECRET");
    expect(loadConfig({ ...slackOnly, SLACK_APP_TOKEN: "xapp-1" }).slack).toMatchObject({
      botToken: "xoxb-1",
      appToken: "xapp-1",
      port: 3000,
      apiUrl: "https://slack.com/api/",
    });
  });

  it("serves HTTP on PORT, else on SLACK_PORT, else on 3000", () => {
    expect(loadConfig(base).port).toBe(3000);
    expect(loadConfig({ ...base, SLACK_PORT: "3100" }).port).toBe(3100);
    const both = loadConfig({
      ...base,
      PORT: "8080",
      SLACK_PORT: "3100",
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_APP_TOKEN: "xapp-1",
    });
    expect(both.port).toBe(8080);
    expect(both.slack?.port).toBe(8080);
    expect(failure({ ...base, PORT: "http" })).toMatch(/^PORT .*\(got "http"\)\.$/);
  });

  it("listens on every interface unless HOST names an address, and says which variable set the port", () => {
    expect(loadConfig(base)).not.toHaveProperty("host");
    expect(loadConfig(base)).not.toHaveProperty("portSetting");
    expect(loadConfig({ ...base, HOST: "127.0.0.1", PORT: "8080" })).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      portSetting: "PORT",
    });
    expect(loadConfig({ ...base, HOST: "[::1]", SLACK_PORT: "3100" })).toMatchObject({
      host: "::1",
      portSetting: "SLACK_PORT",
    });
    expect(loadConfig({ ...base, HOST: "localhost" }).host).toBe("localhost");
    expect(failure({ ...base, HOST: "http://0.0.0.0" })).toMatch(
      /^HOST must be an address of this machine to listen on, .*\(got "http:\/\/0\.0\.0\.0"\)\.$/,
    );
  });

  it("finds Redis through Sentinel: REDIS_SENTINELS with REDIS_SENTINEL_NAME, STORE_URL for the password alone", () => {
    const sentinel = {
      REDIS_SENTINELS: "10.0.0.1:26379, sentinel-2 ,[::1]:26380",
      REDIS_SENTINEL_NAME: "media",
    };
    expect(loadConfig({ ...base, ...sentinel })).toMatchObject({
      storeUrl: "redis://media",
      redisSentinel: {
        name: "media",
        nodes: [
          { host: "10.0.0.1", port: 26379 },
          { host: "sentinel-2", port: 26379 },
          { host: "::1", port: 26380 },
        ],
      },
    });
    const withPassword = loadConfig({ ...base, ...sentinel, STORE_URL: "redis://:s3cret@primary/2" });
    expect(withPassword.storeUrl).toBe("redis://:s3cret@primary/2");
    expect(loadStoreConfig({ ...sentinel }).redisSentinel?.name).toBe("media");
    expect(loadConfig(base).redisSentinel).toBeUndefined();
    expect(failure({ ...base, REDIS_SENTINELS: "10.0.0.1:26379" })).toMatch(
      /^REDIS_SENTINEL_NAME is required with REDIS_SENTINELS: the name the sentinels monitor the primary under/,
    );
    expect(failure({ ...base, REDIS_SENTINEL_NAME: "media" })).toMatch(
      /^REDIS_SENTINEL_NAME needs REDIS_SENTINELS/,
    );
    expect(failure({ ...base, ...sentinel, STORE_URL: "sqlite://data/bot.sqlite" })).toMatch(
      /^STORE_URL is a sqlite file but REDIS_SENTINELS is set/,
    );
    expect(failure({ ...base, ...sentinel, REDIS_SENTINELS: "10.0.0.1:99999" })).toBe(
      'REDIS_SENTINELS must be host:port of each sentinel, separated by commas (not "10.0.0.1:99999") (got "10.0.0.1:99999").',
    );
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ ...base, MEDIA_API_KEY: "", STORE_URL: "" }).storeUrl).toBe(
      "sqlite://data/bot.sqlite",
    );
  });

  describe("Slack OAuth installs", () => {
    const oauth = {
      MEDIA_API_URL: "http://127.0.0.1:4010",
      SLACK_CLIENT_ID: "1000000001.4000000004",
      SLACK_CLIENT_SECRET: "0123456789abcdef0123456789abcdef",
      SLACK_STATE_SECRET: "a-state-secret-of-the-operator",
      SLACK_SIGNING_SECRET: "fake0signing0secret0for0tests000",
      SECRETS_KEY: "7f".repeat(32),
    };

    it("runs Slack on the three variables, without a bot token", () => {
      expect(loadConfig(oauth).slack).toEqual({
        oauth: {
          clientId: "1000000001.4000000004",
          clientSecret: "0123456789abcdef0123456789abcdef",
          stateSecret: "a-state-secret-of-the-operator",
        },
        signingSecret: "fake0signing0secret0for0tests000",
        port: 3000,
        apiUrl: "https://slack.com/api/",
      });
    });

    it("names what is missing from a partial set in one line", () => {
      const { SLACK_STATE_SECRET: _state, SLACK_CLIENT_SECRET: _secret, ...onlyId } = oauth;
      expect(failure({ ...oauth, SLACK_STATE_SECRET: "" })).toBe(
        "SLACK_STATE_SECRET is required with SLACK_CLIENT_ID and SLACK_CLIENT_SECRET: Slack OAuth installs need SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET.",
      );
      expect(failure(onlyId)).toMatch(
        /^SLACK_CLIENT_SECRET and SLACK_STATE_SECRET are required with SLACK_CLIENT_ID:/,
      );
    });

    it("refuses the single-workspace variables beside it, and needs SECRETS_KEY and the signing secret", () => {
      expect(failure({ ...oauth, SLACK_BOT_TOKEN: "xoxb-1" })).toMatch(
        /^SLACK_BOT_TOKEN and SLACK_CLIENT_ID are two ways to run Slack/,
      );
      expect(failure({ ...oauth, SLACK_APP_TOKEN: "xapp-1" })).toMatch(
        /^SLACK_APP_TOKEN \(Socket Mode\) cannot be used with SLACK_CLIENT_ID/,
      );
      expect(failure({ ...oauth, SECRETS_KEY: "" })).toMatch(/^SECRETS_KEY is required with SLACK_CLIENT_ID/);
      expect(failure({ ...oauth, SLACK_SIGNING_SECRET: "" })).toMatch(
        /^SLACK_SIGNING_SECRET is required with SLACK_CLIENT_ID/,
      );
    });

    it("checks the shapes without echoing the secrets", () => {
      expect(failure({ ...oauth, SLACK_CLIENT_ID: "A0MEDIAAPP" })).toBe(
        'SLACK_CLIENT_ID must be the app\'s Client ID (digits.digits) (got "A0MEDIAAPP").',
      );
      const message = failure({ ...oauth, SLACK_CLIENT_SECRET: "xoxb-pasted-token" });
      expect(message).toBe("SLACK_CLIENT_SECRET must be the app's 32-character Client Secret.");
      expect(failure({ ...oauth, SLACK_STATE_SECRET: "short" })).toBe(
        "SLACK_STATE_SECRET must be a random string of at least 16 characters.",
      );
    });
  });

  it("takes DISCORD_PUBLIC_KEY as 64 hex characters, never echoing a wrong one", () => {
    const key = "AB".repeat(32);
    expect(loadConfig({ ...base, DISCORD_PUBLIC_KEY: key }).discord?.publicKey).toBe(key.toLowerCase());
    const pasted = failure({ ...base, DISCORD_PUBLIC_KEY: "MTA5.secret-bot-token" });
    expect(pasted).toBe("DISCORD_PUBLIC_KEY must be the application's Public Key (64 hex characters).");
    expect(failure({ ...base, DISCORD_PUBLIC_KEY: "ab".repeat(31) })).toContain("64 hex characters");
    expect(failure({ MEDIA_API_URL: base.MEDIA_API_URL, DISCORD_PUBLIC_KEY: key })).toMatch(
      /^DISCORD_PUBLIC_KEY needs DISCORD_TOKEN/,
    );
  });

  it("takes DISCORD_SHARDS as auto or a range i-j/N, and refuses a range outside its count", () => {
    expect(loadConfig(base).discord?.shards).toBeUndefined();
    expect(loadConfig({ ...base, DISCORD_SHARDS: "auto" }).discord?.shards).toBe("auto");
    expect(loadConfig({ ...base, DISCORD_SHARDS: "2-3/4" }).discord?.shards).toEqual({
      first: 2,
      last: 3,
      count: 4,
    });
    expect(loadConfig({ ...base, DISCORD_SHARDS: "0-0/1" }).discord?.shards).toEqual({
      first: 0,
      last: 0,
      count: 1,
    });
    expect(failure({ ...base, DISCORD_SHARDS: "4" })).toBe(
      'DISCORD_SHARDS must be auto or a range i-j/N, such as 0-3/8 (got "4").',
    );
    expect(failure({ ...base, DISCORD_SHARDS: "2-4/4" })).toBe(
      'DISCORD_SHARDS must name shards within 0-3/4, first to last (got "2-4/4").',
    );
    expect(failure({ ...base, DISCORD_SHARDS: "3-1/4" })).toContain("first to last");
    expect(failure({ ...base, DISCORD_SHARDS: "0-0/0" })).toContain("DISCORD_SHARDS must name shards");
  });

  it("refuses DISCORD_SHARDS beside DISCORD_PUBLIC_KEY, which opens no gateway", () => {
    expect(failure({ ...base, DISCORD_SHARDS: "auto", DISCORD_PUBLIC_KEY: "ab".repeat(32) })).toMatch(
      /^DISCORD_SHARDS has no use with DISCORD_PUBLIC_KEY/,
    );
  });
});
