import type { z } from "zod";
import type { CallOptions, Download, Transport } from "../http.js";
import { type FieldValue, type FilePart, fileBody, isFilePart, multipartBody } from "../multipart.js";
import type { Usage } from "../schemas.js";

export type { CallOptions, Download } from "../http.js";
export type { FilePart } from "../multipart.js";

/** Exactly one of the keys of T: the spec's "one of these ways to give the image". */
export type OneOf<T> = {
  [K in keyof T]: { [P in K]: T[P] } & { [P in Exclude<keyof T, K>]?: never };
}[keyof T];

export interface PostOptions extends CallOptions {
  /** Endpoints that take both send multipart when the input has files; this forces it without. */
  encoding?: "json" | "multipart";
}

/** The transport with one tenant's key: what the resource groups call. */
export interface Caller {
  get<T>(
    path: string,
    schema: z.ZodType<T>,
    opts?: CallOptions,
    query?: Record<string, number | undefined>,
  ): Promise<T>;
  post<T>(path: string, schema: z.ZodType<T>, input: object, opts?: PostOptions): Promise<T>;
  put(url: string, file: FilePart, opts?: CallOptions): Promise<void>;
  download(pathOrUrl: string, opts?: CallOptions): Promise<Download>;
  /** A file at an address a person gave (Call.given). */
  fetchGiven(url: string, opts?: CallOptions): Promise<Download>;
}

/** A path with its ids escaped: `path\`/api/video/${id}/status\``. */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
  return strings.reduce(
    (out, piece, i) => out + piece + (i < ids.length ? encodeURIComponent(ids[i]!) : ""),
    "",
  );
}

const hasFiles = (input: object) =>
  Object.values(input).some((value) => isFilePart(value) || (Array.isArray(value) && value.some(isFilePart)));

/** Told of every creation answer that carries the account's usage figures (spend.ts reads them). */
export type UsageListener = (usage: Usage) => void;

function tellUsage<T>(body: T, onUsage: UsageListener): T {
  const usage = (body as { usage?: Usage } | null)?.usage;
  if (usage && typeof usage === "object") onUsage(usage);
  return body;
}

export function bindKey(transport: Transport, apiKey: string | undefined, onUsage?: UsageListener): Caller {
  return {
    get: (path, schema, opts, query) => transport.json({ method: "GET", path, query, apiKey }, schema, opts),

    post(path, schema, input, opts = {}) {
      const multipart = (opts.encoding ?? (hasFiles(input) ? "multipart" : "json")) === "multipart";
      const call = multipart
        ? { method: "POST" as const, path, apiKey, body: multipartBody(input as Record<string, FieldValue>) }
        : { method: "POST" as const, path, apiKey, json: input };
      const answer = transport.json(call, schema, opts);
      return onUsage ? answer.then((body) => tellUsage(body, onUsage)) : answer;
    },

    put: (url, file, opts) =>
      transport.exchange({ method: "PUT", path: url, apiKey, body: fileBody(file) }, opts),

    download: (pathOrUrl, opts) => transport.download({ method: "GET", path: pathOrUrl, apiKey }, opts),

    fetchGiven: (url, opts) =>
      transport.download({ method: "GET", path: url, apiKey: undefined, given: true }, opts),
  };
}
