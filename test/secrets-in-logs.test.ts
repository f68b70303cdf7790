import { Writable } from "node:stream";
import { ErrorCode, WebAPIHTTPError, WebAPIPlatformError, WebAPIRequestError } from "@slack/web-api";
import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import { errors as undiciErrors } from "undici";
import { describe, expect, it } from "vitest";
import { createMediaClient } from "../src/core/api/client.js";
import { RefusedFetchError } from "../src/core/api/fetch-policy.js";
import * as core from "../src/core/base/errors.js";
import { createLogger } from "../src/core/base/log.js";
import { AccessError, ActionError, InputError, SetupError } from "../src/core/commands/errors.js";
import { ConfigError, loadConfig } from "../src/core/config/config.js";
import { StartupError, startupLine } from "../src/core/config/startup.js";
import { loginFailure } from "../src/discord/startup.js";
import { SlackFileError } from "../src/slack/files.js";
import { boltLogger } from "../src/slack/log.js";
import { slackFailure } from "../src/slack/startup.js";
import { StoreError } from "../src/store/errors.js";
import { SecretsError } from "../src/store/secrets.js";

/**
 * Every kind of error the bot logs, built with real-looking secrets inside its message, its cause,
 * its URL or its payload, written through the bot's loggers (pino, and Bolt's, which Socket Mode
 * uses too): no secret may appear in the output.
 */

const SECRETS = {
  MEDIA_API_KEY: "mk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0",
  DISCORD_TOKEN: "MTU3NDU2MTE5NzQ2NDg3OTEwNQ.GhJkLm.Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA",
  SLACK_BOT_TOKEN: "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
  SLACK_APP_TOKEN: "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef0123456789",
  SLACK_SIGNING_SECRET: "8f742231b10e8888abcd99yyyzzz85a5",
  SECRETS_KEY: "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00",
};
const REDIS_PASSWORD = "r3dis-Pa55word-hunter2";
const TENANT_KEY = "tenant-key-4f1d2a9b8c7e6f50";
/** Short-lived credentials that appear inside URLs and payloads. */
const INTERACTION_TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OmFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6";
const RESPONSE_URL_SECRET = "T0123ABCD/1234567890123/Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4";
const TYPED_KEY = "sk-typed-into-the-setup-form-7c1e";

/** Secrets the bot knows: configured, or a key it has called the service with. */
const KNOWN = [...Object.values(SECRETS), REDIS_PASSWORD, TENANT_KEY, TYPED_KEY];
/** Short-lived credentials appear inside URLs (or under keys such as `token`), never alone. */
const ALL = [...KNOWN, INTERACTION_TOKEN, RESPONSE_URL_SECRET];

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: "trace", destination }) };
}

/** The configured secrets become known to the redaction when the configuration is read. */
loadConfig({
  MEDIA_API_URL: "https://media.example.com",
  STORE_URL: `redis://bot:${REDIS_PASSWORD}@redis.internal:6379`,
  ...SECRETS,
});
// A tenant's key becomes known when the bot first calls the service with it; so does a key typed
// into the setup form, which setup tries against the service before keeping it.
const client = createMediaClient({ baseUrl: "https://media.example.com" });
client.as(TENANT_KEY);
client.as(TYPED_KEY);

const webhook = `https://discord.com/api/v10/webhooks/1157456119746487910/${INTERACTION_TOKEN}/messages/@original`;
const responseUrl = `https://hooks.slack.com/commands/${RESPONSE_URL_SECRET}`;
const everything = [...KNOWN, webhook, responseUrl, `Bearer ${INTERACTION_TOKEN}`].join(" ");

function errors(): [string, unknown][] {
  const cause = new Error(`socket hang up calling ${webhook} with x-api-key ${SECRETS.MEDIA_API_KEY}`);
  return [
    ["ServiceFailureError", new core.ServiceFailureError(`bad key ${TENANT_KEY}`, { key: TENANT_KEY })],
    ["QuotaExceededError", new core.QuotaExceededError(400, `credits of ${TENANT_KEY}`, undefined, webhook)],
    ["BadRequestError", new core.BadRequestError(400, `invalid ${SECRETS.MEDIA_API_KEY}`, webhook)],
    ["UnauthorizedError", new core.UnauthorizedError(`Invalid API key ${TENANT_KEY}`, "GET /api/usage")],
    ["ForbiddenError", new core.ForbiddenError(everything)],
    ["NotFoundError", new core.NotFoundError(everything, responseUrl)],
    ["RateLimitedError", new core.RateLimitedError(1000, everything)],
    ["ServiceUnavailableError", new core.ServiceUnavailableError(503, everything)],
    ["NetworkError", new core.NetworkError(cause, `GET ${webhook}`)],
    ["TimeoutError", new core.TimeoutError(30_000, responseUrl, cause)],
    ["InvalidResponseError", new core.InvalidResponseError(everything, 200, webhook, cause)],
    ["AbortedError", new core.AbortedError(webhook, cause)],
    ["AttachmentReadError", new core.AttachmentReadError(everything, cause)],
    ["UndeliverableError", new core.UndeliverableError("gone", { message: everything, cause })],
    ["MessageGoneError", new core.MessageGoneError({ message: webhook, cause })],
    ["InputError", new InputError("input.x", everything)],
    ["AccessError", new AccessError("access.x", everything)],
    ["SetupError", new SetupError("setup.x", "set up", { message: everything, cause })],
    ["ActionError", new ActionError("action.x", everything)],
    ["RefusedFetchError", new RefusedFetchError("refused", { message: `refused ${webhook}`, cause })],
    ["SlackFileError", new SlackFileError("file", { message: `${responseUrl} ${SECRETS.SLACK_BOT_TOKEN}` })],
    ["StoreError", new StoreError("store.unreachable", `redis://:${REDIS_PASSWORD}@host`, { cause })],
    ["SecretsError", new SecretsError("secrets.undecryptable", `with ${SECRETS.SECRETS_KEY}`)],
    ["ConfigError", new ConfigError(`STORE_URL redis://u:${REDIS_PASSWORD}@h is wrong`)],
    ["StartupError", new StartupError(`token ${SECRETS.DISCORD_TOKEN}`, { cause })],
    [
      "DiscordAPIError",
      new DiscordAPIError({ code: 10015, message: "Unknown Webhook" }, 10015, 404, "PATCH", webhook, {
        body: { token: INTERACTION_TOKEN, content: SECRETS.MEDIA_API_KEY },
      }),
    ],
    ["HTTPError", new HTTPError(500, "Internal", "POST", webhook, { body: { token: INTERACTION_TOKEN } })],
    [
      "RateLimitError",
      new RateLimitError({
        timeToReset: 1,
        limit: 1,
        method: "POST",
        hash: "h",
        url: webhook,
        route: "/webhooks/:id/:token",
        majorParameter: "1",
        global: false,
        retryAfter: 1,
        sublimitTimeout: 0,
        scope: "user",
      }),
    ],
    [
      "Discord login",
      loginFailure(Object.assign(new Error(`bad ${SECRETS.DISCORD_TOKEN}`), { code: "X" }), webhook),
    ],
    [
      "WebAPIPlatformError",
      new WebAPIPlatformError({
        ok: false,
        error: "invalid_auth",
        response_metadata: { messages: [`token ${SECRETS.SLACK_BOT_TOKEN}`] },
      }),
    ],
    ["WebAPIRequestError", new WebAPIRequestError(cause)],
    [
      "WebAPIHTTPError",
      new WebAPIHTTPError(
        500,
        "x",
        { authorization: `Bearer ${SECRETS.SLACK_BOT_TOKEN}` },
        { url: responseUrl },
      ),
    ],
    [
      "Slack start",
      slackFailure(cause, "SLACK_APP_TOKEN", `https://slack.com/api/?token=${SECRETS.SLACK_APP_TOKEN}`),
    ],
    ["undici ConnectTimeoutError", new undiciErrors.ConnectTimeoutError(`connect to ${webhook}`)],
    [
      "undici ResponseError",
      new undiciErrors.ResponseError(everything, 500, { headers: {}, body: everything }),
    ],
    ["plain Error", Object.assign(new Error(everything), { code: ErrorCode.PlatformError, config: SECRETS })],
  ];
}

describe("no secret reaches a log line", () => {
  it.each(errors())("a logged %s", (_name, error) => {
    const { lines, logger } = capture();
    logger.error({ err: error }, "failed");
    logger.warn({ err: error, url: webhook, responseUrl }, `while calling ${webhook}`);
    const bolt = boltLogger(logger);
    bolt.error(error);
    bolt.warn(`failed: ${String(error)}`, error);
    const out = lines.join("");
    expect(out.length).toBeGreaterThan(0);
    for (const secret of ALL) expect(out).not.toContain(secret);
    // Still useful: the error's own words and the non-secret part of the URL are there.
    expect(out).toContain("/webhooks/1157456119746487910/[redacted]");
  });

  it("Socket Mode's and Bolt's debug lines with raw payloads keep no typed key, token or response_url", () => {
    const { lines, logger } = capture();
    const bolt = boltLogger(logger);
    const payload = {
      envelope_id: "e1",
      type: "interactive",
      payload: {
        type: "view_submission",
        token: "verification-token-legacy-123",
        trigger_id: "1234.5678.abcdef0123456789",
        view: { state: { values: { api_key: { api_key: { type: "plain_text_input", value: TYPED_KEY } } } } },
        response_urls: [{ response_url: responseUrl }],
      },
    };
    bolt.debug(`Received a message on the WebSocket: ${JSON.stringify(payload)}`);
    bolt.debug(JSON.stringify(payload.payload));
    bolt.debug(
      `Unable to parse an incoming WebSocket message (will ignore): x, ${JSON.stringify(payload).slice(0, 300)}`,
    );
    const out = lines.join("");
    for (const secret of [...ALL, "verification-token-legacy-123", "1234.5678.abcdef0123456789"]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain("view_submission");
    expect(out).toContain("[payload withheld]");
  });

  it("a start that fails says so in one line without the secret", () => {
    const shown = [
      startupLine(new StoreError("store.unreachable", `cannot reach redis://:${REDIS_PASSWORD}@h`)),
      startupLine(new Error(`boom ${SECRETS.SLACK_BOT_TOKEN} at ${webhook}`)),
      (() => {
        try {
          loadConfig({
            MEDIA_API_URL: "http://x.test",
            STORE_URL: `redis//:${REDIS_PASSWORD}@host`,
            DISCORD_TOKEN: "t",
          });
        } catch (error) {
          return startupLine(error);
        }
        return "";
      })(),
    ];
    for (const line of shown) {
      expect(line).toMatch(/^Cannot start: /);
      expect(line.split("\n")).toHaveLength(1);
      for (const secret of ALL) expect(line).not.toContain(secret);
    }
    expect(shown[2]).toMatch(/STORE_URL must be sqlite/);
  });
});
