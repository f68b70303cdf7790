import type { Clock } from "../clock.js";
import type { UploadedFile } from "../messages.js";
import type { World } from "../state.js";

export interface RouteContext {
  world: World;
  clock: Clock;
  /** ws:// URL handed out by GET /gateway/bot. */
  gatewayUrl: string;
  /** Decoded path parameters: `@original` arrives as `%40original`. */
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  files: UploadedFile[];
}

export interface Reply {
  status: number;
  json?: unknown;
}

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Template below /api/v10, e.g. `/channels/:channel_id/messages`. */
  path: string;
  /** "bot": needs `Authorization: Bot <token>`; "none": the token is in the path (interactions, webhooks). */
  auth: "bot" | "none";
  handle(ctx: RouteContext): Reply;
}

export const json = (value: unknown, status = 200): Reply => ({ status, json: value });
export const noContent: Reply = { status: 204 };
