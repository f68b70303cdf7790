import type { SlackState, Workspace } from "../state.js";

/** A Web API call's arguments: form fields (strings) or a JSON body (any values). */
export type Args = Record<string, unknown>;

export type Failure = { ok: false; error: string } & Record<string, unknown>;
export type Result = ({ ok: true } & Record<string, unknown>) | Failure;

export interface AnonymousContext {
  state: SlackState;
  args: Args;
}

export interface MethodContext extends AnonymousContext {
  /** The workspace the caller's token acts for. */
  team: Workspace;
  /** The token the call came with. */
  token?: string;
}

export type Method =
  | {
      /**
       * Slack refuses a bot token for app-level methods and an app token for everything else; a
       * function's own token is taken only by the methods that complete its execution (functions.ts).
       */
      token: "bot" | "app" | "function";
      run(ctx: MethodContext): Result;
    }
  | {
      /** oauth.v2.access: the app's client id and secret, no token. */
      token: "none";
      run(ctx: AnonymousContext): Result;
    };

export function fail(error: string, extra: Record<string, unknown> = {}): Failure {
  return { ok: false, error, ...extra };
}

export function isFailure(value: unknown): value is Failure {
  return typeof value === "object" && value !== null && "ok" in value && value.ok === false;
}

export function str(args: Args, key: string): string | undefined {
  const value = args[key];
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

export const INVALID_JSON = Symbol("invalid JSON");

/** Form-encoded calls carry structured arguments (blocks, view, files) as JSON text; JSON calls carry values. */
export function jsonArg(args: Args, key: string): unknown {
  const value = args[key];
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return INVALID_JSON;
  }
}

/**
 * A channel the bot can see: any public one of its workspace (chat:write.public), a private one
 * only as a member; another workspace's channels do not exist for its token.
 */
export function knownChannel({ state, args, team }: MethodContext, key = "channel"): string | Failure {
  const channel = state.channels.get(str(args, key) ?? "");
  return channel && channel.teamId === team.id && (!channel.isPrivate || channel.botIsMember)
    ? channel.id
    : fail("channel_not_found");
}

/** What needs the bot in the channel: ephemeral messages, and sharing files into it. */
export function memberChannel(ctx: MethodContext, key = "channel"): string | Failure {
  const channel = knownChannel(ctx, key);
  if (isFailure(channel)) return channel;
  return ctx.state.channels.get(channel)?.botIsMember ? channel : fail("not_in_channel");
}

/** Slack's boolean arguments: true, or "true"/"1" in a form. */
export function flagArg(args: Args, key: string): boolean {
  const value = str(args, key);
  return value === "true" || value === "1";
}

/**
 * A method that needs a bot scope the installation did not grant answers missing_scope, naming
 * the scope needed and those it has, as Slack does.
 */
export function missingScope({ team }: MethodContext, scope: string): Failure | undefined {
  if (!team.grantedScopes || team.grantedScopes.includes(scope)) return undefined;
  return fail("missing_scope", { needed: scope, provided: team.grantedScopes.join(",") });
}
