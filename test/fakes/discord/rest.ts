import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Clock } from "./clock.js";
import { DiscordHttpError, errors, type Rejection } from "./errors.js";
import type { RateLimits } from "./ratelimit.js";
import { type BodyLimits, type ParsedBody, readBody } from "./request.js";
import type { Reply, Route } from "./routes/types.js";
import type { World } from "./state.js";
import type { Issue } from "./validate.js";

export const API_PREFIX = "/api/v10";

/** One REST request as the fake saw and answered it. */
export interface RestCall {
  at: number;
  method: string;
  /** Decoded path below /api/v10, e.g. `/webhooks/123/aW50.../messages/@original`. */
  path: string;
  /** The matched template, e.g. `/webhooks/:webhook_id/:webhook_token/messages/:message_id`; "" if none. */
  route: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /** JSON body, or `payload_json` of a multipart body. */
  json: unknown;
  files: { field: string; name: string; size: number; contentType: string }[];
  status: number;
  /** Discord error code of an error answer. */
  code?: number;
  response?: unknown;
}

/** A request Discord would refuse because of its body, or one the fake cannot answer. */
export interface ValidationError {
  kind: Rejection["kind"] | "route" | "fake";
  method: string;
  path: string;
  route: string;
  /** The discord-api-spec schema that refused the body. */
  schema?: string;
  issues: Issue[];
  body: unknown;
}

/** A failure the test orders: the next `times` requests that match are answered with it, whatever the route would do. */
export interface Fault {
  /** Any method when left out. */
  method?: string;
  /** Tested against the decoded path below /api/v10, e.g. `/webhooks/1/aW50.../messages/@original`. */
  path: RegExp;
  status: number;
  /** Discord's JSON error code; default 0, as in Discord's 5xx answers. */
  code?: number;
  /** Default `<status>: <reason>`, e.g. "500: Internal Server Error". */
  message?: string;
  /** Default 1. */
  times?: number;
  /** Only requests that upload files (a result, not the progress edits before it). */
  withFiles?: boolean;
}

/** The first fault that matches, used up by one. */
function takeFault(
  faults: Fault[],
  method: string,
  path: string,
  files: number,
): DiscordHttpError | undefined {
  const index = faults.findIndex(
    (f) => (f.method ?? method) === method && f.path.test(path) && (!f.withFiles || files > 0),
  );
  const fault = faults[index];
  if (!fault) return undefined;
  const left = (fault.times ?? 1) - 1;
  if (left > 0) faults[index] = { ...fault, times: left };
  else faults.splice(index, 1);
  const message = fault.message ?? `${fault.status}: ${STATUS_CODES[fault.status] ?? "Error"}`;
  return new DiscordHttpError(fault.status, fault.code ?? 0, message);
}

export interface RestDeps {
  world: World;
  clock: Clock;
  token: string;
  gatewayUrl: string;
  routes: Route[];
  rateLimits: RateLimits;
  /** Pending faults, in the order the test ordered them; the handler uses them up. */
  faults: Fault[];
  /** How much one request, and each file in it, may carry on this route, for this uploader. */
  limits(route: string, params: Record<string, string>): BodyLimits;
  onCall(call: RestCall): void;
  onValidationError(error: ValidationError): void;
}

interface Match {
  route: Route;
  params: Record<string, string>;
}

function match(routes: Route[], method: string, segments: string[]): Match | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split("/").slice(1);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const same = pattern.every((part, i) => {
      const segment = segments[i]!;
      if (part.startsWith(":")) {
        params[part.slice(1)] = segment;
        return segment.length > 0;
      }
      return part === segment;
    });
    if (same) return { route, params };
  }
  return undefined;
}

/** Discord shares a bucket per route and major parameter (channel, guild, webhook, interaction). */
function bucketOf({ route, params }: Match): string {
  const major =
    params.channel_id ??
    params.guild_id ??
    (params.webhook_id ? `${params.webhook_id}/${params.webhook_token}` : undefined) ??
    params.interaction_id ??
    "global";
  return `${route.path}:${major}`;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function createRestHandler(deps: RestDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    const method = req.method ?? "GET";
    const segments = url.pathname.slice(API_PREFIX.length).split("/").slice(1).map(decode);
    const path = `/${segments.join("/")}`;
    const found = match(deps.routes, method, segments);
    // A torn or malformed upload is answered like unreadable JSON rather than left to crash the fake.
    const limits = found ? deps.limits(found.route.path, found.params) : deps.limits("", {});
    const body = await readBody(req, limits).catch(
      (): ParsedBody => ({ json: undefined, files: [], invalidJson: true, tooLarge: false }),
    );
    const call: RestCall = {
      at: deps.clock.now(),
      method,
      path,
      route: found?.route.path ?? "",
      params: found?.params ?? {},
      query: Object.fromEntries(url.searchParams),
      json: body.json,
      files: body.files.map((f) => ({
        field: f.field,
        name: f.filename,
        size: f.size,
        contentType: f.contentType,
      })),
      status: 0,
    };
    const report = (kind: ValidationError["kind"], issues: Issue[], schema?: string) =>
      deps.onValidationError({
        kind,
        method,
        path,
        route: call.route,
        issues,
        body: body.json,
        ...(schema ? { schema } : {}),
      });

    let headers: Record<string, string> = {};
    let reply: Reply;
    try {
      if (!found) {
        report("route", [{ path: "", message: `the fake Discord has no ${method} ${path}` }]);
        throw errors.notFound();
      }
      const fault = takeFault(deps.faults, method, path, body.files.length);
      if (fault) throw fault;
      const exempt = found.route.path.startsWith("/interactions/");
      const decision = deps.rateLimits.decide(found.route.path, bucketOf(found), exempt);
      headers = decision.headers;
      if (decision.retryAfterMs !== undefined) {
        reply = {
          status: 429,
          json: {
            message: "You are being rate limited.",
            retry_after: decision.retryAfterMs / 1000,
            global: false,
            code: 0,
          },
        };
      } else {
        if (found.route.auth === "bot" && req.headers.authorization !== `Bot ${deps.token}`)
          throw errors.unauthorized();
        if (body.invalidJson) throw errors.invalidJson();
        if (body.tooLarge) throw errors.tooLarge();
        reply = found.route.handle({
          world: deps.world,
          clock: deps.clock,
          gatewayUrl: deps.gatewayUrl,
          params: found.params,
          query: url.searchParams,
          body: body.json,
          files: body.files,
        });
      }
    } catch (error) {
      if (error instanceof DiscordHttpError) {
        if (error.rejection) report(error.rejection.kind, error.rejection.issues, error.rejection.schema);
        call.code = error.code;
        reply = { status: error.status, json: error.body() };
      } else {
        // A bug in the fake must fail the test, not hang it waiting for an answer.
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        report("fake", [{ path: "", message }]);
        reply = { status: 500, json: { message: "500: Internal Server Error", code: 0 } };
      }
    }

    call.status = reply.status;
    call.response = reply.json;
    // Only bodies carry a JSON content type: discord.js parses any response that claims one.
    if (reply.json === undefined) {
      res.writeHead(reply.status, headers).end();
    } else {
      res
        .writeHead(reply.status, { ...headers, "Content-Type": "application/json" })
        .end(JSON.stringify(reply.json));
    }
    deps.onCall(call);
  };
}
