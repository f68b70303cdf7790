import { badRequest, HttpError } from "./errors.js";
import type { ApiCtx, Ctx, Reply } from "./http.js";

type Handler<C> = (ctx: C) => Promise<Reply> | Reply;

export interface Route {
  methods: string[];
  pattern: RegExp;
  keys: string[];
  handle: Handler<Ctx>;
}

/** "/api/video/:id/status": a parameter matches one segment, possibly empty (answered 400 "missing id"). */
function route(methods: string[], pattern: string, handle: Handler<Ctx>): Route {
  const keys: string[] = [];
  const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, (_, key: string) => {
    keys.push(key);
    return "([^/]*)";
  });
  return { methods, pattern: new RegExp(`^${source}$`), keys, handle };
}

/** An endpoint of the service: every one needs a known `x-api-key`. */
export function api(method: string, pattern: string, handler: Handler<ApiCtx>): Route {
  return route([method], pattern, (ctx) => {
    const header = ctx.req.headers["x-api-key"];
    const account = ctx.state.accounts.find(typeof header === "string" ? header : undefined);
    if (!account) throw new HttpError(401, "invalid or missing API key");
    return handler({ ...ctx, account });
  });
}

/** A key-less address (presigned storage): the URL itself is the credential. */
export function keyless(methods: string[], pattern: string, handler: Handler<Ctx>): Route {
  return route(methods, pattern, handler);
}

export type Resolution = { route: Route; params: Record<string, string> } | "method_not_allowed" | undefined;

export function resolve(routes: Route[], method: string, path: string): Resolution {
  let pathKnown = false;
  for (const candidate of routes) {
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    pathKnown = true;
    if (!candidate.methods.includes(method)) continue;
    const params: Record<string, string> = {};
    for (const [i, key] of candidate.keys.entries()) {
      try {
        params[key] = decodeURIComponent(match[i + 1] ?? "");
      } catch {
        throw badRequest(`malformed ${key}`);
      }
    }
    return { route: candidate, params };
  }
  return pathKnown ? "method_not_allowed" : undefined;
}

/** The path parameter, or the 400 "missing id" the spec declares for empty ones. */
export function param(ctx: Ctx, key: string): string {
  const value = ctx.params[key]?.trim();
  if (!value) throw badRequest(`missing ${key}`);
  return value;
}
