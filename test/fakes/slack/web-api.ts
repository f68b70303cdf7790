import type { IncomingMessage, ServerResponse } from "node:http";
import { type Args, type Failure, fail, isFailure, type Result, str } from "./methods/args.js";
import { METHODS } from "./methods/index.js";
import { RateTiers } from "./rate-tiers.js";
import type { SlackState } from "./state.js";

export interface ApiCall {
  method: string;
  /** Form fields as sent (structured values are JSON text), or the JSON body. */
  args: Args;
  token?: string;
  status: number;
  answered: { ok: boolean; error?: string };
  /** When the fake answered (ms since the epoch). */
  at: number;
}

/** Seconds Slack asks a caller to wait after `rateLimitEvery`. */
const RETRY_AFTER_S = 1;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Slack takes method arguments form-encoded or as JSON (query parameters count too). */
async function readArgs(req: IncomingMessage): Promise<Args | Failure> {
  const query = Object.fromEntries(new URL(req.url ?? "/", "http://fake").searchParams);
  const body = await readBody(req);
  const type = req.headers["content-type"]?.split(";")[0]?.trim();
  if (body === "" || type === "application/x-www-form-urlencoded") {
    return { ...query, ...Object.fromEntries(new URLSearchParams(body)) };
  }
  if (type !== "application/json") return fail("invalid_post_type");
  try {
    const json: unknown = JSON.parse(body);
    return typeof json === "object" && json !== null && !Array.isArray(json)
      ? { ...query, ...json }
      : fail("invalid_json");
  } catch {
    return fail("invalid_json");
  }
}

function bearer(req: IncomingMessage): string | undefined {
  const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
  return match?.[1];
}

/** A failure the test orders: the next `times` (default 1) calls of `method` answer `{ok: false, error}`. */
export interface Fault {
  method: string;
  error: string;
  times?: number;
}

/**
 * The Web API at /api/{method}: auth, token types, rate limits (per method and workspace, once
 * turned on: rate-tiers.ts; every Nth call with `rateLimitEvery`), then the method.
 */
export class WebApi {
  readonly calls: ApiCall[] = [];
  /** Ordered faults, used up one call at a time; the method does not run, so nothing changes. */
  readonly faults: Fault[] = [];
  readonly tiers = new RateTiers();
  private served = 0;

  constructor(
    private readonly state: SlackState,
    private readonly rateLimitEvery: number,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const args = await readArgs(req);
    const token = bearer(req) ?? (isFailure(args) ? undefined : str(args, "token"));
    this.served += 1;
    const retryAfter = isFailure(args) ? undefined : this.limited(method, args, token);
    const result =
      retryAfter !== undefined
        ? fail("ratelimited")
        : isFailure(args)
          ? args
          : (this.takeFault(method) ?? this.run(method, args, token));
    const status = retryAfter !== undefined ? 429 : 200;
    this.calls.push({
      method,
      args: isFailure(args) ? {} : args,
      token,
      status,
      answered: result.ok ? { ok: true } : { ok: false, error: result.error },
      at: Date.now(),
    });
    res
      .writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        ...(retryAfter !== undefined ? { "retry-after": String(retryAfter) } : {}),
      })
      .end(JSON.stringify(result));
  }

  /** Seconds the caller must wait, when this call is over a limit. */
  private limited(method: string, args: Args, token: string | undefined): number | undefined {
    if (this.rateLimitEvery > 0 && this.served % this.rateLimitEvery === 0) return RETRY_AFTER_S;
    const issued = token === undefined ? undefined : this.state.tokens.get(token);
    const workspace = issued && this.state.workspaces.get(issued.teamId);
    return workspace && this.tiers.check(method, workspace, args);
  }

  private takeFault(method: string): Result | undefined {
    const index = this.faults.findIndex((f) => f.method === method);
    const fault = this.faults[index];
    if (!fault) return undefined;
    if ((fault.times ?? 1) > 1) this.faults[index] = { ...fault, times: (fault.times ?? 1) - 1 };
    else this.faults.splice(index, 1);
    return fail(fault.error);
  }

  private run(method: string, args: Args, token: string | undefined): Result {
    const entry = METHODS[method];
    if (!entry) return fail("unknown_method");
    if (entry.token === "none") return entry.run({ state: this.state, args });
    if (!token) return fail("not_authed");
    const issued = this.state.tokens.get(token);
    if (!issued) return fail("invalid_auth");
    // Uninstalled, or revoked by an admin: the token stays known and refused.
    if (issued.revoked) return fail("token_revoked");
    // A rotating token past its 12 hours (token rotation).
    if (issued.expiresAt !== undefined && issued.expiresAt <= Date.now()) return fail("token_expired");
    if (issued.kind !== entry.token) return fail("not_allowed_token_type");
    return entry.run({ state: this.state, args, token, team: this.state.workspace(issued.teamId) });
  }
}
