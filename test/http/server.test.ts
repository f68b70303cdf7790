import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { Intake } from "../../src/core/intake/intake.js";
import { healthRoutes } from "../../src/http/health.js";
import { type HttpServer, Readiness, startHttpServer } from "../../src/http/index.js";

const logger = pino({ level: "silent" });
let server: HttpServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(intake?: Intake): Promise<HttpServer> {
  server = await startHttpServer({ port: 0, logger, ...(intake && { intake }) });
  return server;
}

describe("the bot's HTTP server", () => {
  it("routes by method and path, with 404 and 405 for the rest", async () => {
    const http = await serve();
    http.mount({ method: "POST", path: "/slack/events", handle: (_req, res) => void res.end("slack") });
    expect(await (await fetch(`${http.url}/slack/events?x=1`, { method: "POST" })).text()).toBe("slack");
    const wrongMethod = await fetch(`${http.url}/slack/events`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect((await fetch(`${http.url}/nothing`)).status).toBe(404);
  });

  it("notes each request, so the work behind the acks waits while more arrive", async () => {
    const http = await serve(new Intake({ quietMs: 60_000 }));
    http.mount({ method: "POST", path: "/slack/events", handle: (_req, res) => void res.end() });
    expect(http.intake.heldFor()).toBe(0);
    await fetch(`${http.url}/slack/events`, { method: "POST" });
    expect(http.intake.heldFor()).toBeGreaterThan(0);
  });

  it("answers a failing handler with 500 and goes on serving", async () => {
    const http = await serve();
    http.mount({
      method: "GET",
      path: "/broken",
      handle() {
        throw new Error("boom");
      },
    });
    http.mount({ method: "GET", path: "/fine", handle: (_req, res) => void res.end("fine") });
    expect((await fetch(`${http.url}/broken`)).status).toBe(500);
    expect(await (await fetch(`${http.url}/fine`)).text()).toBe("fine");
  });

  it("stops serving a route once it is taken away", async () => {
    const http = await serve();
    const unmount = http.mount({
      method: "POST",
      path: "/slack/events",
      handle: (_req, res) => void res.end(),
    });
    unmount();
    expect((await fetch(`${http.url}/slack/events`, { method: "POST" })).status).toBe(404);
  });

  it("is ready only when every probe is, and names the parts that are not", async () => {
    const http = await serve();
    const readiness = new Readiness();
    for (const route of healthRoutes(readiness)) http.mount(route);
    let discord: string | undefined = "Discord: the gateway connection is down";
    readiness.watch("store", () => undefined);
    readiness.watch("discord", () => discord);
    readiness.watch("slack", async () => {
      throw new Error("Slack: the bot token was refused");
    });

    const down = await fetch(`${http.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      status: "not ready",
      checks: {
        store: "ok",
        discord: "Discord: the gateway connection is down",
        slack: "Slack: the bot token was refused",
      },
    });
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);

    discord = undefined;
    readiness.watch("slack", () => undefined);
    const up = await fetch(`${http.url}/readyz`);
    expect(up.status).toBe(200);
    expect(((await up.json()) as { status: string }).status).toBe("ready");
  });
});
