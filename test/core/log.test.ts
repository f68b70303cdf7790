import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, REDACTED } from "../../src/core/log.js";
import { StoreError } from "../../src/store/errors.js";

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

const KEY = "sk-live-0123456789abcdef";

describe("log redaction", () => {
  it("a logged request with an API key prints no key", () => {
    const { lines, logger } = capture();
    logger.info(
      {
        req: {
          method: "POST",
          url: "/api/image/generate",
          headers: { "x-api-key": KEY, authorization: `Bearer ${KEY}` },
        },
        apiKey: KEY,
      },
      "calling the service",
    );
    const out = lines.join("");
    expect(out).not.toContain(KEY);
    const line = JSON.parse(out);
    expect(line.req.headers["x-api-key"]).toBe(REDACTED);
    expect(line.req.headers.authorization).toBe(REDACTED);
    expect(line.apiKey).toBe(REDACTED);
    expect(line.req.url).toBe("/api/image/generate");
  });

  it("redacts keys and tokens nested in config objects, errors and child bindings", () => {
    const { lines, logger } = capture();
    logger.info({ config: { media: { url: "http://x", apiKey: KEY }, discord: { token: KEY } } }, "config");
    logger.error(
      { err: Object.assign(new Error("boom"), { request: { headers: { "x-api-key": KEY } } }) },
      "failed",
    );
    logger
      .child({ tenant: { id: "g1", apiKey: KEY } })
      .warn({ slack: { botToken: KEY, signingSecret: KEY } }, "child");
    const out = lines.join("");
    expect(out).not.toContain(KEY);
    expect(out.match(/\[redacted\]/g)?.length).toBe(6);
    expect(out).toContain("boom");
  });

  it("prints none of the tokens of a Slack installation, logged whole or quoted in a message", () => {
    const { lines, logger } = capture();
    const [bot, refresh, user] = [
      "xoxb-11-22-botTokenOfAcme",
      "xoxe-1-refreshTokenOfAcme",
      "xoxp-33-userTok",
    ];
    const installation = {
      team: { id: "T0ACME", name: "Acme" },
      bot: { token: bot, refreshToken: refresh, userId: "U0BOT" },
      user: { token: user, id: "U0ADMIN" },
    };
    logger.info({ installation }, "installed");
    logger.warn({ oauth: { clientSecret: KEY, stateSecret: KEY } }, "config");
    logger.error(`could not store ${JSON.stringify(installation)}`);
    const out = lines.join("");
    for (const secret of [bot, refresh, user, KEY, "refreshTokenOfAcme"]) expect(out).not.toContain(secret);
    expect(out).toContain("T0ACME");
  });
});

describe("workflow steps in the log", () => {
  it("prints no step's own token, kept with its job or quoted in a message", () => {
    const { lines, logger } = capture();
    const token = "xwfp-1234567890-abcdefABCDEF";
    const message = { messageId: "Fx01", data: { execution: "Fx01" }, live: { functionToken: token } };
    logger.info({ job: { message } }, "delivering");
    logger.warn(`step not completed: ${JSON.stringify(message)} (${token})`);
    const out = lines.join("");
    expect(out).not.toContain("abcdefABCDEF");
    expect(out).toContain("Fx01");
  });
});

describe("store outages in the log", () => {
  it("drops the lines of operations the store's outage failed, keeps every other error", () => {
    const { lines, logger } = capture();
    const away = new StoreError("store.unavailable", "get in jobs: The client is offline");
    logger.child({ component: "jobs" }).warn({ err: away, jobId: "j1" }, "delivery failed; will retry");
    logger.warn({ err: new Error("SQLITE_FULL", { cause: away }) }, "could not store the job's progress");
    logger.warn({ err: new StoreError("store.corrupt", "bad record") }, "a corrupt record");
    logger.warn({ backend: "redis" }, "store unreachable");
    const serviceDown = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
      code: "ECONNREFUSED",
    });
    logger.warn({ err: serviceDown }, "could not check MEDIA_API_KEY");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
      "a corrupt record",
      "store unreachable",
      "could not check MEDIA_API_KEY",
    ]);
  });
});
