import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, isIPv6 } from "node:net";
import type { Logger } from "../core/base/log.js";
import { Intake } from "../core/intake/intake.js";

/**
 * The bot's one HTTP server: a small route table that the platforms and the operator's endpoints
 * mount on (POST /slack/events, and later POST /discord/interactions; GET /healthz, /readyz,
 * /metrics). It is opened whichever platforms run, so a Discord-only bot answers probes too.
 */

export interface Route {
  method: "GET" | "POST";
  /** Exact path, without the query. */
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

export interface HttpServer {
  readonly port: number;
  /** Where this machine reaches the server (its loopback address, unless it listens elsewhere only), for logs and tests. */
  readonly url: string;
  /** The requests coming in: the work behind their acks waits while a burst arrives (core/intake/intake.ts). */
  readonly intake: Intake;
  /** Adds a route; the function returned takes it away (a platform that stops taking requests). */
  mount(route: Route): () => void;
  /** Stops listening and ends the connections left open. */
  close(): Promise<void>;
}

export interface HttpServerOptions {
  /** 0 for any free port. */
  port: number;
  /** Default: every interface, as a container needs. */
  host?: string;
  logger: Logger;
  /** Default: one of its own. */
  intake?: Intake;
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const routes = new Map<string, Route>();
  const keyOf = (method: string, path: string) => `${method} ${path}`;
  const intake = options.intake ?? new Intake();

  const server = createServer((req, res) => {
    intake.arrived();
    const path = (req.url ?? "/").split("?", 1)[0]!;
    const route = routes.get(keyOf(req.method ?? "GET", path));
    if (!route) {
      const allowed = [...routes.values()].filter((r) => r.path === path).map((r) => r.method);
      res.writeHead(allowed.length > 0 ? 405 : 404, {
        "content-type": "text/plain",
        ...(allowed.length > 0 && { allow: allowed.join(", ") }),
      });
      res.end(allowed.length > 0 ? "method not allowed\n" : "not found\n");
      return;
    }
    // A handler's fault answers this request with 500 and is logged; the server goes on.
    Promise.resolve()
      .then(() => route.handle(req, res))
      .catch((error: unknown) => {
        options.logger.error({ err: error, method: req.method, path }, "HTTP handler failed");
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end();
      });
  });
  // A new connection is the earliest sign of a request: its bytes are read a turn of the loop later.
  server.on("connection", () => intake.arrived());
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => options.logger.error({ err: error }, "HTTP server error"));
  const { port } = server.address() as AddressInfo;
  const everywhere = options.host === undefined || options.host === "0.0.0.0" || options.host === "::";
  const reachedAt = everywhere ? "127.0.0.1" : options.host!;
  let closing: Promise<void> | undefined;

  return {
    port,
    url: `http://${isIPv6(reachedAt) ? `[${reachedAt}]` : reachedAt}:${port}`,
    intake,
    mount(route) {
      const key = keyOf(route.method, route.path);
      if (routes.has(key)) throw new Error(`${key} is already served`);
      routes.set(key, route);
      return () => {
        if (routes.get(key) === route) routes.delete(key);
      };
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections would hold close() open until their clients let go.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
