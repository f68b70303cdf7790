import { Counter, Gauge, Histogram } from "prom-client";
import { registry } from "../../metrics-registry.js";

export { registry, timed } from "../../metrics-registry.js";
export { storeSeconds } from "../../store/metrics.js";

/**
 * What GET /metrics shows, in one process-wide registry, as prom-client's own examples do: the
 * places that count (the command flow, the engine's hooks, the service's transport, the store,
 * the adapters' acks) import the metric they feed, so no wiring runs through the bot's options.
 * Labels take values from closed sets only (command names, job kinds and states, error codes,
 * service routes with their ids blanked), so the series stay few whatever the traffic.
 */

/** Seconds: acks must land within Slack's and Discord's 3 s; anything near that is trouble. */
const ACK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const commandsTotal = new Counter({
  name: "mediabot_commands_total",
  help: "Commands handled, by catalogue name and outcome (ok, or the error code shown to the user)",
  labelNames: ["command", "outcome"] as const,
  registers: [registry],
});

export const ackSeconds = new Histogram({
  name: "mediabot_ack_seconds",
  help: "Time from a request's arrival to the platform's acknowledgement, by platform",
  labelNames: ["platform"] as const,
  buckets: ACK_BUCKETS,
  registers: [registry],
});

export const jobTransitionsTotal = new Counter({
  name: "mediabot_job_transitions_total",
  help: "Jobs that reached a state in this process, by kind and state (queued when started; needs_choice, done and failed as delivered)",
  labelNames: ["kind", "state"] as const,
  registers: [registry],
});

export const pollsTotal = new Counter({
  name: "mediabot_polls_total",
  help: "Status reads of running jobs, by kind and outcome (the state read, or the error code)",
  labelNames: ["kind", "outcome"] as const,
  registers: [registry],
});

export const deliveriesTotal = new Counter({
  name: "mediabot_deliveries_total",
  help: "Job outcomes delivered to chat, by kind and outcome (uploaded, link, message, failed)",
  labelNames: ["kind", "outcome"] as const,
  registers: [registry],
});

export const serviceSeconds = new Histogram({
  name: "mediabot_service_request_seconds",
  help: "Calls to the media service until their answer's headers, by method and route (ids blanked)",
  labelNames: ["method", "route"] as const,
  buckets: CALL_BUCKETS,
  registers: [registry],
});

export const serviceErrorsTotal = new Counter({
  name: "mediabot_service_errors_total",
  help: "Failed calls to the media service, by error code",
  labelNames: ["code"] as const,
  registers: [registry],
});

/**
 * A service path as a label: segments that are ids (any digit, or long opaque tokens) become
 * `:id`, and addresses outside the API (presigned uploads, result downloads) are one route.
 */
export function serviceRoute(pathname: string, isApi: boolean): string {
  if (!isApi) return "external";
  return pathname
    .split("/")
    .map((segment) => (/\d/.test(segment) || segment.length > 24 ? ":id" : segment))
    .join("/");
}

// Tenant labels ("discord:<guild>", "slack:<team>") grow with the servers the bot serves, not
// with traffic: a deployment serves a bounded, known set of them.
export const creditsSpentTotal = new Counter({
  name: "mediabot_credits_spent_total",
  help: "Credits the bot's jobs cost, as attributed from the service's usage readings, by job kind and tenant",
  labelNames: ["kind", "tenant"] as const,
  registers: [registry],
});

export const creditsRemaining = new Gauge({
  name: "mediabot_credits_remaining",
  help: "Credits left on the account of a tenant's API key at its last reading",
  labelNames: ["tenant"] as const,
  registers: [registry],
});

export const budgetRefusalsTotal = new Counter({
  name: "mediabot_budget_refusals_total",
  help: "Starts refused by a budget before any creation call, by the budget's scope (user, role, channel, everyone)",
  labelNames: ["scope"] as const,
  registers: [registry],
});
