import type Keyv from "keyv";
import type { Logger } from "../core/base/log.js";
import type { StoreAvailability, Stores } from "../store/index.js";
import { healthRoutes, Readiness } from "./health.js";
import { metricsRoute } from "./metrics.js";
import { type HttpServer, startHttpServer } from "./server.js";

export { type Detail, type Probe, Readiness } from "./health.js";
export type { HttpServer, Route } from "./server.js";
export { startHttpServer } from "./server.js";

export interface BotServer extends HttpServer {
  /** Platforms add their probe once started (`watch("discord", …)`); the store's is there from the start. */
  readonly readiness: Readiness;
}

export interface BotServerOptions {
  port: number;
  /** The address to listen on; undefined: every interface, as a container needs. */
  host?: string;
  logger: Logger;
  /** A namespace of the bot's store: one read of it tells whether the store answers. */
  store: Keyv<unknown>;
  /** The store's known outage, said without waiting for a read to fail. */
  availability: StoreAvailability;
  /** On redis: the primary the bot is on, shown on /readyz, and a replica slow to acknowledge. */
  replication?: Stores["replication"];
}

/** The server on PORT with the operator's endpoints; platforms mount their own routes on it. */
export async function startBotServer(options: BotServerOptions): Promise<BotServer> {
  const server = await startHttpServer({
    port: options.port,
    ...(options.host !== undefined && { host: options.host }),
    logger: options.logger,
  });
  const readiness = new Readiness();
  readiness.watch("store", async () => {
    const away = options.availability.problem() ?? options.replication?.lagging();
    if (away) return away;
    await options.store.get("probe");
    return undefined;
  });
  const { replication } = options;
  if (replication) readiness.describe("redis", () => ({ ...replication.state() }));
  for (const route of [...healthRoutes(readiness), metricsRoute]) server.mount(route);
  options.logger.info(
    { host: options.host ?? "every interface", port: server.port },
    "HTTP: serving /healthz, /readyz and /metrics",
  );
  return { ...server, readiness };
}
