import { registry } from "../core/base/metrics.js";
import type { Route } from "./server.js";

/** GET /metrics in Prometheus' text format: the bot's figures (src/core/base/metrics.ts) and the process's. */
export const metricsRoute: Route = {
  method: "GET",
  path: "/metrics",
  async handle(_req, res) {
    const body = await registry.metrics();
    res.writeHead(200, { "content-type": registry.contentType });
    res.end(body);
  },
};
